#include "report/html.hpp"

#include "report/chart.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "report/prose.hpp"
#include "report/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace neuron_gate {
namespace {

const char* const k_style = R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f8fa; color: #1f2328; font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI",
  Helvetica, Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 0 24px 48px; }
header.verdict { padding: 20px 24px; margin: 0 0 24px; color: #ffffff; }
header.verdict .inner { max-width: 1072px; margin: 0 auto; }
header.verdict h1 { margin: 0 0 4px; font-size: 22px; font-weight: 600; display: flex; align-items: center; gap: 10px; }
header.verdict h1 svg.icon { flex: none; }
header.verdict p { margin: 0; opacity: 0.92; }
header.verdict code { background: rgba(255, 255, 255, 0.18); color: #ffffff; }
header.pass { background: #1a7f37; }
header.regression { background: #cf222e; }
header.not-comparable { background: #9a6700; }
header.inconclusive, header.no-decision { background: #bc4c00; }
section { background: #ffffff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 24px 20px; margin: 0 0 20px; }
h2 { font-size: 18px; font-weight: 600; margin: 12px 0 12px; padding-bottom: 6px; border-bottom: 1px solid #d8dee4; }
h3 { font-size: 15px; font-weight: 600; margin: 20px 0 8px; }
.note { color: #656d76; }
p.note { margin: 4px 0 10px; }
code { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, monospace; font-size: 12.5px;
  background: #eff1f3; border-radius: 4px; padding: 1px 5px; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 5px 10px; vertical-align: top; }
th { background: #f6f8fa; text-align: left; font-weight: 600; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fbfcfd; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { max-width: 380px; }
tr.regressed td { background: #ffebe9; }
tr.improved td { background: #dafbe1; }
tr.differs td { background: #fff8c5; }
.badge { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 11.5px; font-weight: 600;
  line-height: 20px; color: #ffffff; white-space: nowrap; }
.badge.regressed { background: #cf222e; }
.badge.improved { background: #1a7f37; }
.badge.structural { background: #8250df; }
.badge.equivalent, .badge.inconclusive, .badge.insufficient { background: #6e7781; }
.ok { color: #1a7f37; font-weight: 600; }
.bad { color: #cf222e; font-weight: 600; }
.accepted { color: #9a6700; font-weight: 600; }
figure { margin: 12px 0 16px; }
figcaption { margin: 0 0 4px; }
figcaption .reason { color: #656d76; }
svg.chart { display: block; max-width: 100%; height: auto; }
details { margin: 8px 0; }
summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
ul { padding-left: 22px; margin: 4px 0; }
li { margin: 4px 0; }
footer { text-align: center; color: #656d76; font-size: 12px; padding: 0 0 24px; }
)css";

std::string esc(const std::string& text) {
  return escape_html(text);
}

std::string html_code(const std::string& text) {
  return "<code>" + esc(text) + "</code>";
}

std::string verdict_class(Verdict verdict) {
  std::string name = verdict_name(verdict);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::string badge(const MetricComparison& m) {
  return "<span class=\"badge " + verdict_class(m.verdict) + "\" title=\"" + esc(m.reason) + "\">" +
         verdict_name(m.verdict) + "</span>" +
         (m.waiver ? " <span title=\"" + esc(*m.waiver) + "\">(waived)</span>" : "");
}

// The adjusted p of the one-sided test in the direction the metric moved (as the Markdown report).
std::string adjusted_p(const MetricComparison& m) {
  const bool moved_better = m.ratio && ((m.better == Better::lower) == (*m.ratio < 1.0));
  return format_p(moved_better ? m.p_better_adjusted : m.p_worse_adjusted);
}

std::string calls(const MetricComparison& m) {
  if (!m.base_calls && !m.head_calls) {
    return "–";
  }
  return format_number(m.base_calls) + " → " + format_number(m.head_calls);
}

std::string row_class(const MetricComparison& m) {
  if (m.verdict == Verdict::regressed) {
    return " class=\"regressed\"";
  }
  if (m.verdict == Verdict::improved) {
    return " class=\"improved\"";
  }
  return "";
}

std::string metric_table(const std::vector<const MetricComparison*>& metrics, bool ops, std::size_t most) {
  std::string html =
      "<div class=\"table-wrap\"><table>\n<thead><tr><th>" + std::string(ops ? "op" : "metric") +
      "</th><th class=\"num\">base median</th><th class=\"num\">head median</th><th class=\"num\">change</th>"
      "<th class=\"num\">90% CI</th><th class=\"num\">adj. p</th>" +
      (ops ? "<th class=\"num\">calls / step</th>" : "") +
      "<th class=\"num\">n base / head</th><th>verdict</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < metrics.size() && i < most; ++i) {
    const MetricComparison& m = *metrics[i];
    html += "<tr" + row_class(m) + "><td class=\"name\">" + html_code(m.name) + "</td><td class=\"num\">" +
            esc(format_value(m.base_median, m.unit, m.resolution)) + "</td><td class=\"num\">" +
            esc(format_value(m.head_median, m.unit, m.resolution)) + "</td><td class=\"num\">" + signed_change_text(m) +
            "</td><td class=\"num\">" + format_change_interval(m.ratio_low, m.ratio_high) + "</td><td class=\"num\">" +
            adjusted_p(m) + "</td>" + (ops ? "<td class=\"num\">" + calls(m) + "</td>" : "") + "<td class=\"num\">" +
            std::to_string(m.base_samples.size()) + " / " + std::to_string(m.head_samples.size()) + "</td><td>" +
            badge(m) + "</td></tr>\n";
  }
  return html + "</tbody>\n</table></div>\n";
}

std::string conditions_html(const Report& report) {
  std::string html = "<section id=\"conditions\">\n<h2>Conditions held fixed</h2>\n";
  if (report.conditions.rows.empty()) {
    return html + "<p>No conditions could be read from the data.</p>\n</section>\n";
  }
  html +=
      "<div "
      "class=\"table-wrap\"><table>\n<thead><tr><th>condition</th><th>base</th><th>head</th><th></th></tr></thead>\n"
      "<tbody>\n";
  for (const ConditionRow& row : report.conditions.rows) {
    const std::string mark =
        row.matches ? (row.verified ? "<span class=\"ok\">✓</span>" : "<span class=\"accepted\">? not verified</span>")
        : row.accepted ? "<span class=\"accepted\">✗ accepted</span>"
                       : "<span class=\"bad\">✗ differs</span>";
    html += std::string("<tr") + (row.matches ? "" : " class=\"differs\"") + "><td>" + html_code(row.name) +
            "</td><td>" + esc(row.base) + "</td><td>" + esc(row.head) + "</td><td>" + mark +
            (row.note.empty() ? "" : " <span class=\"note\">" + esc(row.note) + "</span>") + "</td></tr>\n";
  }
  return html + "</tbody>\n</table></div>\n</section>\n";
}

std::string distributions(const Report& report) {
  std::vector<const MetricComparison*> shown;
  for (MetricClass c : {MetricClass::end_to_end, MetricClass::step_time}) {
    for (const MetricComparison* m : ranked_metrics(report, c)) {
      shown.push_back(m);
    }
  }
  std::vector<const MetricComparison*> changed;
  for (const MetricComparison& m : report.metrics) {
    const bool op = m.metric_class == MetricClass::device || m.metric_class == MetricClass::self_cpu;
    if (op && (m.verdict == Verdict::regressed || m.verdict == Verdict::improved || m.verdict == Verdict::structural)) {
      changed.push_back(&m);
    }
  }
  std::stable_sort(changed.begin(), changed.end(), [](const MetricComparison* a, const MetricComparison* b) {
    return absolute_change(*a) > absolute_change(*b);
  });
  const std::size_t ops_drawn = std::min<std::size_t>(changed.size(), 20);
  shown.insert(shown.end(), changed.begin(), changed.begin() + static_cast<std::ptrdiff_t>(ops_drawn));
  if (shown.empty()) {
    return "";
  }
  std::string html = "<h3>Distributions, base vs head</h3>\n<p class=\"note\">One dot per sample (a step, or an "
                     "end-to-end measurement); the box spans the quartiles, the bar marks the median. End-to-end "
                     "metrics and step time first, then " +
                     std::to_string(ops_drawn) + " of " + std::to_string(changed.size()) +
                     " ops that regressed, improved or changed structure, most changed first.</p>\n";
  for (const MetricComparison* m : shown) {
    const std::string svg = svg_distribution(*m);
    if (svg.empty()) {
      continue;
    }
    html += "<figure>\n<figcaption>" + html_code(m->name) + " · " +
            esc(metric_class_label(m->metric_class, ClassLabel::heading)) + " · " + badge(*m) +
            " <span class=\"reason\">" + prose_html(m->reason) + "</span></figcaption>\n" + svg + "</figure>\n";
  }
  return html;
}

std::string measurements_section(const Report& report) {
  std::string html = "<section id=\"measurements\">\n<h2>Measurements</h2>\n";
  if (conditions_differ(report)) {
    return html + "<p>Not computed: the conditions above differ.</p>\n</section>\n";
  }
  html += "<p class=\"note\">change: Hodges–Lehmann estimate of head / base (median of all pairwise ratios) as a "
          "signed %, with its distribution-free 90% CI, so it can differ from the ratio of the two medians; adj. p: "
          "one-sided Mann–Whitney U in the direction of the change, after the correction named in Provenance.</p>\n";
  if (const std::string note = paired_note(report); !note.empty()) {
    html += "<p class=\"note\">" + escape_html(note) + "</p>\n";
  }
  const auto e2e = ranked_metrics(report, MetricClass::end_to_end);
  if (!e2e.empty()) {
    html += "<h3>End-to-end</h3>\n" + metric_table(e2e, false, e2e.size());
  }
  const auto step = ranked_metrics(report, MetricClass::step_time);
  if (!step.empty()) {
    html += "<h3>Profiled step time</h3>\n" + metric_table(step, false, step.size());
  }
  std::vector<std::pair<std::string, std::vector<const MetricComparison*>>> full;
  for (MetricClass c : {MetricClass::device, MetricClass::self_cpu}) {
    auto ops = ranked_metrics(report, c);
    if (ops.empty()) {
      continue;
    }
    const std::size_t top = std::min<std::size_t>(10, ops.size());
    html += "<h3>Ops that changed most: " + metric_class_label(c, ClassLabel::heading) + " per step (top " +
            std::to_string(top) + " of " + std::to_string(ops.size()) + ")</h3>\n" + metric_table(ops, true, top);
    full.emplace_back(metric_class_label(c, ClassLabel::heading), std::move(ops));
  }
  const std::string chart = svg_change_chart(report);
  if (!chart.empty()) {
    html += "<h3>Change of the summary metrics</h3>\n<p class=\"note\">The metrics of the summary table, deciding "
            "first: Hodges–Lehmann ratio head / base as a signed % change around 0, coloured by verdict (red "
            "regressed, green improved, purple structural, grey otherwise); hover a bar "
            "for its numbers.</p>\n" +
            chart;
  }
  html += distributions(report);
  for (const auto& [label, ops] : full) {
    html += "<details>\n<summary>All " + std::to_string(ops.size()) + " " + esc(label) + " metrics</summary>\n" +
            metric_table(ops, true, ops.size()) + "</details>\n";
  }
  return html + "</section>\n";
}

std::string list_section(const char* id, const char* title, const std::vector<std::string>& lines, const char* none) {
  std::string html = std::string("<section id=\"") + id + "\">\n<h2>" + title + "</h2>\n";
  if (lines.empty()) {
    return html + "<p>" + none + "</p>\n</section>\n";
  }
  html += "<ul>\n";
  for (const std::string& line : lines) {
    html += "<li>" + prose_html(line) + "</li>\n";
  }
  return html + "</ul>\n</section>\n";
}

std::string provenance_html(const Report& report) {
  const Provenance& p = report.provenance;
  std::string html = "<section id=\"provenance\">\n<h2>Provenance</h2>\n<ul>\n";
  html += "<li>neuron-gate " + esc(p.tool_version) + "; base " + html_code(p.base_spec) + ", head " +
          html_code(p.head_spec) + "</li>\n";
  html += "<li>rules: " + esc(p.rules_source) + (p.rules_from.empty() ? "" : " from " + esc(p.rules_from)) +
          " (sha256 " + html_code(p.rules_sha256) + "); alpha " + format_number(report.rules.alpha) + ", " +
          esc(correction_name(report.rules.correction)) + ", floor " + format_number(report.rules.floor_us) +
          " µs per op per step; unit: " + esc(sample_unit_description(report.rules.unit)) + "</li>\n";
  for (const GitCommit& commit : p.commits) {
    html += "<li>" + esc(commit.side) + " git commit " + html_code(commit.commit) + " " + esc(commit.summary) +
            (commit.branch.empty() ? "" : ", branch " + html_code(commit.branch)) +
            (commit.object_database ? ", read from the object database" : "") +
            (commit.dirty ? " (work tree has uncommitted changes)" : "") +
            (commit.repository.empty() ? "" : ", repository " + html_code(commit.repository)) +
            (commit.manifest_commit.empty() ? "" : "; run manifest commit " + html_code(commit.manifest_commit)) +
            "</li>\n";
  }
  if (p.stored_baseline) {
    html += "<li>" + prose_html(stored_baseline_text(*p.stored_baseline)) + "</li>\n";
  }
  if (p.noise_check) {
    html += "<li>" + esc(noise_check_text(*p.noise_check)) + "</li>\n";
  }
  for (const SideFacts* facts : {&report.base_facts, &report.head_facts}) {
    html += std::string("<li>") + (facts == &report.base_facts ? "base" : "head") + ": " +
            esc(side_facts_text(*facts)) + "</li>\n";
  }
  for (const std::string& warning : p.warnings) {
    html += "<li>⚠️ " + html_spans(warning) + "</li>\n";
  }
  html += "</ul>\n";
  std::size_t read = 0, ignored = 0;
  for (const ProvenanceFile& file : p.files) {
    (file.sha256.empty() ? ignored : read) += 1;
  }
  html += "<details>\n<summary>" + std::to_string(read) + " files read, " + std::to_string(ignored) +
          " ignored</summary>\n<div class=\"table-wrap\"><table>\n<thead><tr><th>side</th><th>file</th><th>kind</th>"
          "<th class=\"num\">bytes</th><th>sha256</th></tr></thead>\n<tbody>\n";
  for (const ProvenanceFile& file : p.files) {
    html += "<tr><td>" + esc(file.side) + "</td><td>" + html_code(file.relative_path) + "</td><td>" + esc(file.kind) +
            (file.ignored_reason.empty() ? "" : ": " + esc(file.ignored_reason)) +
            (file.detail.empty() ? "" : " (" + esc(file.detail) + ")") + "</td><td class=\"num\">" +
            std::to_string(file.size_bytes) + "</td><td>" + (file.sha256.empty() ? "–" : html_code(file.sha256)) +
            "</td></tr>\n";
  }
  return html + "</tbody>\n</table></div>\n</details>\n</section>\n";
}

// The verdict line without its leading emoji: the page draws its own icon, so the header does not
// depend on an emoji font being installed.
std::string verdict_text(const std::string& line, Outcome outcome) {
  const std::size_t word = line.find(outcome_name(outcome));
  if (word == std::string::npos || word == 0) {
    return line;
  }
  const bool prefix_is_symbol = std::none_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(word),
                                             [](unsigned char c) { return std::isalnum(c) != 0; });
  return prefix_is_symbol ? line.substr(word) : line;
}

// A 22 px white icon for the header: a tick (pass), a cross (regression), a bar (not comparable) or
// an exclamation mark (inconclusive) in a circle.
std::string outcome_icon(Outcome outcome) {
  std::string mark;
  switch (outcome) {
  case Outcome::pass:
    mark = "<path d=\"M6.5 11.5l3 3 6-7\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2.2\" "
           "stroke-linecap=\"round\" stroke-linejoin=\"round\"/>";
    break;
  case Outcome::regression:
    mark = "<path d=\"M7.5 7.5l7 7M14.5 7.5l-7 7\" stroke=\"currentColor\" stroke-width=\"2.2\" "
           "stroke-linecap=\"round\"/>";
    break;
  case Outcome::not_comparable:
    mark = "<path d=\"M6.5 11h9\" stroke=\"currentColor\" stroke-width=\"2.4\" stroke-linecap=\"round\"/>";
    break;
  case Outcome::no_decision:
    mark = "<path d=\"M11 6.5v6\" stroke=\"currentColor\" stroke-width=\"2.4\" stroke-linecap=\"round\"/>"
           "<circle cx=\"11\" cy=\"15.5\" r=\"1.4\" fill=\"currentColor\"/>";
    break;
  }
  return "<svg class=\"icon\" xmlns=\"http://www.w3.org/2000/svg\" width=\"22\" height=\"22\" viewBox=\"0 0 22 22\" "
         "aria-hidden=\"true\"><circle cx=\"11\" cy=\"11\" r=\"10\" fill=\"none\" stroke=\"currentColor\" "
         "stroke-width=\"1.6\"/>" +
         mark + "</svg>";
}

// The summary table under the header (issue 16 item 6): the same rows as the Markdown comment's.
std::string summary_section(const Report& report) {
  if (report.summary_lines.empty()) {
    return "";
  }
  std::string html = "<section id=\"summary\">\n<div class=\"table-wrap\"><table>\n<thead><tr><th></th>"
                     "<th class=\"num\">change</th><th class=\"num\">base</th><th class=\"num\">head</th><th></th></tr>"
                     "</thead>\n<tbody>\n";
  for (const SummaryLine& line : report.summary_lines) {
    const bool deciding = line.role == SummaryRole::deciding;
    html += std::string("<tr") + (deciding ? " class=\"deciding\"" : "") + "><td>" + prose_html(line.name) +
            "</td><td class=\"num\">" + (deciding ? "<strong>" + esc(line.change) + "</strong>" : esc(line.change)) +
            "</td><td class=\"num\">" + esc(line.base) + "</td><td class=\"num\">" + esc(line.head) + "</td><td>" +
            prose_html(line.note) + "</td></tr>\n";
  }
  html += "</tbody>\n</table></div>\n";
  for (const SummaryLine& line : report.summary_lines) {
    if (!line.medians_note.empty()) {
      html += "<p class=\"note\">" + std::string(k_medians_mark) + " " + prose_html(line.medians_note) + "</p>\n";
    }
  }
  return html + "</section>\n";
}

}  // namespace

std::string render_html_sections(const Report& report) {
  const std::string inputs = report.inputs_line.empty()
                                 ? ""
                                 : "<p class=\"inputs-overlap\">⚠️ " + prose_html(report.inputs_line) + "</p>\n";
  return inputs + summary_section(report) + conditions_html(report) + measurements_section(report) +
         list_section("interpretations", "Interpretations", report.interpretations, "Nothing to interpret.") +
         list_section("open-hypotheses", "Open hypotheses", report.open_hypotheses, "None.") + provenance_html(report);
}

std::string render_html_page(Outcome outcome, const std::string& title, const std::string& verdict_line,
                             const std::string& context_line, const std::string& main_html,
                             const std::string& tool_version) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>" + esc(title) + "</title>\n";
  html += std::string("<style>") + k_style + "</style>\n</head>\n<body>\n";
  html += std::string("<header class=\"verdict ") + outcome_key(outcome) + "\"><div class=\"inner\">\n<h1>" +
          outcome_icon(outcome) + prose_html(verdict_text(verdict_line, outcome)) +
          "</h1>\n<p><strong>neuron-gate</strong> · " + prose_html(context_line) + "</p>\n</div></header>\n<main>\n";
  html += main_html;
  html += "</main>\n<footer>neuron-gate " + esc(tool_version) +
          " · measurements, interpretations and open hypotheses are kept apart; the JSON report has every "
          "metric</footer>\n</body>\n</html>\n";
  return html;
}

std::string render_html(const Report& report) {
  const Provenance& p = report.provenance;
  const std::string title =
      std::string("neuron-gate: ") + outcome_name(report.outcome) + " · " + p.base_spec + " → " + p.head_spec;
  return render_html_page(report.outcome, title, report.verdict_line, report.context_line, render_html_sections(report),
                          p.tool_version);
}

}  // namespace neuron_gate
