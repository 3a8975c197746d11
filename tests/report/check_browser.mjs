// The reader-side checks that need a browser, all in ONE headless Chromium (Debian's `chromium`, installed
// with apt-get when missing and running as root), driven by playwright-core from npm with that Chromium as
// its executable (nothing is downloaded but npm packages). Launching Chromium costs seconds on a small
// machine, and these checks open some fifty pages (each used to be a launch of its own): one process, its
// pages in fresh browser contexts (fresh, empty profiles) and reused from one file to the next, keeps the
// test quick without changing what it checks:
//   --html FILE.html...  tests/report/check_html.mjs: the HTML report as a reader's browser shows it (screenshot,
//                        DOM, layout at 860 px, no script, nothing refused under its Content-Security-Policy);
//                        screenshots and DOM dumps in OUT_DIR/html
//   --gfm FILE.md...     tests/report/check_gfm_layout.mjs: the Markdown as GitHub shows it in a comment
//                        (GFM, github-markdown-css, 860 px); screenshots and measures in OUT_DIR/gfm
//   --mermaid FILE.md... tests/report/check_mermaid.mjs: the Markdown's chart drawn by Mermaid; screenshot and
//                        DOM in OUT_DIR/mermaid
// The npm packages (pinned below) are installed into NPM_DIR on first use, the folder the other report
// checks install markdown-it into.
//
// Usage: node check_browser.mjs NPM_DIR OUT_DIR [--html FILE.html...] [--gfm FILE.md...] [--mermaid FILE.md...]
// Prints one line per check ("ok     - ..." or "FAILED - ...") and "N passed, N failed"; exits non-zero on
// any failure. Never skips: without Chromium (and no way to install it) the check fails.
// NEURON_GATE_BROWSER_JOBS pages are open at a time (default 1: with the 2 cores busy, as under `ctest -j 2`,
// a second page costs more CPU than it saves wall time); the output's order does not depend on it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { checkGfmLayout, gfmPackages } from "./check_gfm_layout.mjs";
import { checkHtml } from "./check_html.mjs";
import { checkMermaid, mermaidPackages } from "./check_mermaid.mjs";

const packages = { ...gfmPackages, ...mermaidPackages, "playwright-core": "1.65.1" };
// Debian's Chromium as the checks always ran it: no sandbox (root in CI), no GPU, no network services.
const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps"];

let passed = 0;
let failed = 0;
const print = (ok, what) => {
  ok ? (passed += 1) : (failed += 1);
  console.log(`${ok ? "ok    " : "FAILED"} - ${what}`);
};
const finish = async (browser) => {
  if (browser) await browser.close().catch(() => {});
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
};

// What one page's checks found, printed in the order of the files whatever order the pages finish in.
class Record {
  constructor() { this.lines = []; }
  check(ok, what) { this.lines.push({ ok: !!ok, what }); }
  note(text) { this.lines.push({ text: String(text) }); }
}
const flush = (record) => {
  for (const line of record.lines) {
    if ("text" in line) console.log(line.text);
    else print(line.ok, line.what);
  }
};
// Runs work(item, record) for each item, `jobs` at a time, and prints each item's Record in the items'
// order as soon as it and all before it are done. Items that write to the same names (key(item) equal) run
// one at a time.
async function each(items, jobs, work, key = (item) => item) {
  if (new Set(items.map(key)).size !== items.length) jobs = 1;
  const done = new Array(items.length);
  let next = 0;
  let printed = 0;
  const printReady = () => {
    while (printed < items.length && done[printed]) flush(done[printed++]);
  };
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      const record = new Record();
      try {
        await work(items[i], record);
      } catch (error) {
        record.note(String(error && error.stack ? error.stack : error).slice(0, 2000));
        record.check(false, `${items[i]}: checked without an error`);
      }
      done[i] = record;
      printReady();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
}

// Pages kept open and reused from one file to the next (a page opened in a fresh browser context costs a
// new renderer process, about a second here; a navigation in an open page a fraction of that). setup()
// returns { context, page }; use(fn) runs fn(page, spoil) on a free page (set up when none is free), and
// a page that fn spoilt (a failed load or capture) or that threw is closed instead of reused.
function pagePool(setup) {
  const free = [];
  const open = new Set();
  return {
    async use(fn) {
      let entry = free.pop();
      if (!entry) {
        entry = await setup();
        open.add(entry);
      }
      let spoilt = false;
      try {
        return await fn(entry.page, () => { spoilt = true; });
      } catch (error) {
        spoilt = true;
        throw error;
      } finally {
        if (spoilt) {
          open.delete(entry);
          await entry.context.close().catch(() => {});
        } else {
          free.push(entry);
        }
      }
    },
    async close() {
      for (const entry of open) await entry.context.close().catch(() => {});
      open.clear();
      free.length = 0;
    },
  };
}

