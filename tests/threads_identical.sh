#!/usr/bin/env bash
# Issue 21 item 3: what neuron-gate writes does not depend on its thread count. Every bundled example
# pair and test profile is compared (Markdown, JSON, HTML, JUnit, annotations and the terminal summary, all
# from one run), calibrated, inspected and ranked once with --threads 1 and once with --threads 4 (one
# compare also with NEURON_GATE_THREADS=3); outputs, stderr and exit codes must be byte-identical. Errors
# too: a side with two broken traces in different runs names the first in path order, and a side crossing
# NEURON_GATE_MAX_OPS names the same file, whatever the thread count.
# usage: threads_identical.sh BINARY
set -euo pipefail
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-gate-threads-XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$root"
ex=examples/rmsnorm-4x512
td=tests/data/profiles
co=tests/data/corpus
failures=0

# run_all LABEL ARGS...: runs the binary once with --threads 1 and once with --threads 4, in
# $work/<threads>/LABEL/ (stdout, stderr, exit and any report file written to ./).
run_all() {
  local label=$1; shift
  for threads in 1 4; do
    local out="$work/$threads/$label"
    mkdir -p "$out"
    set +e
    (cd "$out" && "$binary" "$@" --threads "$threads" > stdout 2> stderr; echo $? > exit)
    set -e
  done
}

# compare_pair LABEL BASE HEAD [ARGS...]: every report of one compare, and the terminal summary on stdout.
compare_pair() {
  local label=$1 base=$2 head=$3; shift 3
  run_all "$label" compare "$root/$base" "$root/$head" --no-git --format terminal --markdown r.md --json r.json \
    --html r.html --junit r.xml --annotations r.annotations "$@"
}

for other in A2 A_8x512 A_sched Areg B C; do
  compare_pair "A-vs-$other" "$ex/A" "$ex/$other"
done
compare_pair "Areg-vs-A" "$ex/Areg" "$ex/A"
compare_pair traces-only "$td/traces-only/A" "$td/traces-only/A_slow"
compare_pair traces-only-LN "$td/traces-only/LN" "$td/traces-only/LNbig"
compare_pair new-call-site "$td/new-call-site/A" "$td/new-call-site/Abias"
compare_pair two-ranks "$td/two-ranks/base" "$td/two-ranks/head"
compare_pair operating-points "$td/operating-points/base" "$td/operating-points/head"
compare_pair operating-points-partial "$td/operating-points/base" "$td/operating-points/partial"
compare_pair bimodal "$td/bimodal" "$td/bimodal"
compare_pair K1-vs-K2 "$co/K1" "$co/K2"
compare_pair H06-vs-H07 "$co/H06-trace-compare-base.json.gz" "$co/H07-trace-compare-test.json.gz"
compare_pair corpus "$co" "$co"
compare_pair by-shape-A-vs-B "$ex/A" "$ex/B" --by-shape
run_all rank rank "$root/$ex/A" "$root/$ex/B" "$root/$ex/C"
for profile in "$ex"/* "$td"/*/* "$co"/*; do
  [ -e "$profile" ] || continue
  case "$profile" in *.md) continue ;; esac
  run_all "inspect-$(echo "$profile" | tr '/' '_')" inspect "$root/$profile"
done
for profile in "$ex"/A "$ex"/A_8x512 "$td/traces-only/A" "$td/two-ranks/base"; do
  run_all "calibrate-$(echo "$profile" | tr '/' '_')" calibrate "$root/$profile" --splits 40
done

# Two broken traces in different runs of one side: the first in path order is the error, every time.
broken="$work/broken"
mkdir -p "$broken/base" "$broken/head"
cp -r "$ex/A/run-01" "$ex/A/run-02" "$ex/A/run-03" "$broken/base/"
cp -r "$ex/A/run-01" "$ex/A/run-02" "$ex/A/run-03" "$broken/head/"
cp tests/data/bad-inputs/unescaped-quote.pt.trace.json "$broken/head/run-02/z.pt.trace.json"
cp tests/data/bad-inputs/truncated-mid-string.pt.trace.json "$broken/head/run-03/a.pt.trace.json"
cp tests/data/bad-inputs/control-char.pt.trace.json "$broken/head/run-01/zz.pt.trace.json"
run_all broken compare "$broken/base" "$broken/head" --no-git
if ! grep -q "run-01/zz.pt.trace.json" "$work/1/broken/stderr"; then
  echo "threads_identical: the broken side's error does not name the first broken trace in path order:" >&2
  cat "$work/1/broken/stderr" >&2
  failures=$((failures + 1))
fi
# The distinct-op limit crossed late in a side of many traces (the corpus: its fourth and last traces
# cross 200 and 400 op names): the same file named.
for limit in 200 400; do
  for threads in 1 4; do
    set +e
    NEURON_GATE_MAX_OPS=$limit "$binary" inspect "$co" --threads "$threads" > /dev/null 2> "$work/$threads/max-ops-$limit.stderr"
    set -e
  done
done

if ! diff -r "$work/1" "$work/4" > "$work/diff-4.txt"; then
  echo "threads_identical: --threads 1 and --threads 4 differ:" >&2
  head -50 "$work/diff-4.txt" >&2
  failures=$((failures + 1))
fi
# NEURON_GATE_THREADS sets the count when --threads is not given.
mkdir -p "$work/env3"
(cd "$work/env3" && NEURON_GATE_THREADS=3 "$binary" compare "$root/$ex/A" "$root/$ex/Areg" --no-git --format terminal \
  --markdown r.md --json r.json --html r.html --junit r.xml --annotations r.annotations > stdout 2> stderr; echo $? > exit) || true
if ! diff -r "$work/1/A-vs-Areg" "$work/env3" > /dev/null; then
  echo "threads_identical: --threads 1 and NEURON_GATE_THREADS=3 differ on A-vs-Areg" >&2
  failures=$((failures + 1))
fi
grep -q "H03-mtia-rank0.json.gz: more than 200 distinct op names" "$work/1/max-ops-200.stderr" &&
  grep -q "P2-dlrm-rank0.pt.trace.json: more than 400 distinct op names" "$work/1/max-ops-400.stderr" || {
  echo "threads_identical: NEURON_GATE_MAX_OPS did not stop the read at the expected trace:" >&2
  cat "$work/1"/max-ops-*.stderr >&2
  failures=$((failures + 1))
}
checked=$(find "$work/1" -type f | wc -l)
echo "threads_identical: $checked outputs compared between 1 and 4 threads, $failures failures"
[ "$failures" -eq 0 ]
