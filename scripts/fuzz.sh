#!/usr/bin/env bash
# Fuzzes every reader (docs/development.md "Fuzzing and sanitizers"): builds the libFuzzer targets with clang, ASan and UBSan in
# build-sanitize/ (or $FUZZ_BUILD_DIR; the build scripts/sanitize.sh makes), makes each target's seed corpus from the repository's own files
# (tests/data, examples, rules; fuzz/seeds), then runs each target for SECONDS (default 60).
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
# A crash, leak, UB report, uncaught non-input exception, timeout (> 10 s on one input) or an
# allocation over 2 GB stops that target; its input is saved as build-sanitize/findings/<target>/crash-*
# (turn it into tests/data/fuzz-crashes/<target>/<name> with a test). Exit 1 when any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build="${FUZZ_BUILD_DIR:-build-sanitize}"
# One target per reader of a file kind (the fuzz_target("...") marks of src/formats/file_kinds.cpp), and rules.
mapfile -t all_targets < <(grep -o 'fuzz_target("[a-z0-9_]*")' src/formats/file_kinds.cpp | sed 's/fuzz_target("\(.*\)")/\1/' | awk '!seen[$0]++')
all_targets+=(rules)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DNEURON_GATE_FUZZ=ON -DNEURON_GATE_WERROR=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target fuzzers
fi

# Seeds: files of the target's kind found in the repository, each at most 64 KiB (gzip traces also
# decompressed when that stays small), plus hand-written ones in fuzz/seeds/<target>/.
seed_files() {
  case "$1" in
    trace) ls tests/data/bad-inputs/*.json tests/data/corpus/*.json* examples/*/*/run-01/*.pt.trace.json ;;
    key_averages) ls tests/data/key_averages/*.txt tests/data/corpus/*.txt examples/*/B/run-01/*.key_averages.txt ;;
    rules) ls rules/*.json ;;
    e2e) ls examples/*/*/e2e.json ;;
    benchmark) ls tests/data/formats/google-* tests/data/formats/hyperfine-* tests/data/formats/pytest-* ;;
    neuron_summary) ls tests/data/formats/neuron-* ;;
    manifest) ;;
  esac
  if [ -d "fuzz/seeds/$1" ]; then find "fuzz/seeds/$1" -type f; fi
}

status=0
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  findings="$build/findings/$target"
  mkdir -p "$corpus" "$findings"
  n=0
  while read -r file; do
    size=$(stat -c %s "$file")
    name="seed-$(echo "$file" | tr '/' '_')"
    if [ "$size" -le 65536 ]; then cp "$file" "$corpus/$name"; n=$((n + 1)); fi
    if [[ "$file" == *.gz ]] && [ "$(gzip -dc "$file" | head -c 65537 | wc -c)" -le 65536 ]; then
      gzip -dc "$file" > "$corpus/$name.json"; n=$((n + 1))
    fi
  done < <(seed_files "$target")
  echo "fuzz_$target: $n seeds, ${seconds}s" >&2
  if ! "$build/fuzz/fuzz_$target" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" \
        >"$build/findings/$target.log" 2>&1; then
    echo "fuzz_$target FAILED: see $build/findings/$target.log and $findings/" >&2
    grep -E "ERROR|SUMMARY|terminate|what\(\)" "$build/findings/$target.log" | head -5 >&2 || true
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$build/findings/$target.log" | tail -2 >&2 || true
  fi
done
exit $status
