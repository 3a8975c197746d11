// Checks neuron-gate Markdown reports the way GitHub reads them: renders each as GFM with markdown-it
// (from the npm registry, installed into NPM_DIR on first use) and checks that
//   - the sections come in order (Conditions held fixed, Measurements, Interpretations, Open hypotheses,
//     Provenance) and the sticky marker is there;
//   - every table has consistent columns: the header, the separator and every row have the same number
//     of cells, counted in the source as GFM splits them (unescaped '|'), and each parsed as a table;
//     no line that looks like a table row is left outside a table;
//   - raw HTML is only <details>, <summary> and the marker comment (data never becomes markup);
//   - the chart is a ```mermaid fence inside Measurements holding an xychart-beta whose every series has
//     one (signed) number per x-axis label, with each label one double-quoted string and every value
//     within the axis;
//   - the report stays under GitHub's 65,536-character comment limit.
//
// Usage: node check_markdown.mjs NPM_DIR [--require-chart] FILE.md...
// Prints one line per check and "N passed, N failed"; exits non-zero on any failure.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const markdownItVersion = "14.1.0";

let passed = 0;
let failed = 0;
const pass = (what) => { passed += 1; console.log(`ok     - ${what}`); };
const fail = (what) => { failed += 1; console.log(`FAILED - ${what}`); };
const check = (ok, what) => (ok ? pass(what) : fail(what));
const finish = () => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
};

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error("usage: node check_markdown.mjs NPM_DIR [--require-chart] FILE.md...");
  fail("arguments");
  finish();
}
const npmDir = path.resolve(args[0]);
const requireChart = args.includes("--require-chart");
const files = args.slice(1).filter((a) => a !== "--require-chart");

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
    try {
      execFileSync("npm", ["install", "--prefix", npmDir, "--no-audit", "--no-fund", `markdown-it@${markdownItVersion}`],
                   { stdio: ["ignore", "pipe", "pipe"] });
      pass(`installed markdown-it@${markdownItVersion} into ${npmDir}`);
    } catch (error) {
      console.log(String(error.stdout ?? ""), String(error.stderr ?? ""));
      fail(`npm install markdown-it@${markdownItVersion}`);
      finish();
    }
  }
  return require("markdown-it");
}

// Cells of a GFM table line: split on '|' not escaped by a backslash, outer pipes dropped.
function cells(line) {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  const out = [];
  let current = "";
  for (let i = 0; i < s.length; i += 1) {
    if (s[i] === "\\" && s[i + 1] === "|") {
      current += "\\|";
      i += 1;
    } else if (s[i] === "|") {
      out.push(current.trim());
      current = "";
    } else {
      current += s[i];
    }
  }
  out.push(current.trim());
  return out;
}

function inlineText(tokens, i) {
  return tokens[i + 1] && tokens[i + 1].type === "inline" ? tokens[i + 1].content : "";
}

function checkTables(name, tokens, lines) {
  const covered = new Set();
  let tables = 0;
  let problems = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i];
    if (t.type === "fence" || t.type === "code_block") {
      for (let l = t.map[0]; l < t.map[1]; l += 1) covered.add(l);
    }
    if (t.type !== "table_open") continue;
    tables += 1;
    const [start, end] = t.map;
    for (let l = start; l < end; l += 1) covered.add(l);
    const header = cells(lines[start]);
    const separator = cells(lines[start + 1]);
    if (separator.length !== header.length) {
      problems.push(`line ${start + 2}: separator has ${separator.length} cells, header ${header.length}`);
    }
    if (!separator.every((c) => /^:?-+:?$/.test(c))) {
      problems.push(`line ${start + 2}: separator cells are not ---, :--, --: or :-:`);
    }
    for (let l = start + 2; l < end; l += 1) {
      if (lines[l].trim() === "") continue;
      const n = cells(lines[l]).length;
      if (n !== header.length) {
        problems.push(`line ${l + 1}: ${n} cells, header has ${header.length}: ${lines[l].slice(0, 100)}`);
      }
    }
    // markdown-it's own view: the header cells it parsed.
    let th = 0;
    for (let j = i; tokens[j].type !== "thead_close"; j += 1) th += tokens[j].type === "th_open" ? 1 : 0;
    if (th !== header.length) problems.push(`line ${start + 1}: markdown-it parsed ${th} header cells, source has ${header.length}`);
  }
  lines.forEach((line, l) => {
    if (/^\s*\|.*\|\s*$/.test(line) && !covered.has(l)) {
      problems.push(`line ${l + 1}: looks like a table row but is not in a table: ${line.slice(0, 100)}`);
    }
  });
  check(tables > 0, `${name}: has tables (${tables})`);
  check(problems.length === 0, `${name}: every table has consistent columns${problems.length ? "\n  " + problems.slice(0, 10).join("\n  ") : ""}`);
}

function checkSections(name, tokens, text) {
  const headings = [];
  for (let i = 0; i < tokens.length; i += 1) {
    if (tokens[i].type === "heading_open") headings.push({ level: tokens[i].tag, text: inlineText(tokens, i), line: tokens[i].map[0] });
  }
  const wanted = ["Conditions held fixed", "Measurements", "Interpretations", "Open hypotheses", "Provenance"];
  const h3 = headings.filter((h) => h.level === "h3").map((h) => h.text);
  check(JSON.stringify(h3) === JSON.stringify(wanted), `${name}: sections in order (${h3.join(", ")})`);
  check(headings.length > 0 && headings[0].level === "h2" && headings[0].line === 0, `${name}: first line is the verdict heading`);
  check(text.includes("<!-- neuron-gate -->"), `${name}: has the sticky marker`);
  check([...text].length < 65536, `${name}: ${[...text].length} characters, under GitHub's 65,536 limit`);
  return headings;
}

