#!/usr/bin/env bash
# ThreadSanitizer pass over the threaded paths (issue 21 item 3), run by scripts/sanitize.sh with a binary
# built with -DNEURON_GATE_SANITIZERS=thread: compare (both sides read in parallel, the noise check's
# splits judged in parallel; of the corpus, 710 op metrics measured in blocks on the threads), calibrate, rank, inspect of the corpus (traces of many shapes, gzip), a side
# with broken traces (errors from several threads), git: profiles (blobs read from worker threads) and one
# multi-chunk trace alone (its SHA-256 on a hashing thread beside the reader, input/byte_source.cpp),
# each with --threads 4. Any data race report fails (halt_on_error, exit 66).
# usage: tsan_checks.sh BINARY
set -euo pipefail
binary=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 exitcode=66}"
ex=examples/rmsnorm-4x512
work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-gate-tsan-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/broken"
cp -r "$ex/A/run-01" "$ex/A/run-02" "$work/broken/"
cp tests/data/bad-inputs/truncated-mid-string.pt.trace.json "$work/broken/run-01/x.pt.trace.json"
cp tests/data/bad-inputs/unescaped-quote.pt.trace.json "$work/broken/run-02/x.pt.trace.json"
failed=0
check() {
  set +e
  "$binary" "$@" --threads 4 > /dev/null 2> "$work/stderr"
  local code=$?
  set -e
  if [ "$code" -eq 66 ] || grep -q "ThreadSanitizer" "$work/stderr"; then
    echo "tsan_checks: data race in: neuron-gate $*" >&2
    cat "$work/stderr" >&2
    failed=1
  else
    echo "tsan_checks: ok (exit $code): neuron-gate $*"
  fi
}
check compare "$ex/A" "$ex/Areg" --no-git
check compare tests/data/profiles/operating-points/base tests/data/profiles/operating-points/head --no-git
check calibrate "$ex/A" --splits 20
check rank "$ex/A" "$ex/B" "$ex/C"
check inspect tests/data/corpus
check inspect tests/data/corpus/H03-mtia-rank0.json.gz
check compare tests/data/corpus tests/data/corpus --no-git
check compare "$ex/A" "$work/broken" --no-git
if git rev-parse --git-dir > /dev/null 2>&1; then
  check compare git:HEAD:examples/rmsnorm-4x512/A git:HEAD:examples/rmsnorm-4x512/Areg --no-git
fi
exit "$failed"
