#!/usr/bin/env bash
# The demo's comparison (scripts/demo.sh runs it after building; ctest `demo` runs it on the built binary):
# compares the bundled example profiles A (RMSNorm as separate ops) and Areg (a head that adds a useless
# pow+mean per call), writes the Markdown report (what the Action posts as the PR comment) and the HTML
# report to OUT_DIR, and prints the compact terminal summary (verdict line, context line, summary rows,
# the paths of the reports written) and the exit code, never the raw Markdown.
#
# Usage: scripts/demo-compare.sh [NEURON_GATE_BINARY] [OUT_DIR]   (defaults: build/src/neuron-gate, build/demo)
# Exits with neuron-gate's exit code (1: A -> Areg is a regression).
set -uo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${1:-$source_dir/build/src/neuron-gate}"
out_dir="${2:-$source_dir/build/demo}"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
cd "$source_dir"
"$binary" compare examples/rmsnorm-4x512/A examples/rmsnorm-4x512/Areg --format terminal \
  --markdown "$out_dir/A-vs-Areg.md" --html "$out_dir/A-vs-Areg.html"
status=$?
echo "(the .md is the pull-request comment; open the .html in a browser)"
echo "neuron-gate exit code: $status (0 pass, 1 regression, 2 usage or input error, 3 not comparable, 4 no decision under --strict)"
exit "$status"