// A PNG of what the page's window shows (the DevTools protocol's capture, encoded for speed, not size),
// taken once the fonts are loaded and two frames drawn (as Playwright's own screenshot waits); a capture
// Chromium refuses ("Unable to capture screenshot": no frame yet) is tried again after the next frames.
const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));
async function screenshot(page, file) {
  await page.evaluate(() => document.fonts.ready.then(() => true));
  const cdp = await page.context().newCDPSession(page);
  try {
    for (let attempt = 1; ; attempt += 1) {
      await page.evaluate(frames);
      try {
        const { data } = await cdp.send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true });
        writeFileSync(file, Buffer.from(data, "base64"));
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  } finally {
    await cdp.detach().catch(() => {});
  }
}
const isPng = (file) => existsSync(file) &&
  readFileSync(file).subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

const args = process.argv.slice(2);
const lists = { "--html": [], "--gfm": [], "--mermaid": [] };
let current = null;
for (const a of args.slice(2)) {
  if (a in lists) current = lists[a];
  else if (current) current.push(a);
  else current = undefined;
}
if (args.length < 3 || current === undefined) {
  console.error("usage: node check_browser.mjs NPM_DIR OUT_DIR [--html FILE.html...] [--gfm FILE.md...] [--mermaid FILE.md...]");
  print(false, "arguments");
  await finish();
}
const npmDir = path.resolve(args[0]);
const outDir = path.resolve(args[1]);
const jobs = Math.max(1, Number(process.env.NEURON_GATE_BROWSER_JOBS || 1) || 1);

function findChromium() {
  try {
    return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}
let executable = findChromium();
if (!executable && process.getuid && process.getuid() === 0 && findAptGet()) {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (...a) => execFileSync("apt-get", a, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 });
  let log = "";
  try {
    try {
      log += apt("install", "-y", "-q", "chromium");
    } catch (error) {
      log += String(error.stdout ?? "") + String(error.stderr ?? "");
      log += apt("update", "-q");
      log += apt("install", "-y", "-q", "chromium");
    }
    executable = findChromium();
    print(true, "installed chromium with apt-get");
  } catch (error) {
    log += String(error.stdout ?? "") + String(error.stderr ?? "");
    console.log(log.trim().split("\n").slice(-20).join("\n"));
  }
}
function findAptGet() {
  try {
    execFileSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
print(executable !== "", executable ? `chromium found (${executable})` : "chromium is required (Debian: apt-get install chromium, as root)");
if (!executable) await finish();

// The pinned npm packages, installed together into NPM_DIR where any is missing or of another version.
const version = (require, name) => {
  try {
    return require(`${name}/package.json`).version;
  } catch {
    return null;
  }
};
const missing = Object.entries(packages).filter(([name, v]) => version(createRequire(path.join(npmDir, "package.json")), name) !== v);
if (missing.length > 0) {
  mkdirSync(npmDir, { recursive: true });
  const specs = Object.entries(packages).map(([name, v]) => `${name}@${v}`);
  try {
    execFileSync("npm", ["install", "--prefix", npmDir, "--no-audit", "--no-fund", ...specs], { stdio: ["ignore", "pipe", "pipe"] });
    print(true, `installed ${specs.join(" ")} into ${npmDir}`);
  } catch (error) {
    console.log(String(error.stdout ?? ""), String(error.stderr ?? ""));
    print(false, `npm install ${specs.join(" ")}`);
    await finish();
  }
}
// A fresh require after an install (Node caches failed lookups).
const require = createRequire(path.join(npmDir, "package.json"));
const { chromium } = require("playwright-core");

let browser;
try {
  // playwright-core adds --hide-scrollbars to a headless launch; the HTML checks measure with the
  // scrollbars a reader sees, so the GFM check hides them per page instead (as it did with the flag).
  browser = await chromium.launch({ executablePath: executable, headless: true, args: chromiumArgs,
                                    ignoreDefaultArgs: ["--hide-scrollbars"], timeout: 120000 });
  print(true, `Chromium ${browser.version()} launched once for all pages (playwright-core ${version(require, "playwright-core")})`);
} catch (error) {
  console.log(String(error && error.message ? error.message : error).slice(0, 3000));
  print(false, `Chromium launched by playwright-core (${executable})`);
  await finish();
}

// A hung browser fails the check before ctest's timeout does (each load also times out after 120 s).
const tmp = mkdtempSync(path.join(os.tmpdir(), "check-browser-"));
setTimeout(() => {
  rmSync(tmp, { recursive: true, force: true });
  print(false, "the browser checks finished within 15 minutes");
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(1);
}, 15 * 60 * 1000).unref();
const context = { browser, npmDir, tmp, isPng, screenshot, pagePool, record: () => new Record(), flush,
                  each: (items, work, key) => each(items, jobs, work, key) };
try {
  if (lists["--html"].length > 0) {
    await checkHtml({ ...context, outDir: path.join(outDir, "html"), files: lists["--html"] });
  }
  if (lists["--gfm"].length > 0) {
    await checkGfmLayout({ ...context, outDir: path.join(outDir, "gfm"), files: lists["--gfm"] });
  }
  if (lists["--mermaid"].length > 0) {
    await checkMermaid({ ...context, outDir: path.join(outDir, "mermaid"), files: lists["--mermaid"] });
  }
} catch (error) {
  console.log(String(error && error.stack ? error.stack : error).slice(0, 3000));
  print(false, "the browser checks ran to the end");
}
rmSync(tmp, { recursive: true, force: true });
await finish(browser);
