// The Markdown report measured as GitHub shows it in a pull-request comment (issue 16 "Checked by"):
// each FILE.md is rendered as GFM by markdown-it (html, linkify; tables and strikethrough are built in)
// and styled by github-markdown-css (GitHub's own Markdown stylesheet, light theme), both from npm
// (pinned below, installed into NPM_DIR by check_browser.mjs), in an 860 px wide `.markdown-body` (16 px
// padding, as a comment body), and opened in headless Chromium (the one browser check_browser.mjs
// launches, in pages of a fresh browser context reused from one file to the next; a window of 860 x 1000
// with the scrollbars hidden, as a comment column has none of its own). A
// ```mermaid fence becomes a block of the chart's height, as GitHub draws it (a diagram the column's
// width, not a code block). A script in the page measures, from the DOM:
//   - the verdict line (the first heading) ends within the first 300 px of the comment;
//   - the deciding metric ends within the first 300 px: the summary table's first row (the first table
//     before the first section heading); for NOT COMPARABLE (no summary table) the first differing
//     condition row (✗); where the headline names the metric (NO DECISION) that counts too;
//   - nothing overflows sideways, as posted (<details> closed) and with every <details> open: the page
//     does not scroll (scrollWidth <= clientWidth), no table or code block scrolls inside itself
//     (GitHub's CSS makes a wide table `display: block; overflow: auto`: its right columns are cut off
//     behind a scrollbar), and no element's box ends right of the column.
// Screenshots (PNG) of each comment as posted (860 x 1000) and with every <details> open (860 x up to
// 6000, every <details> of the same page opened; FILE.gfm.html#open opens them too) and the measured
// values are kept in OUT_DIR.
//
// Used by check_browser.mjs (--gfm FILE.md...), which prints one line per check and "N passed, N failed".
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const gfmPackages = { "markdown-it": "14.1.0", "github-markdown-css": "5.9.0" };
const width = 860;  // GitHub's comment column
const top = 300;    // the first screenful above the fold of a comment

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

export async function checkGfmLayout({ browser, npmDir, outDir, files, isPng, screenshot, pagePool, each }) {
  mkdirSync(outDir, { recursive: true });
  const require = createRequire(path.join(npmDir, "package.json"));
  const MarkdownIt = require("markdown-it");
  const css = readFileSync(path.join(npmDir, "node_modules", "github-markdown-css", "github-markdown-light.css"), "utf8");
  // Pages with the scrollbars hidden (as --hide-scrollbars did), reused from one file to the next.
  const pages = pagePool(async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setScrollbarsHidden", { hidden: true });
    return { context, page };
  });
  try {
    await each(files, (file, out) => checkFile(file, out, pages, { MarkdownIt, css, outDir, isPng, screenshot }),
               (file) => path.basename(file, ".md"));
  } finally {
    await pages.close();
  }
}

async function checkFile(file, out, pages, { MarkdownIt, css, outDir, isPng, screenshot }) {
  const name = path.basename(path.dirname(file)) + "/" + path.basename(file);
  const stem = path.basename(file, ".md");
  if (!existsSync(file)) {
    out.check(false, `${name}: exists`);
    return;
  }
  const md = new MarkdownIt({ html: true, linkify: true });
  const html = path.join(outDir, `${stem}.gfm.html`);
  writeFileSync(html, page(md, readFileSync(file, "utf8"), css));
  let result;
  await pages.use(async (shown, spoil) => {
    try {
      await shown.setViewportSize({ width, height: 1000 });
      await shown.goto(pathToFileURL(html).href, { waitUntil: "load", timeout: 120000 });
      const attr = await shown.evaluate(() => document.documentElement.getAttribute("data-result"));
      result = attr ? JSON.parse(attr) : null;
    } catch (error) {
      spoil();
      out.note(String(error.message || error).slice(0, 2000));
    }
    if (!result) return;
    writeFileSync(path.join(outDir, `${stem}.layout.json`), JSON.stringify(result, null, 2) + "\n");
    // As posted (860 x 1000), then with every <details> open in a window of the opened page's height
    // (as the page itself leaves them when loaded with #open).
    for (const [shot, height] of [[`${stem}.png`, 1000],
                                  [`${stem}.open.png`, Math.min(6000, Math.max(1000, result.open_height + 40))]]) {
      const png = path.join(outDir, shot);
      rmSync(png, { force: true });
      try {
        if (shot.includes(".open.")) {
          await shown.evaluate(() => document.querySelectorAll("details").forEach((d) => { d.open = true; }));
          await shown.setViewportSize({ width, height });
        }
        await screenshot(shown, png);
      } catch (error) {
        spoil();
        out.note(String(error.message || error).slice(0, 2000));
      }
      out.check(isPng(png), `${name}: screenshot ${png}`);
    }
  });
  if (!result) {
    out.check(false, `${name}: Chromium rendered the page and the script measured it`);
    return;
  }
  out.check(result.comment_width === width, `${name}: rendered in a ${result.comment_width} px comment body`);
  out.check(result.heading_bottom > 0 && result.heading_bottom <= top,
            `${name}: the verdict line ends ${result.heading_bottom} px into the comment (<= ${top}): ${result.heading}`);
  const notComparable = /NOT COMPARABLE/.test(result.heading || "");
  if (notComparable) {
    out.check(result.differing_bottom > 0 && result.differing_bottom <= top,
              `${name}: NOT COMPARABLE: the first differing condition's row ends ${result.differing_bottom} px into the comment (<= ${top})`);
  } else {
    const rowOk = result.summary_row_bottom > 0 && result.summary_row_bottom <= top;
    out.check(rowOk || (result.named && result.heading_bottom > 0 && result.heading_bottom <= top),
              `${name}: the deciding metric's row ends ${result.summary_row_bottom} px into the comment (<= ${top}${result.named ? ", and the verdict line names it" : ""}): ${result.summary_row}`);
  }
  for (const state of ["closed", "open"]) {
    const o = result[state];
    const label = state === "closed" ? "as posted (<details> closed)" : "with every <details> open";
    out.check(o.scroll <= o.client, `${name}: ${label}: the page does not scroll sideways (scrollWidth ${o.scroll} <= clientWidth ${o.client})`);
    out.check(o.inner.length === 0, `${name}: ${label}: no table or code block scrolls sideways${o.inner.length ? "\n  " + o.inner.slice(0, 6).join("\n  ") : ""}`);
    out.check(o.outside.length === 0, `${name}: ${label}: nothing ends right of the ${width} px column${o.outside.length ? "\n  " + o.outside.slice(0, 6).join("\n  ") : ""}`);
  }
}
