#!/usr/bin/env bash
# Builds neuron-gate and its unit tests with the other compilers it supports, warnings as errors, and runs
# the unit tests with each: g++-11 (Ubuntu 22.04's compiler, as on the Neuron DLAMI) and clang++ (Debian's
# clang 14; a macOS-style toolchain). ctest runs it (test compilers, label compilers), so every full
# ctest run and CI do; the default compiler is covered by the main build.
#
# Usage: test-compilers.sh [--build-root DIR] [COMPILER...]     default: g++-11 clang++
# Each compiler gets DIR/build-<name>/ (DIR: the source folder by default; ctest passes <build>/compilers;
# log: build-<name>/test-compilers.log), -O1 and no
# debug info: this checks that the code compiles warning-free and that the unit tests pass, not how fast
# it runs; -O1 keeps the optimiser-dependent warnings (-Wmaybe-uninitialized) at less compile time
# than -O2 -g.
# Only the tests_* doctest binaries (and neuron-gate, which tests_cli runs) are built and run, each
# binary once, not through ctest: the golden, action and browser checks do not depend on the compiler.
# Prints one line per compiler and "N passed, N failed" (compilers); exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

root="."
if [ "${1:-}" = "--build-root" ]; then
  [ $# -ge 2 ] || { echo "usage: test-compilers.sh [--build-root DIR] [COMPILER...]" >&2; exit 2; }
  root="$2"
  shift 2
fi
compilers=("$@")
[ ${#compilers[@]} -gt 0 ] || compilers=(g++-11 clang++)
tests=(tests_util tests_stats tests_profile tests_compare tests_report tests_cli)
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

passed=0
failed=0
for compiler in "${compilers[@]}"; do
  name="$(basename "$compiler" | sed 's/clang++/clang/; s/g++/gcc/' | tr -c 'A-Za-z0-9.\n' '-')"
  dir="$root/build-$name"
  log="$dir/test-compilers.log"
  start=$SECONDS
  if ! command -v "$compiler" > /dev/null; then
    echo "FAILED - $compiler: not installed (scripts/install-deps.sh --test installs g++-11 and clang)"
    failed=$((failed + 1))
    continue
  fi
  echo "== $compiler: configure and build into $dir (log: $log)"
  mkdir -p "$dir"
  : > "$log"
  status=0
  {
    cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" "${launcher[@]}" -DCMAKE_BUILD_TYPE=None \
      -DCMAKE_CXX_FLAGS="-O1" -DNEURON_GATE_WERROR=ON &&
      cmake --build "$dir" -j "$(nproc)" --target "${tests[@]}"
  } > "$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    grep -E "error|warning" "$log" | head -n 40
    echo "FAILED - $compiler: build (see $log)"
    failed=$((failed + 1))
    continue
  fi
  if grep -q "warning:" "$log"; then
    grep "warning:" "$log" | head -n 20
    echo "FAILED - $compiler: the build printed warnings"
    failed=$((failed + 1))
    continue
  fi
  echo "== $compiler: built in $((SECONDS - start)) s; running the unit tests"
  failing=()
  for test in "${tests[@]}"; do
    "$dir/tests/$test" --no-intro=true --minimal=true >> "$log" 2>&1 || failing+=("$test")
  done
  if [ ${#failing[@]} -eq 0 ]; then
    echo "ok     - $compiler: warning-free build and every unit test passes ($((SECONDS - start)) s)"
    passed=$((passed + 1))
  else
    tail -n 40 "$log"
    echo "FAILED - $compiler: unit tests failed in ${failing[*]} (see $log)"
    failed=$((failed + 1))
  fi
done
echo "compilers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
