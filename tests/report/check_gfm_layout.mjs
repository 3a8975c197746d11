// The Markdown report measured as GitHub shows it in a pull-request comment (issue 16 "Checked by"):
// each FILE.md is rendered as GFM by markdown-it (html, linkify; tables and strikethrough are built in)
// and styled by github-markdown-css (GitHub's own Markdown stylesheet, light theme), both from npm
// (pinned, installed into NPM_DIR on first use), in an 860 px wide `.markdown-body` (16 px padding, as a
// comment body), and opened in headless Chromium. A ```mermaid fence becomes a block of the chart's
// height, as GitHub draws it (a diagram the column's width, not a code block). A script in the page
// measures, from the DOM:
//   - the verdict line (the first heading) ends within the first 300 px of the comment;
//   - the deciding metric ends within the first 300 px: the summary table's first row (the first table
//     before the first section heading); for NOT COMPARABLE (no summary table) the first differing
//     condition row (✗); where the headline names the metric (NO DECISION) that counts too;
//   - nothing overflows sideways, as posted (<details> closed) and with every <details> open: the page
//     does not scroll (scrollWidth <= clientWidth), no table or code block scrolls inside itself
//     (GitHub's CSS makes a wide table `display: block; overflow: auto`: its right columns are cut off
//     behind a scrollbar), and no element's box ends right of the column.
// Screenshots (PNG) of each comment as posted (860 x 1000) and with every <details> open (860 x up to
// 6000) and the measured values are kept in OUT_DIR.
//
// Usage: node check_gfm_layout.mjs NPM_DIR OUT_DIR FILE.md...
// Needs `chromium` on PATH (tests/report/check_html.sh installs it). Prints one line per check and
// "N passed, N failed"; exits non-zero on any failure.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

const packages = { "markdown-it": "14.1.0", "github-markdown-css": "5.9.0" };
const width = 860;  // GitHub's comment column
const top = 300;    // the first screenful above the fold of a comment

let passed = 0;
let failed = 0;
const check = (ok, what) => {
  ok ? (passed += 1) : (failed += 1);
  console.log(`${ok ? "ok    " : "FAILED"} - ${what}`);
};
const finish = () => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
};

const args = process.argv.slice(2);
if (args.length < 3) {
  console.error("usage: node check_gfm_layout.mjs NPM_DIR OUT_DIR FILE.md...");
  check(false, "arguments");
  finish();
}
const npmDir = path.resolve(args[0]);
const outDir = path.resolve(args[1]);
const files = args.slice(2);
mkdirSync(outDir, { recursive: true });

function install() {
  const require = createRequire(path.join(npmDir, "package.json"));
  const version = (name) => {
    try {
      return require(`${name}/package.json`).version;
    } catch {
      return null;
    }
  };
  const missing = Object.entries(packages).filter(([name, v]) => version(name) !== v);
  if (missing.length > 0) {
    mkdirSync(npmDir, { recursive: true });
    const specs = Object.entries(packages).map(([name, v]) => `${name}@${v}`);
    try {
      execFileSync("npm", ["install", "--prefix", npmDir, "--no-audit", "--no-fund", ...specs], { stdio: ["ignore", "pipe", "pipe"] });
      check(true, `installed ${specs.join(" ")} into ${npmDir}`);
    } catch (error) {
      console.log(String(error.stdout ?? ""), String(error.stderr ?? ""));
      check(false, `npm install ${specs.join(" ")}`);
      finish();
    }
  }
  // A fresh require after an install (Node caches failed lookups), and the stylesheet by its path.
  const fresh = createRequire(path.join(npmDir, "package.json"));
  const css = readFileSync(path.join(npmDir, "node_modules", "github-markdown-css", "github-markdown-light.css"), "utf8");
  return { MarkdownIt: fresh("markdown-it"), css };
}

