// Opens neuron-gate HTML reports in headless Chromium (the one browser tests/report/check_browser.mjs
// launches, in pages of a fresh browser context, a fresh profile, each page reused from one report to the
// next) and checks what a reader gets:
//   - at 860 px (GitHub's comment column) the verdict line and the deciding metric are in the first 300 px
//     and nothing scrolls sideways (measured in the DOM, the page's window made 860 x 2000, scrollbars
//     shown);
//   - Chromium loads the page and takes a screenshot (a PNG at 1200 x 3000, kept in OUT_DIR for a person to
//     look at);
//   - the DOM Chromium built (dumped to OUT_DIR/NAME.dom.html) has the section headings in order, the
//     inline <svg> charts, and no <script> element; a report with an op named "<script>..." shows it as text;
//   - Chromium reported no console message, JS error or refused (failed) load while it loaded the report:
//     the page's Content-Security-Policy forbids scripts and fetches, so either would be reported here
//     (Chromium reports a CSP violation as a console error).
// The report's own page is never given a script: the measures are taken through the DevTools protocol,
// which the page's CSP does not govern.
//
// Used by check_browser.mjs (--html FILE.html...), which prints one line per check and "N passed, N failed".
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const sections = "Conditions held fixed|Measurements|Interpretations|Open hypotheses|Provenance";
const notComputed = "Not computed: the conditions above differ.";

// Run in the report's page at 860 px: where the verdict line and the summary table's first row end,
// whether the verdict line names the deciding metric, and whether the page scrolls sideways.
function measure() {
  const d = document;
  const bottom = (el) => (el ? Math.round(el.getBoundingClientRect().bottom) : -1);
  const h1 = d.querySelector("header h1");
  const row = d.querySelector("#summary tbody tr");
  const page = d.documentElement;
  const code = row && row.querySelector("td code");
  const named = h1 && code && h1.textContent.includes(code.textContent) ? 1 : 0;
  return "h1=" + bottom(h1) + " row=" + bottom(row) + " named=" + named +
    " scroll=" + page.scrollWidth + " client=" + page.clientWidth;
}

export async function checkHtml({ browser, outDir, files, isPng, screenshot, pagePool, each }) {
  mkdirSync(outDir, { recursive: true });
  const pages = pagePool(async () => {
    const context = await browser.newContext();
    return { context, page: await context.newPage() };
  });
  try {
    await each(files, (report, out) => checkReport(report, out, pages, { outDir, isPng, screenshot }),
               (report) => path.basename(report, ".html"));
  } finally {
    await pages.close();
  }
}

