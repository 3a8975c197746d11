// Renders the ```mermaid chart of neuron-gate Markdown reports with Mermaid itself (the npm package, the
// library GitHub draws these blocks with; pinned below, installed into NPM_DIR by check_browser.mjs) in
// headless Chromium (the one browser check_browser.mjs launches), and checks that every block parses and
// renders to an SVG with one bar per x-axis label, every label drawn (Mermaid drops axis labels that do
// not fit). One page holds every report's first mermaid block, each rendered by mermaid.render(); its DOM
// (mermaid.dom.html) and a screenshot of the rendered charts (mermaid.png, 1000 x 2400) are kept in
// OUT_DIR for a person to look at. The test page loads Mermaid from the local file; nothing is fetched.
//
// Used by check_browser.mjs (--mermaid FILE.md...), which prints one line per check and "N passed, N failed".
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const mermaidPackages = { mermaid: "11.17.2" };

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const block = (file) => {
  const match = readFileSync(file, "utf8").match(/```mermaid\n([\s\S]*?)\n```/);
  return match ? match[1] : "";
};

// One page: each report's first mermaid block as text, rendered by mermaid.render() into the page.
function testPage(script, files) {
  const body = files.map((file, i) => `<h3>${escape(file)}</h3><pre id="source${i}">${escape(block(file))}</pre><div id="chart${i}"></div>`).join("\n");
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="${pathToFileURL(script).href}"></script></head>
<body style="font-family: sans-serif; width: 900px">${body}
<script>
mermaid.initialize({ startOnLoad: false });
(async () => {
  for (let i = 0; i < ${files.length}; i += 1) {
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
</script></body></html>`;
}

export async function checkMermaid({ browser, npmDir, outDir, files, tmp, screenshot, record, flush }) {
  mkdirSync(outDir, { recursive: true });
  const out = record();
  const pageFile = path.join(tmp, "mermaid.html");
  writeFileSync(pageFile, testPage(path.join(npmDir, "node_modules", "mermaid", "dist", "mermaid.min.js"), files));
  const context = await browser.newContext({ viewport: { width: 1000, height: 2400 } });
  let dom = "";
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(`Uncaught ${e.name || "error"}: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") errors.push(`CONSOLE error: ${m.text()}`); });
    try {
      await page.goto(pathToFileURL(pageFile).href, { waitUntil: "load", timeout: 120000 });
      await page.waitForSelector('body[data-done="yes"]', { state: "attached", timeout: 120000 });
    } catch (error) {
      out.note([String(error.message || error).slice(0, 2000), ...errors.slice(0, 10)].join("\n"));
    }
    dom = await page.content().catch(() => "");
    writeFileSync(path.join(outDir, "mermaid.dom.html"), dom);
    await screenshot(page, path.join(outDir, "mermaid.png")).catch((error) => out.note(error.message));
  } finally {
    await context.close();
  }
  if (!dom.includes('data-done="yes"')) {
    out.check(false, "Mermaid ran (no data-done in the DOM)");
    flush(out);
    return;
  }
  out.check(true, `Mermaid ran on ${files.length} block(s)`);

  files.forEach((file, i) => {
    const source = block(file);
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
    out.check(ok, `${file}: Mermaid renders the chart (${status}; ${bars} bars and ${drawn} drawn labels for ${labels} labels)`);
  });
  flush(out);
}
