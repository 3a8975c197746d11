#!/usr/bin/env bash
# The sanitizer stage of scripts/test.sh (docs/testing.md):
#  1. clang with ASan+UBSan (-fno-sanitize-recover: any UB finding fails), libFuzzer coverage and -Werror
#     in build-sanitize/ (or $FUZZ_BUILD_DIR), libraries at -O1 and tests at -O0, without debug info, as unity builds
#     (sources in batches of 8: the main build compiles each file alone) (a finding names the functions;
#     rebuild with -g to get lines). This is also the clang check: it builds the libraries, the binary,
#     the tests and the fuzz targets warning-free. It runs the unit tests (label unit), the fuzz replay and
#     the scenario tests labelled `sanitize` (one per distinct code path: see tests/CMakeLists.txt), then
#     FUZZ_SECONDS of fuzzing per fuzz target (argument 1; default 2; 0 skips it; scripts/fuzz.sh). The two
#     Monte Carlo cases of tests_stats (Holm's family-wise rate and power over 50 ops: 200,000 U tests on
#     vectors, 30 s under ASan) and three repetitive CLI cases ($asan_skip below) are left to the main
#     build: they reach no path the other unit tests miss.
#  2. ThreadSanitizer: neuron-gate and tests_util built with -fsanitize=thread in build-tsan/ (or
#     $TSAN_BUILD_DIR), the parallel_for unit test and tests/tsan_checks.sh (compare, calibrate, rank,
#     inspect, errors and git: profiles with --threads 4).
#   bash scripts/sanitize.sh [FUZZ_SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-2}"
build="${FUZZ_BUILD_DIR:-build-sanitize}"
export FUZZ_BUILD_DIR="$build"
# detect_leaks: LeakSanitizer (part of ASan) reports any leak at exit. Allocation over 4 GiB at once
# is an error, not a silent success (allocator_may_return_null=0).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0:max_allocation_size_mb=4096:strict_string_checks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/scripts/lsan.supp}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Left to the main build: cases that repeat, many times over, a path another case reaches under ASan (the
# Monte Carlo cases above; calibrate's 200 splits, where 20 splits run the same code; the streamed digest of
# every bundled profile, where the hostile-names case streams the same writer; eight compares of the bundled
# examples under both units, where the next cases of test_cli.cpp run each unit). 52 CPU seconds under ASan.
asan_skip='^tests_stats: ?(Holm over 50 one-sided U tests|one op among 50 slowed)'
asan_skip+='|^tests_cli: ?calibrate on example A measures a false-alarm rate of 0 of 200 splits'
asan_skip+='|^tests_store: ?a streamed digest is byte-identical to the document.s dump on every bundled profile'
asan_skip+='|^tests_cli: ?compare --unit run and --unit step: A vs Areg regresses and A vs A2 passes'
start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g0" -DCMAKE_CXX_COMPILER=clang++ \
      -DNEURON_GATE_FUZZ=ON -DNEURON_GATE_WERROR=ON -DNEURON_GATE_PCH=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
built=$(date +%s)
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -L '^(unit|sanitize)$' -E "$asan_skip"
tested=$(date +%s)
tsan_build="${TSAN_BUILD_DIR:-build-tsan}"
cmake -S . -B "$tsan_build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g0" -DCMAKE_CXX_COMPILER=clang++ \
      -DNEURON_GATE_SANITIZERS=thread -DNEURON_GATE_WERROR=ON -DNEURON_GATE_PCH=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build "$tsan_build" -j "$(nproc)" --target neuron-gate tests_util
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan_build/tests/tests_util" -tc='parallel_for*'
bash tests/tsan_checks.sh "$tsan_build/src/neuron-gate"
tsan_done=$(date +%s)
if [ "$seconds" -gt 0 ]; then
  FUZZ_NO_BUILD=1 bash scripts/fuzz.sh "$seconds"
fi
echo "sanitize.sh: ASan+UBSan build $((built - start)) s, ctest $((tested - built)) s, TSan $((tsan_done - tested)) s, fuzz $(($(date +%s) - tsan_done)) s" >&2
