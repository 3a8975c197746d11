// Renders the Markdown report neuron-gate wrote for the hostile-names fixture and the one for the same
// profiles with clean names as GFM (markdown-it with tables and linkify, from npm, installed into NPM_DIR
// as tests/report/check_markdown.mjs does) and checks that the hostile report has exactly the clean
// report's structure:
//   - the same headings (level and text, code spans as one placeholder): no heading forged by "\r## ✅ PASS";
//   - the same tables with the same number of rows: no row hidden after an injected "<!--", none added;
//   - the same links and images (count and targets): none from "[link](url)", "![img](url)" or an autolink;
//   - the same raw HTML (only <details>, <summary>, the marker comment; digits aside): no <img onerror>, no comment;
//   - no @mention, no #123 or GH-123 issue reference and no :emoji: shortcode (beyond the clean report's)
//     in text outside code (GitHub links and renders them);
//   - the sticky marker "<!-- neuron-gate -->" exactly once, as the report's own last line.
//
// Usage: node check_hostile_markdown.mjs NPM_DIR HOSTILE.md CLEAN.md
// Prints one line per check and "N passed, N failed"; exits non-zero on any failure.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const markdownItVersion = "14.1.0";
let passed = 0;
let failed = 0;
const check = (ok, what, detail = "") => {
  if (ok) {
    passed += 1;
    console.log(`ok     - ${what}`);
  } else {
    failed += 1;
    console.log(`FAILED - ${what}${detail ? "\n  " + detail : ""}`);
  }
};
const finish = () => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
};

const [npmArg, hostileFile, cleanFile] = process.argv.slice(2);
if (!cleanFile) {
  console.error("usage: node check_hostile_markdown.mjs NPM_DIR HOSTILE.md CLEAN.md");
  check(false, "arguments");
  finish();
}
const npmDir = path.resolve(npmArg);

function loadMarkdownIt() {
  const require = createRequire(path.join(npmDir, "package.json"));
  const installed = (() => {
    try {
      return require("markdown-it/package.json").version;
    } catch {
      return null;
    }
  })();
  if (installed !== markdownItVersion) {
    mkdirSync(npmDir, { recursive: true });
    execFileSync("npm", ["install", "--prefix", npmDir, "--no-audit", "--no-fund", `markdown-it@${markdownItVersion}`],
                 { stdio: ["ignore", "pipe", "pipe"] });
  }
  return require("markdown-it");
}

// The structure of one report as GFM sees it.
function structure(md, text) {
  const tokens = md.parse(text, {});
  const s = { headings: [], tables: [], links: [], images: [], html: [], mentions: [], issues: [], shortcodes: [] };
  let rows = -1;
  const visitInline = (children) => {
    for (const t of children || []) {
      if (t.type === "link_open") s.links.push(t.attrGet("href"));
      if (t.type === "image") s.images.push(t.attrGet("src"));
      if (t.type === "html_inline") s.html.push(t.content);
      if (t.type === "text") {
        // GitHub links @name and #123 in text (not in code): preceded by a non-word character.
        for (const m of t.content.matchAll(/(^|[^\w`])@([A-Za-z0-9][A-Za-z0-9-]*)/g)) s.mentions.push(m[2]);
        for (const m of t.content.matchAll(/(^|[^\w&])#(\d+)/g)) s.issues.push(m[2]);
        // "GH-3" links issue 3 too, and ":white_check_mark:" renders as ✅ (issue 39 item 4).
        for (const m of t.content.matchAll(/(^|[^\w])gh-(\d+)/gi)) s.issues.push(`GH-${m[2]}`);
        for (const m of t.content.matchAll(/:([A-Za-z0-9_+-]+):/g)) s.shortcodes.push(m[1]);
      }
    }
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i];
    if (t.type === "heading_open") {
      // The headline names the deciding metric (issue 16): its code spans hold data, so they are compared
      // as one placeholder; everything GFM made of the heading outside code must be the same.
      const parts = (tokens[i + 1].children || []).map((c) => (c.type === "code_inline" ? "`data`" : c.content));
      s.headings.push(`${t.tag} ${parts.join("")}`);
    }
    if (t.type === "table_open") rows = 0;
    if (t.type === "tr_open" && rows >= 0) rows += 1;
    if (t.type === "table_close") {
      s.tables.push(rows);
      rows = -1;
    }
    // Counts in <summary> lines ("10 hypotheses") may differ: hostile data adds data-problem notes.
    if (t.type === "html_block") s.html.push(t.content.trim().replace(/[0-9]+/g, "#"));
    if (t.type === "inline") visitInline(t.children);
  }
  return s;
}

const MarkdownIt = loadMarkdownIt();
const md = new MarkdownIt({ html: true, linkify: true });
const hostileText = readFileSync(hostileFile, "utf8");
const cleanText = readFileSync(cleanFile, "utf8");
md.render(hostileText);  // throws on what it cannot render
const h = structure(md, hostileText);
const c = structure(md, cleanText);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (a, b) => `hostile: ${JSON.stringify(a).slice(0, 300)}\n  clean:   ${JSON.stringify(b).slice(0, 300)}`;

check(c.headings.length > 5 && c.tables.length > 3, `clean report: ${c.headings.length} headings, ${c.tables.length} tables`);
check(same(h.headings, c.headings), `headings: the same ${c.headings.length} as the clean report`, show(h.headings, c.headings));
check(same(h.tables, c.tables), `tables: the same ${c.tables.length} tables with the same rows (${c.tables.join(", ")})`,
      show(h.tables, c.tables));
check(same(h.links, c.links), `links: the same ${c.links.length} as the clean report`, show(h.links, c.links));
check(same(h.images, c.images) && h.images.length === 0, "images: none", show(h.images, c.images));
check(same(h.html, c.html), `raw HTML: the same ${c.html.length} pieces (details, summary, marker)`, show(h.html, c.html));
check(h.mentions.length === 0, "no @mention in text outside code", JSON.stringify(h.mentions));
check(h.issues.length === 0, "no #123 or GH-123 issue reference in text outside code", JSON.stringify(h.issues));
check(same(h.shortcodes, c.shortcodes), "no :emoji: shortcode in text outside code beyond the clean report's",
      show(h.shortcodes, c.shortcodes));
const markers = hostileText.split("\n").filter((line) => line.includes("<!-- neuron-gate -->"));
check(markers.length === 1 && hostileText.trimEnd().endsWith("<!-- neuron-gate -->"),
      "the sticky marker once, on the report's own last line", JSON.stringify(markers));
check(!/[\r\u2028\u2029\u0085]/.test(hostileText), "no CR, U+2028, U+2029 or U+0085 in the Markdown");
finish();