function checkRawHtml(name, tokens) {
  const bad = [];
  const visit = (list) => {
    for (const t of list) {
      if (t.type === "html_block" || t.type === "html_inline") {
        const rest = t.content.replace(/<\/?(details|summary)>/g, "").replace(/<!-- neuron-gate -->/g, "");
        if (/<[a-zA-Z/!?]/.test(rest)) bad.push(t.content.trim().slice(0, 100));
      }
      if (t.children) visit(t.children);
    }
  };
  visit(tokens);
  check(bad.length === 0, `${name}: raw HTML only <details>, <summary> and the marker${bad.length ? "\n  " + bad.slice(0, 5).join("\n  ") : ""}`);
}

function checkChart(name, tokens, headings) {
  const fences = tokens.filter((t) => t.type === "fence");
  const charts = fences.filter((t) => t.info.trim() === "mermaid");
  const xycharts = fences.filter((t) => t.content.includes("xychart-beta"));
  if (charts.length === 0 && !requireChart) {
    check(xycharts.length === 0, `${name}: no chart (none required), and no xychart outside a mermaid fence`);
    return;
  }
  check(charts.length === 1, `${name}: one \`\`\`mermaid fence (${charts.length})`);
  check(xycharts.every((t) => t.info.trim() === "mermaid"), `${name}: the xychart is in a mermaid fence`);
  if (charts.length === 0) return;
  const chart = charts[0];
  const line = chart.map[0];
  const measurements = headings.find((h) => h.text === "Measurements");
  const interpretations = headings.find((h) => h.text === "Interpretations");
  check(measurements && interpretations && measurements.line < line && line < interpretations.line,
        `${name}: the chart is inside Measurements`);
  const body = chart.content.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("%%"));
  check(/^xychart-beta( horizontal)?$/.test(body[0]), `${name}: the block is an xychart-beta`);
  const axis = body.find((l) => l.startsWith("x-axis "));
  const problems = [];
  const labels = [];
  if (!axis || !/^x-axis \[\s*"[^"]*"(\s*,\s*"[^"]*")*\s*\]$/.test(axis)) {
    problems.push(`x-axis is not a list of double-quoted labels: ${axis}`);
  } else {
    for (const m of axis.matchAll(/"([^"]*)"/g)) labels.push(m[1]);
  }
  if (new Set(labels).size !== labels.length) problems.push("x-axis labels repeat");
  for (const label of labels) {
    if (/[[\]{}<>`#;\\]/.test(label) || label.trim() === "") problems.push(`label not sanitised: ${label}`);
  }
  const y = body.find((l) => l.startsWith("y-axis "));
  // Signed % change around 0 (issue 16 item 3): the axis may start below 0.
  const ym = y && y.match(/^y-axis "[^"]*" (-?[0-9.]+) --> (-?[0-9.]+)$/);
  if (!ym) problems.push(`y-axis is not 'y-axis "title" MIN --> MAX': ${y}`);
  const series = body.filter((l) => /^(bar|line) /.test(l));
  if (series.length === 0) problems.push("no bar or line series");
  for (const s of series) {
    const m = s.match(/^(bar|line) \[(.*)\]$/);
    const values = m ? m[2].split(",").map((v) => v.trim()) : [];
    if (!m || !values.every((v) => /^-?[0-9]+(\.[0-9]+)?$/.test(v))) {
      problems.push(`series is not a list of numbers: ${s}`);
    } else if (values.length !== labels.length) {
      problems.push(`series has ${values.length} values for ${labels.length} labels: ${s}`);
    } else if (ym && values.some((v) => Number(v) > Number(ym[2]))) {
      problems.push(`a value is above the y-axis maximum ${ym[2]}: ${s}`);
    } else if (ym && values.some((v) => Number(v) < Number(ym[1]))) {
      problems.push(`a value is below the y-axis minimum ${ym[1]}: ${s}`);
    }
  }
  const known = /^(xychart-beta( horizontal)?$|title "[^"]*"|x-axis |y-axis |bar |line )/;
  for (const l of body) if (!known.test(l)) problems.push(`unexpected line: ${l}`);
  check(problems.length === 0, `${name}: chart has ${labels.length} labels and ${series.length} series that agree${problems.length ? "\n  " + problems.join("\n  ") : ""}`);
}

const MarkdownIt = loadMarkdownIt();
const md = new MarkdownIt({ html: true, linkify: true });
for (const file of files) {
  const name = path.basename(path.dirname(file)) + "/" + path.basename(file);
  if (!existsSync(file)) {
    fail(`${name}: exists`);
    continue;
  }
  const text = readFileSync(file, "utf8");
  const tokens = md.parse(text, {});
  md.render(text);  // throws on what it cannot render
  const lines = text.split("\n");
  const headings = checkSections(name, tokens, text);
  checkTables(name, tokens, lines);
  checkRawHtml(name, tokens);
  checkChart(name, tokens, headings);
}
finish();
