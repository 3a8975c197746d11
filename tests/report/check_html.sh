#!/usr/bin/env bash
# Opens neuron-gate HTML reports in headless Chromium (Debian's `chromium`, installed with apt-get when
# missing and running as root) and checks what a reader gets:
#   - at 860 px (GitHub's comment column) the verdict line and the deciding metric are in the first 300 px
#     and nothing scrolls sideways (measured in the DOM through an iframe wrapper page);
#   - Chromium loads the page and takes a screenshot (a PNG, kept in OUT_DIR for a person to look at);
#   - the DOM Chromium built has the section headings in order, the inline <svg> charts, and no <script>
#     element; a report with an op named "<script>..." shows it as text;
#   - Chromium printed no console message, JS error or refused load (the page's Content-Security-Policy
#     forbids scripts and fetches, so either would be reported here).
#
# Usage: check_html.sh OUT_DIR REPORT.html...
# Prints one line per check and "N passed, N failed"; exits non-zero on any failure. Never skips: without
# Chromium (and no way to install it) the check fails.
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: check_html.sh OUT_DIR REPORT.html..." >&2
  echo "0 passed, 1 failed"
  exit 2
fi
out_dir="$1"
shift
mkdir -p "$out_dir"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok     - $1"; }
fail() { failed=$((failed + 1)); echo "FAILED - $1"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

browser="$(command -v chromium || true)"
if [ -z "$browser" ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    if apt-get install -y -q chromium > "$tmp/apt.log" 2>&1 ||
       { apt-get update -q >> "$tmp/apt.log" 2>&1 && apt-get install -y -q chromium >> "$tmp/apt.log" 2>&1; }; then
      browser="$(command -v chromium || true)"
      pass "installed chromium with apt-get"
    else
      tail -n 20 "$tmp/apt.log"
    fi
  fi
fi
if [ -z "$browser" ]; then
  fail "chromium is required (Debian: apt-get install chromium, as root)"
  finish
fi

# run_chromium LOG ARGS...: a fresh profile every time, no network services, no sandbox (root in CI).
run_chromium() {
  local log="$1"
  shift
  local profile
  profile="$(mktemp -d "$tmp/profile.XXXXXX")"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
    --enable-logging=stderr --v=0 --user-data-dir="$profile" "$@" 2> "$log"
}

for report in "$@"; do
  name="$(basename "$report" .html)"
  if [ ! -s "$report" ]; then
    fail "$name: $report exists and is not empty"
    continue
  fi
  url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"

  png="$out_dir/$name.png"
  rm -f "$png"
  run_chromium "$tmp/$name.shot.log" --screenshot="$png" --window-size=1200,3000 "$url" > /dev/null
  if [ -s "$png" ] && [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
    pass "$name: screenshot $png"
  else
    tail -n 20 "$tmp/$name.shot.log"
    fail "$name: screenshot"
  fi

  dom="$out_dir/$name.dom.html"
  if run_chromium "$tmp/$name.dom.log" --dump-dom --virtual-time-budget=2000 "$url" > "$dom" && [ -s "$dom" ]; then
    pass "$name: DOM dumped"
  else
    tail -n 20 "$tmp/$name.dom.log"
    fail "$name: DOM dump"
    continue
  fi

  # Section headings, in the Markdown report's order.
  headings="$(grep -o '<h2>[^<]*</h2>' "$dom" | sed 's/<[^>]*>//g' | paste -sd '|' -)"
  if [ "$headings" = "Conditions held fixed|Measurements|Interpretations|Open hypotheses|Provenance" ]; then
    pass "$name: sections in order ($headings)"
  else
    fail "$name: sections in order, got '$headings'"
  fi
  if grep -q '<header class="verdict [a-z-]*"><div class="inner">' "$dom" && grep -q '<h1><svg class="icon"' "$dom"; then
    pass "$name: verdict header"
  else
    fail "$name: verdict header"
  fi

  charts="$(grep -o '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' "$dom" | wc -l)"
  if grep -q 'Not computed: the conditions above differ.' "$dom"; then
    if [ "$charts" -eq 0 ]; then
      pass "$name: NOT COMPARABLE, no charts"
    else
      fail "$name: NOT COMPARABLE yet $charts charts"
    fi
  else
    if [ "$charts" -ge 2 ] && grep -q '<h3>Change of the summary metrics</h3>' "$dom" && grep -q 'aria-label="Change of the summary metrics, head versus base, in percent, deciding first"' "$dom"; then
      pass "$name: change chart and distributions are inline <svg> ($charts charts)"
    else
      fail "$name: change chart and distributions are inline <svg> (found $charts)"
    fi
    if grep -q '<circle cx=' "$dom" && grep -q '<rect x=' "$dom"; then
      pass "$name: charts have bars and sample dots"
    else
      fail "$name: charts have bars and sample dots"
    fi
  fi

  # Layout at GitHub's 860 px comment width (issue 16 "Checked by"): a wrapper page next to a copy of the
  # report loads it in an 860 px iframe (same origin with --allow-file-access-from-files; the report's own
  # CSP forbids scripts, the wrapper's does not) and writes what it measured into its <pre>: the verdict
  # line (h1) must end within the first 300 px, and the deciding metric too: its row (the summary table's
  # first) or, where the headline is long (NO DECISION), its name in the verdict line; and no element may
  # make the page scroll sideways.
  layout_dir="$tmp/layout-$name"
  mkdir -p "$layout_dir"
  cp "$report" "$layout_dir/report.html"
  cat > "$layout_dir/wrap.html" <<'WRAP'
<!DOCTYPE html><html><body style="margin:0"><pre id="out">pending</pre>
<iframe id="f" src="report.html" style="width:860px;height:2000px;border:0"></iframe>
<script>
document.getElementById("f").addEventListener("load", () => {
  const d = document.getElementById("f").contentDocument;
  const bottom = (el) => (el ? Math.round(el.getBoundingClientRect().bottom) : -1);
  const h1 = d.querySelector("header h1");
  const row = d.querySelector("#summary tbody tr");
  const page = d.documentElement;
  const code = row && row.querySelector("td code");
  const named = h1 && code && h1.textContent.includes(code.textContent) ? 1 : 0;
  document.getElementById("out").textContent = "h1=" + bottom(h1) + " row=" + bottom(row) + " named=" + named +
    " scroll=" + page.scrollWidth + " client=" + page.clientWidth;
});
</script></body></html>
WRAP
  layout="$(run_chromium "$tmp/$name.layout.log" --allow-file-access-from-files --dump-dom --virtual-time-budget=3000 \
    --window-size=900,2100 "file://$layout_dir/wrap.html" | grep -o 'h1=[-0-9]* row=[-0-9]* named=[01] scroll=[0-9]* client=[0-9]*')"
  h1_bottom="$(echo "$layout" | sed -n 's/.*h1=\([-0-9]*\).*/\1/p')"
  row_bottom="$(echo "$layout" | sed -n 's/.*row=\([-0-9]*\).*/\1/p')"
  named="$(echo "$layout" | sed -n 's/.*named=\([01]\).*/\1/p')"
  scroll="$(echo "$layout" | sed -n 's/.*scroll=\([0-9]*\).*/\1/p')"
  client="$(echo "$layout" | sed -n 's/.*client=\([0-9]*\).*/\1/p')"
  if [ -n "$h1_bottom" ] && [ "$h1_bottom" -gt 0 ] && [ "$h1_bottom" -le 300 ]; then
    pass "$name: at 860 px the verdict line ends within the first 300 px ($layout)"
  else
    fail "$name: at 860 px the verdict line ends within the first 300 px (got '$layout')"
  fi
  if grep -q 'Not computed: the conditions above differ.' "$dom"; then
    pass "$name: NOT COMPARABLE, no deciding metric row"
  elif [ -n "$row_bottom" ] && [ "$row_bottom" -gt 0 ] && [ "$row_bottom" -le 300 ]; then
    pass "$name: at 860 px the deciding metric's row ends within the first 300 px (row=$row_bottom)"
  elif [ "$named" = 1 ] && [ -n "$h1_bottom" ] && [ "$h1_bottom" -gt 0 ] && [ "$h1_bottom" -le 300 ]; then
    pass "$name: at 860 px the deciding metric is named in the verdict line, within the first 300 px (row=$row_bottom)"
  else
    fail "$name: at 860 px the deciding metric's row ends within the first 300 px (got '$layout')"
  fi
  if [ -n "$scroll" ] && [ -n "$client" ] && [ "$scroll" -le "$client" ]; then
    pass "$name: no horizontal overflow at 860 px (scrollWidth $scroll <= clientWidth $client)"
  else
    fail "$name: no horizontal overflow at 860 px (got '$layout')"
  fi

  if grep -qi '<script' "$dom"; then
    fail "$name: no <script> element in the DOM"
  else
    pass "$name: no <script> element in the DOM"
  fi
  if grep -q 'alert(' "$report"; then
    # The golden report has an op named <script>alert("pwned")</script>: it must show as text.
    if grep -q '&lt;script&gt;alert' "$dom"; then
      pass "$name: an op named <script> shows as text"
    else
      fail "$name: an op named <script> shows as text"
    fi
  fi

  logs="$(cat "$tmp/$name.shot.log" "$tmp/$name.dom.log" | grep -E 'CONSOLE|Uncaught|SyntaxError|ReferenceError|TypeError|Refused to|Content Security Policy|ERR_' || true)"
  if [ -z "$logs" ]; then
    pass "$name: no console messages, JS errors or refused loads"
  else
    echo "$logs" | head -n 10
    fail "$name: no console messages, JS errors or refused loads"
  fi
done
finish
