#!/usr/bin/env bash
# The README's first command prints a summary, not the report (issue 16 item 5): runs
# scripts/demo-compare.sh (what scripts/demo.sh runs after building) on the built binary and checks that
#   - it exits 1 (A -> Areg is a regression) and prints at most 20 lines: the verdict line first, the
#     summary rows, the paths of the reports and the exit code; no raw Markdown (no table rule, no
#     <details>, no heading, no sticky marker) and no file hashes;
#   - the Markdown and HTML reports were written to OUT_DIR, each path printed, the Markdown starting
#     with the same verdict, the HTML a report page.
# Usage: demo_check.sh NEURON_GATE_BINARY SOURCE_DIR OUT_DIR
set -uo pipefail
binary="$1"
source_dir="$2"
out_dir="$3"
rm -rf "$out_dir"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
passed=0
failed=0
check() { if eval "$2"; then passed=$((passed + 1)); echo "ok     - $1"; else failed=$((failed + 1)); echo "FAILED - $1"; fi; }

bash "$source_dir/scripts/demo-compare.sh" "$binary" "$out_dir" > "$out_dir/stdout" 2> "$out_dir/stderr"
code=$?
cat "$out_dir/stdout"
check "exit code 1 (a regression), got $code" '[ "$code" -eq 1 ]'
lines="$(wc -l < "$out_dir/stdout")"
check "at most 20 lines on stdout ($lines)" '[ "$lines" -le 20 ]'
check "first line is the verdict" 'head -n 1 "$out_dir/stdout" | grep -q "^❌ REGRESSION: \`latency\` +38.4%"'
check "no raw Markdown or hashes on stdout" '! grep -qE "^\|---|<details>|^#|<!-- neuron-gate|sha256" "$out_dir/stdout"'
check "the summary's deciding row" 'grep -qE "^  \`latency\` +\+38\.4%  11\.8 µs → 16\.3 µs  regressed$" "$out_dir/stdout"'
for kind in md html; do
  file="$out_dir/A-vs-Areg.$kind"
  check "$kind report written and its path printed ($file)" '[ -s "$file" ] && grep -qF "$file" "$out_dir/stdout"'
done
check "the Markdown report opens on the same verdict" 'head -n 1 "$out_dir/A-vs-Areg.md" | grep -q "^## ❌ REGRESSION: \`latency\` +38.4%"'
check "the HTML report is a report page" 'grep -q "<header class=\"verdict" "$out_dir/A-vs-Areg.html"'
check "the exit code is printed" 'grep -q "^neuron-gate exit code: 1 " "$out_dir/stdout"'
check "nothing on stderr" '[ ! -s "$out_dir/stderr" ]'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
