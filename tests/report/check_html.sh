#!/usr/bin/env bash
# Opens neuron-gate HTML reports in headless Chromium (Debian's `chromium`, installed with apt-get when
# missing and running as root) and checks what a reader gets:
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
    if [ "$charts" -ge 2 ] && grep -q '<h3>Largest changes</h3>' "$dom" && grep -q 'aria-label="Largest changes, head versus base, in percent"' "$dom"; then
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
