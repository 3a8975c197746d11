#!/usr/bin/env bash
# Renders docs/images/pr-comment.png, the README's picture of a real pull-request comment: the top
# 860 x 475 px of reports/A-vs-Areg.md as GitHub shows it (GFM by markdown-it with github-markdown-css in
# headless Chromium: tests/report/check_browser.mjs --gfm, whose npm packages and Chromium the ctest
# report-browser-check installs into BUILD/report-checks/browser/npm). Run it after the report's top changes
# (ctest reports-current keeps the README's text block of the same lines current; the picture is by hand).
# The emoji need a colour emoji font: apt-get install fonts-noto-color-emoji.
#   bash scripts/pr-comment-picture.sh [BUILD]      (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
npm_dir="${1:-build}/report-checks/browser/npm"
[ -d "$npm_dir/node_modules/playwright-core" ] ||
  { echo "pr-comment-picture.sh: no $npm_dir: run ctest -R report-browser-check in ${1:-build} first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node tests/report/check_browser.mjs "$npm_dir" "$work" --gfm reports/A-vs-Areg.md > "$work/log" ||
  { cat "$work/log" >&2; exit 1; }
cat > "$work/shot.mjs" <<'JS'
import { createRequire } from "node:module";
const [npmDir, html, png] = process.argv.slice(2);
const { chromium } = createRequire(`${npmDir}/package.json`)("playwright-core");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 860, height: 900 } });
await page.goto(`file://${html}`);
await page.screenshot({ path: png, clip: { x: 0, y: 0, width: 860, height: 475 } });
await browser.close();
JS
node "$work/shot.mjs" "$(cd "$npm_dir" && pwd)" "$work/gfm/A-vs-Areg.gfm.html" docs/images/pr-comment.png
echo "wrote docs/images/pr-comment.png"