function chromium() {
  try {
    return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

// The script the page runs: measures and writes the result as JSON into <html data-result>.
const measure = `
(() => {
  const body = document.getElementById("comment");
  const origin = body.getBoundingClientRect().top;
  const bottom = (el) => (el ? Math.round(el.getBoundingClientRect().bottom - origin) : -1);
  const heading = body.querySelector("h1, h2, h3");
  const firstSection = body.querySelector("h3");
  let table = body.querySelector("table");
  if (table && firstSection && (firstSection.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING)) table = null;
  const row = table ? table.querySelector("tbody tr") : null;
  const differing = [...body.querySelectorAll("tbody tr")].find((tr) => tr.lastElementChild && tr.lastElementChild.textContent.trim() === "✗");
  const code = row && row.querySelector("td code");
  const named = heading && code && heading.textContent.includes(code.textContent);
  const right = body.getBoundingClientRect().right;
  const overflow = () => {
    const page = document.documentElement;
    const shown = (el) => el.getClientRects().length > 0;
    const inner = [...body.querySelectorAll("table, pre")]
      .filter((el) => shown(el) && el.scrollWidth > el.clientWidth + 1)
      .map((el) => el.tagName.toLowerCase() + " " + el.scrollWidth + " > " + el.clientWidth + ": " + el.textContent.trim().slice(0, 60));
    const outside = [...body.querySelectorAll("*")]
      .filter((el) => shown(el) && el.getBoundingClientRect().right > right + 0.5 && !el.closest("table, pre"))
      .map((el) => el.tagName.toLowerCase() + " right " + Math.round(el.getBoundingClientRect().right) + ": " + el.textContent.trim().slice(0, 60));
    return { scroll: page.scrollWidth, client: page.clientWidth, inner, outside };
  };
  const result = {
    heading: heading ? heading.textContent.trim().slice(0, 120) : null,
    heading_bottom: bottom(heading),
    summary_row: row ? row.textContent.trim().replace(/\\s+/g, " ").slice(0, 120) : null,
    summary_row_bottom: bottom(row),
    differing_bottom: bottom(differing),
    named: !!named,
    comment_width: Math.round(body.getBoundingClientRect().width),
    closed: overflow(),
  };
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  result.open = overflow();
  // The widest table's column widths (px), to see which column to narrow.
  const widest = [...body.querySelectorAll("table")].sort((a, b) => b.scrollWidth - a.scrollWidth)[0];
  result.widest_table = widest ? { width: widest.scrollWidth, columns: [...widest.querySelectorAll("thead th")].map((th) => th.textContent.trim() + " " + Math.round(th.getBoundingClientRect().width)) } : null;
  result.open_height = Math.round(body.getBoundingClientRect().height);
  if (location.hash !== "#open") document.querySelectorAll("details").forEach((d) => { d.open = false; });
  document.documentElement.setAttribute("data-result", JSON.stringify(result));
})();`;

function page(md, text, css) {
  // GitHub draws a mermaid fence as a diagram the column's width: a block of the chart's height here.
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, i, options, env, self) => {
    const token = tokens[i];
    if (token.info.trim() !== "mermaid") return fence(tokens, i, options, env, self);
    const height = Number((token.content.match(/"height":\s*([0-9]+)/) || ["", "400"])[1]);
    return `<div class="mermaid-diagram" style="height:${height}px;border:1px solid #d1d9e0;margin-bottom:16px"></div>\n`;
  };
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><style>${css}</style>
<style>body{margin:0;background:#fff}.markdown-body{box-sizing:border-box;width:${width}px;padding:16px}</style></head>
<body><article class="markdown-body" id="comment">
${md.render(text)}
</article><script>${measure}</script></body></html>`;
}

const { MarkdownIt, css } = install();
const browser = chromium();
check(browser !== "", `chromium found${browser ? " (" + browser + ")" : " (tests/report/check_html.sh installs it)"}`);
if (!browser) finish();
const tmp = mkdtempSync(path.join(os.tmpdir(), "gfm-layout-"));
const run = (extra, url) => {
  const profile = mkdtempSync(path.join(tmp, "profile-"));
  return execFileSync("timeout", ["120", browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
    "--hide-scrollbars", `--user-data-dir=${profile}`, ...extra, url], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 });
};

for (const file of files) {
  const name = path.basename(path.dirname(file)) + "/" + path.basename(file);
  const stem = path.basename(file, ".md");
  if (!existsSync(file)) {
    check(false, `${name}: exists`);
    continue;
  }
  const md = new MarkdownIt({ html: true, linkify: true });
  const html = path.join(outDir, `${stem}.gfm.html`);
  writeFileSync(html, page(md, readFileSync(file, "utf8"), css));
  let result;
  try {
    const dom = run(["--dump-dom", "--virtual-time-budget=2000", `--window-size=${width},1000`], `file://${html}`);
    const attr = dom.match(/data-result="([^"]*)"/);
    result = attr ? JSON.parse(attr[1].replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")) : null;
  } catch (error) {
    console.log(String(error.stderr ?? error).slice(0, 2000));
  }
  if (!result) {
    check(false, `${name}: Chromium rendered the page and the script measured it`);
    continue;
  }
  writeFileSync(path.join(outDir, `${stem}.layout.json`), JSON.stringify(result, null, 2) + "\n");
  for (const [shot, extra] of [[`${stem}.png`, [`--window-size=${width},1000`]],
                               [`${stem}.open.png`, [`--window-size=${width},${Math.min(6000, Math.max(1000, result.open_height + 40))}`]]]) {
    const png = path.join(outDir, shot);
    rmSync(png, { force: true });
    try {
      run([`--screenshot=${png}`, ...extra], `file://${html}${shot.includes(".open.") ? "#open" : ""}`);
    } catch (error) {
      console.log(String(error.stderr ?? error).slice(0, 2000));
    }
    const ok = existsSync(png) && readFileSync(png).subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    check(ok, `${name}: screenshot ${png}`);
  }
  check(result.comment_width === width, `${name}: rendered in a ${result.comment_width} px comment body`);
  check(result.heading_bottom > 0 && result.heading_bottom <= top,
        `${name}: the verdict line ends ${result.heading_bottom} px into the comment (<= ${top}): ${result.heading}`);
  const notComparable = /NOT COMPARABLE/.test(result.heading || "");
  if (notComparable) {
    check(result.differing_bottom > 0 && result.differing_bottom <= top,
          `${name}: NOT COMPARABLE: the first differing condition's row ends ${result.differing_bottom} px into the comment (<= ${top})`);
  } else {
    const rowOk = result.summary_row_bottom > 0 && result.summary_row_bottom <= top;
    check(rowOk || (result.named && result.heading_bottom > 0 && result.heading_bottom <= top),
          `${name}: the deciding metric's row ends ${result.summary_row_bottom} px into the comment (<= ${top}${result.named ? ", and the verdict line names it" : ""}): ${result.summary_row}`);
  }
  for (const state of ["closed", "open"]) {
    const o = result[state];
    const label = state === "closed" ? "as posted (<details> closed)" : "with every <details> open";
    check(o.scroll <= o.client, `${name}: ${label}: the page does not scroll sideways (scrollWidth ${o.scroll} <= clientWidth ${o.client})`);
    check(o.inner.length === 0, `${name}: ${label}: no table or code block scrolls sideways${o.inner.length ? "\n  " + o.inner.slice(0, 6).join("\n  ") : ""}`);
    check(o.outside.length === 0, `${name}: ${label}: nothing ends right of the ${width} px column${o.outside.length ? "\n  " + o.outside.slice(0, 6).join("\n  ") : ""}`);
  }
}
rmSync(tmp, { recursive: true, force: true });
finish();
