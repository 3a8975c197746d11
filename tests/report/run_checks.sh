#!/usr/bin/env bash
# Runs the reader-side report checks on reports the built binary writes for the bundled examples
# (A vs Areg: a regression; A vs B: ops replaced by layer_norm):
#   markdown  tests/report/check_markdown.mjs (GFM via markdown-it from npm, installed into WORK_DIR/npm)
#   browser   tests/report/check_browser.mjs: ONE headless Chromium (Debian's, driven by playwright-core from
#             npm, installed into WORK_DIR/npm) for all of
#             check_html.mjs (the HTML in Chromium; screenshots and DOM dumps kept in WORK_DIR/html),
#             check_gfm_layout.mjs (the Markdown of every golden report in reports/, the 2,000-op golden
#             and the reports rendered here, as GitHub renders a comment: markdown-it +
#             github-markdown-css from npm, 860 px; verdict and deciding metric in the first 300 px, no
#             sideways overflow; screenshots in WORK_DIR/gfm) and check_mermaid.mjs (the Markdown's chart
#             drawn by Mermaid from npm; screenshot in WORK_DIR/mermaid)
# HTML comes from `neuron-gate compare --html` when the binary has that option; until then from the
# golden report tests/golden/report.html. The golden HTML is always checked too (its op named
# <script>... must stay text).
#
# Usage: run_checks.sh NEURON_GATE_BINARY SOURCE_DIR WORK_DIR [markdown|browser|all]
# Prints each check and a final "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

if [ $# -lt 3 ]; then
  echo "usage: run_checks.sh NEURON_GATE_BINARY SOURCE_DIR WORK_DIR [markdown|browser|all]" >&2
  echo "0 passed, 1 failed"
  exit 2
fi
binary="$1"
source_dir="$(cd "$2" && pwd)"
work="$3"
what="${4:-all}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
examples="$source_dir/examples/rmsnorm-4x512"
mkdir -p "$work/reports"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok     - $1"; }
fail() { failed=$((failed + 1)); echo "FAILED - $1"; }
# Adds the "N passed, N failed" of a sub-check's output to ours.
tally() {
  local last
  last="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)"
  if [ -z "$last" ]; then
    fail "$2 printed no result line"
    return
  fi
  passed=$((passed + $(echo "$last" | cut -d' ' -f1)))
  failed=$((failed + $(echo "$last" | cut -d' ' -f3)))
}

has_html=0
if "$binary" compare --help 2>/dev/null | grep -q -- '--html'; then
  has_html=1
fi

markdown_files=()
html_files=()
bases=(A A)
heads=(Areg B)
for i in "${!bases[@]}"; do
  base="${bases[$i]}"
  head="${heads[$i]}"
  name="$base-$head"
  args=(compare "$examples/$base" "$examples/$head" --no-git --quiet --markdown "$work/reports/$name.md")
  if [ "$has_html" -eq 1 ]; then
    args+=(--html "$work/reports/$name.html")
  fi
  "$binary" "${args[@]}" > "$work/reports/$name.out" 2>&1
  code=$?
  if [ "$code" -eq 0 ] || [ "$code" -eq 1 ]; then
    pass "neuron-gate compare $base $head wrote its reports (exit $code)"
    markdown_files+=("$work/reports/$name.md")
    if [ "$has_html" -eq 1 ]; then
      html_files+=("$work/reports/$name.html")
    fi
  else
    cat "$work/reports/$name.out"
    fail "neuron-gate compare $base $head (exit $code)"
  fi
done
if [ "$has_html" -eq 0 ]; then
  echo "note: $(basename "$binary") has no --html yet; checking the golden HTML report only"
fi
html_files+=("$source_dir/tests/golden/report.html")
# The golden report of each outcome (issue 16): pass, pass with a waiver, NOT COMPARABLE, NO DECISION, a
# traces-only regression; each must open on its verdict at 860 px.
for name in A-vs-A2 A-vs-Areg-waived A-vs-A_sched one-trace-A-vs-Areg traces-only-A-vs-A_slow; do
  html_files+=("$source_dir/reports/$name.html")
done

if [ "$what" = "markdown" ] || [ "$what" = "all" ]; then
  node "$here/check_markdown.mjs" "$work/npm" --require-chart "${markdown_files[@]}" > "$work/markdown.log" 2>&1
  cat "$work/markdown.log"
  tally "$work/markdown.log" "check_markdown.mjs"
fi
if [ "$what" = "browser" ] || [ "$what" = "all" ]; then
  # One headless Chromium for every page (check_browser.mjs; it installs Chromium when missing): the HTML
  # reports; the Markdown comment as GitHub renders it (GFM + github-markdown-css, 860 px) for every golden
  # Markdown report in reports/, the 2,000-op golden and the reports just rendered; the Markdown's chart
  # drawn by Mermaid.
  node "$here/check_browser.mjs" "$work/npm" "$work" \
    --html "${html_files[@]}" \
    --gfm "$source_dir"/reports/*.md "$source_dir/tests/golden/report-2000-ops.md" "$source_dir/tests/golden/report.md" \
      "${markdown_files[@]}" \
    --mermaid "${markdown_files[@]}" "$source_dir/tests/golden/report.md" \
    > "$work/browser.log" 2>&1
  cat "$work/browser.log"
  tally "$work/browser.log" "check_browser.mjs"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
