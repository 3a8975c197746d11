#!/usr/bin/env bash
# Renders the ```mermaid chart of neuron-gate Markdown reports with Mermaid itself (the npm package, the
# library GitHub draws these blocks with; installed into NPM_DIR on first use) in headless Chromium, and
# checks that every block parses and renders to an SVG with one bar per x-axis label. A screenshot of the
# rendered charts is kept in OUT_DIR for a person to look at. The test page loads Mermaid from the local
# file; nothing is fetched.
#
# Usage: check_mermaid.sh NPM_DIR OUT_DIR REPORT.md...
# Prints one line per check and "N passed, N failed"; exits non-zero on any failure (never skips).
set -uo pipefail

mermaid_version="11.17.2"
if [ $# -lt 3 ]; then
  echo "usage: check_mermaid.sh NPM_DIR OUT_DIR REPORT.md..." >&2
  echo "0 passed, 1 failed"
  exit 2
fi
npm_dir="$(mkdir -p "$1" && cd "$1" && pwd)"
out_dir="$(mkdir -p "$2" && cd "$2" && pwd)"
shift 2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok     - $1"; }
fail() { failed=$((failed + 1)); echo "FAILED - $1"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

browser="$(command -v chromium || true)"
if [ -z "$browser" ]; then
  fail "chromium is required (Debian: apt-get install chromium; check_html.sh installs it as root)"
  finish
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  fail "npm and node are required to install mermaid"
  finish
fi
installed="$(node -p "require('$npm_dir/node_modules/mermaid/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "$mermaid_version" ]; then
  if npm install --prefix "$npm_dir" --no-audit --no-fund "mermaid@$mermaid_version" > "$tmp/npm.log" 2>&1; then
    pass "installed mermaid@$mermaid_version into $npm_dir"
  else
    tail -n 20 "$tmp/npm.log"
    fail "npm install mermaid@$mermaid_version"
    finish
  fi
fi

# One page: each report's first mermaid block as text, rendered by mermaid.render() into the page.
page="$tmp/mermaid.html"
node - "$npm_dir/node_modules/mermaid/dist/mermaid.min.js" "$page" "$@" <<'EOF'
const fs = require("fs");
const [script, page, ...files] = process.argv.slice(2);
const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const blocks = files.map((file) => {
  const match = fs.readFileSync(file, "utf8").match(/```mermaid\n([\s\S]*?)\n```/);
  return { file, code: match ? match[1] : "" };
});
const body = blocks.map((b, i) => `<h3>${escape(b.file)}</h3><pre id="source${i}">${escape(b.code)}</pre><div id="chart${i}"></div>`).join("\n");
fs.writeFileSync(page, `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="file://${script}"></script></head>
<body style="font-family: sans-serif; width: 900px">${body}
<script>
mermaid.initialize({ startOnLoad: false });
(async () => {
  for (let i = 0; i < ${blocks.length}; i += 1) {
    const out = document.getElementById("chart" + i);
    try {
      const result = await mermaid.render("rendered" + i, document.getElementById("source" + i).textContent);
      out.innerHTML = result.svg;
      out.setAttribute("data-status", "ok");
    } catch (error) {
      out.setAttribute("data-status", "error: " + String(error && error.message ? error.message : error));
    }
  }
  document.body.setAttribute("data-done", "yes");
})();
</script></body></html>`);
EOF

run_chromium() {
  local profile
  profile="$(mktemp -d "$tmp/profile.XXXXXX")"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
    --allow-file-access-from-files --virtual-time-budget=20000 --user-data-dir="$profile" "$@" 2> "$tmp/chromium.log"
}
run_chromium --dump-dom "file://$page" > "$out_dir/mermaid.dom.html"
run_chromium --screenshot="$out_dir/mermaid.png" --window-size=1000,2400 "file://$page" > /dev/null
if grep -q 'data-done="yes"' "$out_dir/mermaid.dom.html"; then
  pass "Mermaid ran on $# block(s)"
else
  tail -n 20 "$tmp/chromium.log"
  fail "Mermaid ran (no data-done in the DOM)"
  finish
fi

node - "$out_dir/mermaid.dom.html" "$@" > "$tmp/results.log" <<'EOF'
const fs = require("fs");
const [domFile, ...files] = process.argv.slice(2);
const dom = fs.readFileSync(domFile, "utf8");
let passed = 0;
let failed = 0;
files.forEach((file, i) => {
  const source = (fs.readFileSync(file, "utf8").match(/```mermaid\n([\s\S]*?)\n```/) || ["", ""])[1];
  const labels = ((source.match(/x-axis \[(.*)\]/) || ["", ""])[1].match(/"[^"]*"/g) || []).length;
  const start = dom.indexOf(`id="chart${i}"`);
  const end = i + 1 < files.length ? dom.indexOf(`id="chart${i + 1}"`) : dom.length;
  const part = start < 0 ? "" : dom.slice(start, end);
  const status = (part.match(/data-status="([^"]*)"/) || ["", "missing"])[1];
  const bars = (part.match(/<g class="bar-plot-0"[\s\S]*?<\/g>/) || [""])[0].split("<rect").length - 1;
  // Mermaid drops axis labels that do not fit: every label must be drawn as text.
  const axisStart = part.indexOf('<g class="left-axis">');
  const axis = axisStart < 0 ? "" : part.slice(axisStart, part.indexOf('<g class="top-axis"', axisStart));
  const drawn = axis.split("<text").length - 1;
  const ok = status === "ok" && part.includes("<svg") && bars === labels && labels > 0 && drawn === labels;
  console.log(`${ok ? "ok    " : "FAILED"} - ${file}: Mermaid renders the chart (${status}; ${bars} bars and ${drawn} drawn labels for ${labels} labels)`);
  ok ? (passed += 1) : (failed += 1);
});
console.log(`${passed} passed, ${failed} failed`);
EOF
grep -v ' passed, ' "$tmp/results.log"
last="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/results.log" | tail -n 1)"
if [ -z "$last" ]; then
  fail "reading the rendered charts"
else
  passed=$((passed + $(echo "$last" | cut -d' ' -f1)))
  failed=$((failed + $(echo "$last" | cut -d' ' -f3)))
fi
finish