async function checkReport(report, out, pages, { outDir, isPng, screenshot }) {
  const name = path.basename(report, ".html");
  if (!existsSync(report) || statSync(report).size === 0) {
    out.check(false, `${name}: ${report} exists and is not empty`);
    return;
  }
  const url = pathToFileURL(path.resolve(report)).href;

  await pages.use(async (page, spoil) => {
    // The report as a reader opens it (a window of 1200 x 3000): every console message, uncaught JS error
    // and failed load while this report is open is kept.
    const messages = [];
    const onConsole = (m) => messages.push(`CONSOLE ${m.type()}: ${m.text()} (${m.location().url || "?"})`);
    const onError = (e) => messages.push(`Uncaught ${e.name || "error"}: ${e.message}`);
    const onFailed = (r) => messages.push(`failed load ${r.url()}: ${r.failure() ? r.failure().errorText : "?"}`);
    page.on("console", onConsole);
    page.on("pageerror", onError);
    page.on("requestfailed", onFailed);
    try {
      let loaded = true;
      try {
        await page.setViewportSize({ width: 1200, height: 3000 });
        await page.goto(url, { waitUntil: "load", timeout: 120000 });
      } catch (error) {
        loaded = false;
        spoil();
        out.note(String(error.message || error).slice(0, 2000));
      }

      const png = path.join(outDir, `${name}.png`);
      rmSync(png, { force: true });
      if (loaded) {
        try {
          await screenshot(page, png);
        } catch (error) {
          spoil();
          out.note(String(error.message || error).slice(0, 2000));
        }
      }
      out.check(isPng(png), isPng(png) ? `${name}: screenshot ${png}` : `${name}: screenshot`);

      const domFile = path.join(outDir, `${name}.dom.html`);
      let dom = "";
      if (loaded) {
        try {
          dom = await page.content();
        } catch (error) {
          spoil();
          out.note(String(error.message || error).slice(0, 2000));
        }
      }
      writeFileSync(domFile, dom);
      if (dom === "") {
        out.check(false, `${name}: DOM dump`);
        return;
      }
      out.check(true, `${name}: DOM dumped`);

      // Section headings, in the Markdown report's order.
      const headings = [...dom.matchAll(/<h2>([^<\n]*)<\/h2>/g)].map((m) => m[1]).join("|");
      out.check(headings === sections, headings === sections ? `${name}: sections in order (${headings})` : `${name}: sections in order, got '${headings}'`);
      out.check(/<header class="verdict [a-z-]*"><div class="inner">/.test(dom) && dom.includes('<h1><svg class="icon"'), `${name}: verdict header`);

      const charts = dom.split('<svg xmlns="http://www.w3.org/2000/svg" class="chart"').length - 1;
      const notComparable = dom.includes(notComputed);
      if (notComparable) {
        out.check(charts === 0, charts === 0 ? `${name}: NOT COMPARABLE, no charts` : `${name}: NOT COMPARABLE yet ${charts} charts`);
      } else {
        const ok = charts >= 2 && dom.includes("<h3>Change of the summary metrics</h3>") &&
          dom.includes('aria-label="Change of the summary metrics, head versus base, in percent, deciding first"');
        out.check(ok, ok ? `${name}: change chart and distributions are inline <svg> (${charts} charts)`
                         : `${name}: change chart and distributions are inline <svg> (found ${charts})`);
        out.check(dom.includes("<circle cx=") && dom.includes("<rect x="), `${name}: charts have bars and sample dots`);
      }

      // Layout at GitHub's 860 px comment width (issue 16 "Checked by"): the same page, its window made
      // 860 x 2000 (scrollbars shown, as in an 860 px iframe), is measured: the verdict line (h1) must end
      // within the first 300 px, and the deciding metric too: its row (the summary table's first) or, where
      // the headline is long (NO DECISION), its name in the verdict line; and no element may make the page
      // scroll sideways.
      let layout = "";
      try {
        await page.setViewportSize({ width: 860, height: 2000 });
        layout = String(await page.evaluate(measure));
      } catch (error) {
        spoil();
        out.note(String(error.message || error).slice(0, 2000));
      }
      const field = (key) => {
        const m = layout.match(new RegExp(`${key}=(-?[0-9]+)`));
        return m ? Number(m[1]) : null;
      };
      const h1 = field("h1");
      const row = field("row");
      const named = field("named");
      const scroll = field("scroll");
      const client = field("client");
      const h1Ok = h1 !== null && h1 > 0 && h1 <= 300;
      out.check(h1Ok, h1Ok ? `${name}: at 860 px the verdict line ends within the first 300 px (${layout})`
                           : `${name}: at 860 px the verdict line ends within the first 300 px (got '${layout}')`);
      if (notComparable) {
        out.check(true, `${name}: NOT COMPARABLE, no deciding metric row`);
      } else if (row !== null && row > 0 && row <= 300) {
        out.check(true, `${name}: at 860 px the deciding metric's row ends within the first 300 px (row=${row})`);
      } else if (named === 1 && h1Ok) {
        out.check(true, `${name}: at 860 px the deciding metric is named in the verdict line, within the first 300 px (row=${row})`);
      } else {
        out.check(false, `${name}: at 860 px the deciding metric's row ends within the first 300 px (got '${layout}')`);
      }
      const fits = scroll !== null && client !== null && scroll <= client;
      out.check(fits, fits ? `${name}: no horizontal overflow at 860 px (scrollWidth ${scroll} <= clientWidth ${client})`
                           : `${name}: no horizontal overflow at 860 px (got '${layout}')`);

      out.check(!/<script/i.test(dom), `${name}: no <script> element in the DOM`);
      if (readFileSync(report, "utf8").includes("alert(")) {
        // The golden report has an op named <script>alert("pwned")</script>: it must show as text.
        out.check(dom.includes("&lt;script&gt;alert"), `${name}: an op named <script> shows as text`);
      }

      if (messages.length > 0) out.note(messages.slice(0, 10).join("\n"));
      out.check(messages.length === 0, `${name}: no console messages, JS errors or refused loads`);
    } finally {
      page.off("console", onConsole);
      page.off("pageerror", onError);
      page.off("requestfailed", onFailed);
    }
  });
}
