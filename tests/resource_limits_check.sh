#!/usr/bin/env bash
# Running out of memory is an error like any other, never an internal error: under address-space limits
# (ulimit -v) from tight to ample, with one thread and with 64 (each thread's malloc arena reserves address
# space, so allocations fail in discovery, hashing, reading or the statistics), `inspect` and `compare` of
# the bundled examples either give the output of an unlimited run or exit 2 with "neuron-gate: error: ...",
# and a failed compare leaves no report file. Exit 77 (skipped) where the binary cannot start under a limit
# at all (sanitizer builds reserve terabytes of address space; both checks are skipped there).
# Out of file descriptors (ulimit -n leaving 1 to 5 free) with 8 threads, readers wait for each other's files to close:
# the output is the unlimited run's every time (which file failed used to depend on timing).
# usage: resource_limits_check.sh BINARY
set -uo pipefail
binary=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-gate-resources-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
ex=examples/rmsnorm-4x512
"$binary" inspect "$ex/A" > "$work/inspect.expected"
if ! (ulimit -v 2000000 && "$binary" --version > /dev/null 2>&1); then
  echo "skipped: $binary cannot start under ulimit -v 2000000 (a sanitizer build)"
  exit 77
fi
# Descriptors this shell already holds (ctest passes some on): the limit leaves 1 to 5 more.
held=$(ls /proc/$$/fd | wc -l)
for free in 1 2 3 5; do
  files=$((held + free))
  for run in 1 2 3; do
    (ulimit -n "$files" && exec "$binary" inspect "$ex/A" --threads 8) > "$work/out" 2> "$work/err"
    rc=$?
    if [ "$rc" != 0 ] || ! cmp -s "$work/out" "$work/inspect.expected"; then
      echo "FAIL: inspect under ulimit -n $files ($free free), --threads 8 (run $run): exit $rc, $(head -c 300 "$work/err")"
      exit 1
    fi
  done
done
"$binary" compare "$ex/A" "$ex/Areg" --no-git --quiet --json "$work/expected.json"
failures=0
outcomes=""
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
for kib in 40000 80000 120000 160000 200000 300000 400000 800000; do
  for threads in 1 64; do
    (ulimit -v "$kib" && exec "$binary" inspect "$ex/A" --threads "$threads") > "$work/out" 2> "$work/err"
    rc=$?
    outcomes="$outcomes inspect/$kib/$threads:$rc"
    if [ "$rc" = 0 ]; then
      cmp -s "$work/out" "$work/inspect.expected" || fail "inspect under ulimit -v $kib, --threads $threads: output differs"
    elif [ "$rc" != 2 ] || ! grep -q '^neuron-gate: error: ' "$work/err" || grep -q 'internal error' "$work/err"; then
      fail "inspect under ulimit -v $kib, --threads $threads: exit $rc, $(head -c 300 "$work/err")"
    fi
    rm -f "$work/r.json"
    (ulimit -v "$kib" && exec "$binary" compare "$ex/A" "$ex/Areg" --no-git --quiet --threads "$threads" \
      --json "$work/r.json") > "$work/out" 2> "$work/err"
    rc=$?
    outcomes="$outcomes compare/$kib/$threads:$rc"
    if [ "$rc" = 1 ]; then
      cmp -s "$work/r.json" "$work/expected.json" || fail "compare under ulimit -v $kib, --threads $threads: report differs"
    elif [ "$rc" != 2 ] || ! grep -q '^neuron-gate: error: ' "$work/err" || grep -q 'internal error' "$work/err"; then
      fail "compare under ulimit -v $kib, --threads $threads: exit $rc, $(head -c 300 "$work/err")"
    elif [ -e "$work/r.json" ]; then
      fail "compare under ulimit -v $kib, --threads $threads: exit 2 but a report was written"
    fi
  done
done
echo "outcomes (command/KiB/threads:exit):$outcomes"
case "$outcomes" in
*":2"*) ;;
*) fail "no limit made a run fail: the check proves nothing" ;;
esac
if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "resource_limits_check: ok"
