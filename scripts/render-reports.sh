#!/usr/bin/env bash
# Renders the example reports in reports/ from the bundled example profiles, with the binary given
# (default build/src/neuron-gate): Markdown, HTML, JSON and JUnit XML for examples/rmsnorm-4x512 —
# A vs Areg (an end-to-end regression), A vs B (ops replaced by layer_norm), A vs A_sched (not comparable:
# the schedule differs), A vs A2 (a pass), A vs Areg with a waiver (a pass with a waiver), one trace of A
# vs one of Areg (NO DECISION) — and tests/data/profiles/traces-only A vs A_slow (a traces-only
# regression: rmsnorm_step's self CPU x3, made with tests/tools/inject_slowdown.py); and the ranking of B
# and C against A (`neuron-gate rank`, Markdown, HTML and JSON).
#
# Usage: scripts/render-reports.sh [NEURON_GATE_BINARY] [OUT_DIR]
#   OUT_DIR defaults to reports/ in the source tree; the test `reports-current` renders into a
#   temporary directory and compares byte for byte with reports/.
# Profiles are named by paths relative to the source tree and git commits are left out (--no-git),
# so the reports are the same on every machine.
set -euo pipefail

source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="$(realpath "${1:-$source_dir/build/src/neuron-gate}")"
out_dir="${2:-$source_dir/reports}"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
cd "$source_dir"

examples=examples/rmsnorm-4x512
traces=tests/data/profiles/traces-only
one_base=$examples/A/run-10/vm_4489.1796188477455.pt.trace.json
one_head=$examples/Areg/run-10/vm_4574.1796188479450.pt.trace.json
# name|base|head|extra options: one report per outcome of issue 16's golden list.
cases=(
  "A-vs-Areg|$examples/A|$examples/Areg|"
  "A-vs-B|$examples/A|$examples/B|"
  "A-vs-A_sched|$examples/A|$examples/A_sched|"
  "A-vs-A2|$examples/A|$examples/A2|"
  "A-vs-Areg-waived|$examples/A|$examples/Areg|--rules tests/data/rules/waive-latency.json --today 2026-01-15"
  "traces-only-A-vs-A_slow|$traces/A|$traces/A_slow|"
  "one-trace-A-vs-Areg|$one_base|$one_head|"
)
for entry in "${cases[@]}"; do
  IFS='|' read -r name base head extra <<< "$entry"
  read -r -a extra_args <<< "$extra"
  set +e
  "$binary" compare "$base" "$head" --no-git --quiet "${extra_args[@]}" \
    --markdown "$out_dir/$name.md" --html "$out_dir/$name.html" --json "$out_dir/$name.json" \
    --junit "$out_dir/$name.junit.xml"
  code=$?
  set -e
  # 0 pass, 1 regression, 3 not comparable are outcomes; 2 is an error.
  if [ "$code" -eq 2 ] || [ "$code" -gt 4 ]; then
    echo "render-reports: neuron-gate failed on $name (exit $code)" >&2
    exit 1
  fi
  echo "$name: exit $code -> $out_dir/$name.{md,html,json,junit.xml}"
done

# The alternatives B and C ranked against A by end-to-end latency (docs/user-guide.md "Ranking alternatives").
"$binary" rank "$examples/A" "$examples/B" "$examples/C" --quiet \
  --markdown "$out_dir/rank-A-B-C.md" --html "$out_dir/rank-A-B-C.html" --json "$out_dir/rank-A-B-C.json"
echo "rank-A-B-C: exit 0 -> $out_dir/rank-A-B-C.{md,html,json}"
