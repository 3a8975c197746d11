#include "report/markdown.hpp"

#include "report/chart.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace neuron_gate {
namespace {

// A table cell of data shown as text (escape.hpp: no markup, no line break, `|` escaped).
std::string text_cell(const std::string& text) {
  return markdown_spans(text, true);
}

// Names in table cells are cut to k_cell_name_chars (markdown.hpp), "aten::some_fa…_1549_backward", so that a
// table fits GitHub's 860 px comment column (tests/report/check_gfm_layout.mjs).

// A table cell of data shown as code.
std::string code_cell(const std::string& name) {
  return markdown_code(shorten_middle(sanitize_text(name), k_cell_name_chars), true);
}

// The verdict, with the calls per step when they changed and "(waived)" under a waiver.
std::string verdict_cell(const MetricComparison& m) {
  std::string text = verdict_name(m.verdict);
  if (m.calls_changed && (m.base_calls || m.head_calls)) {
    text += ", calls " + format_number(m.base_calls) + " → " + format_number(m.head_calls);
  }
  if (m.waiver) {
    text += " (waived)";
  }
  return text;
}

// Narrow columns (issue 16 item 3): n per side is stated once in the context line, the adjusted p and
// every other statistic are in the JSON and HTML reports. The few end-to-end and step-time metrics get
// six columns; the op tables five (no CI: with the verdict and calls per step it does not fit
// 860 px; the JSON and HTML have it).
const char* const k_metric_header = "| metric | base | head | change | 90% CI | verdict |\n|---|--:|--:|--:|--:|---|\n";
const char* const k_op_header = "| op | base | head | change | verdict |\n|---|--:|--:|--:|---|\n";

std::string metric_row(const MetricComparison& m) {
  return "| " + code_cell(m.name) + " | " + escape_markdown(format_value(m.base_median, m.unit, m.resolution)) + " | " +
         escape_markdown(format_value(m.head_median, m.unit, m.resolution)) + " | " + signed_change_text(m) + " | " +
         format_change_interval(m.ratio_low, m.ratio_high) + " | " + verdict_cell(m) + " |\n";
}

std::string op_row(const MetricComparison& m) {
  return "| " + code_cell(m.name) + " | " + escape_markdown(format_value(m.base_median, m.unit, m.resolution)) + " | " +
         escape_markdown(format_value(m.head_median, m.unit, m.resolution)) + " | " + signed_change_text(m) + " | " +
         verdict_cell(m) + " |\n";
}

// The summary table under the headline: deciding rows, then what explains them (at most 8 rows).
std::string summary_table(const Report& report) {
  if (report.summary_lines.empty()) {
    return "";
  }
  std::string text = "| | change | base | head | |\n|---|--:|--:|--:|---|\n";
  for (const SummaryLine& line : report.summary_lines) {
    const bool deciding = line.role == SummaryRole::deciding;
    text += "| " + prose_markdown_cell(line.name, k_cell_name_chars) + " | " +
            (deciding ? "**" + line.change + "**" : line.change) + " | " + escape_markdown(line.base) + " | " +
            escape_markdown(line.head) + " | " + prose_markdown_cell(line.note, k_cell_name_chars) + " |\n";
  }
  text += "\n";
  for (const SummaryLine& line : report.summary_lines) {
    if (!line.medians_note.empty()) {
      text += std::string(k_medians_mark) + " " + prose_markdown(line.medians_note) + "\n\n";
    }
  }
  return text;
}

struct Sections {
  std::string head;       // verdict line up to the top tables
  std::string full_open;  // per class: opening of the <details> full table
  std::string tail;       // interpretations, hypotheses, provenance
};

// Rows shown, not conditions, whose values differ (a recompiled NEFF, the workload's name, the price), for
// the folded table's summary: ", `neff_hashes` changed (compiled executable changed; not a condition)".
std::string changed_not_conditions(const Report& report) {
  std::string text;
  for (const ConditionRow& row : report.conditions.rows) {
    if (row.matches && row.verified && row.base != row.head) {
      const std::string why = row.note.substr(0, row.note.find(':'));
      text += ", " + markdown_code(row.name, false) + " changed (" + escape_markdown(why) + "; not a condition)";
    }
  }
  return text;
}

std::string conditions_section(const Report& report) {
  std::string text = "### Conditions held fixed\n\n";
  if (report.conditions.rows.empty()) {
    return text + "No conditions could be read from the data.\n\n";
  }
  // Folded unless they differ: then they are the verdict.
  const bool fold = !conditions_differ(report);
  if (fold) {
    text += "<details><summary>" + std::to_string(report.summary.conditions_matched) + " of " +
            std::to_string(report.summary.conditions) + " match" +
            (report.summary.conditions_accepted > 0
                 ? ", " + std::to_string(report.summary.conditions_accepted) + " accepted"
                 : std::string()) +
            (report.summary.conditions_unverified.empty()
                 ? std::string()
                 : ", " + std::to_string(report.summary.conditions_unverified.size()) + " not verified") +
            changed_not_conditions(report) + "</summary>\n\n";
  }
  text += "| condition | base | head | |\n|---|---|---|---|\n";
  for (const ConditionRow& row : report.conditions.rows) {
    const char* mark = row.matches ? (row.verified ? "✓" : "?") : (row.accepted ? "✗ accepted" : "✗");
    text += "| " + text_cell(row.name) + " | " + text_cell(row.base) + " | " + text_cell(row.head) + " | " + mark +
            (row.note.empty() ? "" : " " + text_cell(row.note)) + " |\n";
  }
  return text + (fold ? "\n</details>\n\n" : "\n");
}

std::string provenance_section(const Report& report) {
  const Provenance& p = report.provenance;
  std::string text =
      "### Provenance\n\n<details><summary>neuron-gate " + p.tool_version + ", rules, files read</summary>\n\n";
  text += "- neuron-gate " + p.tool_version + "; base " + markdown_code(p.base_spec, false) + ", head " +
          markdown_code(p.head_spec, false) + "\n";
  text += "- rules: " + escape_markdown(p.rules_source) +
          (p.rules_from.empty() ? "" : " from " + escape_markdown(p.rules_from)) + " (sha256 `" +
          p.rules_sha256.substr(0, 16) + "…`); alpha " + format_number(report.rules.alpha) + ", " +
          correction_name(report.rules.correction) + ", floor " + format_number(report.rules.floor_us) +
          " µs per op per step; unit: " + sample_unit_description(report.rules.unit) + "\n";
  for (const GitCommit& commit : p.commits) {
    text += "- " + commit.side + " git commit " + markdown_code(commit.commit.substr(0, 12), false) + " " +
            escape_markdown(commit.summary) +
            (commit.branch.empty() ? "" : ", branch " + markdown_code(commit.branch, false)) +
            (commit.object_database ? ", read from the object database" : "") +
            (commit.dirty ? " (work tree has uncommitted changes)" : "") +
            (commit.repository.empty() ? "" : ", repository " + markdown_code(commit.repository, false)) +
            (commit.manifest_commit.empty() ? ""
                                            : "; run manifest commit " + markdown_code(commit.manifest_commit, false)) +
            "\n";
  }
  if (p.stored_baseline) {
    text += "- " + prose_markdown(stored_baseline_text(*p.stored_baseline)) + "\n";
  }
  if (p.noise_check) {
    text += "- " + escape_markdown(noise_check_text(*p.noise_check)) + "\n";
  }
  std::size_t read = 0, ignored = 0;
  for (const ProvenanceFile& file : p.files) {
    (file.sha256.empty() ? ignored : read) += 1;
  }
  for (const SideFacts* facts : {&report.base_facts, &report.head_facts}) {
    const char* side = facts == &report.base_facts ? "base" : "head";
    text += std::string("- ") + side + ": " + side_facts_text(*facts) + "\n";
  }
  for (const std::string& warning : p.warnings) {
    text += "- ⚠️ " + markdown_spans(warning, false) + "\n";
  }
  text += "- " + std::to_string(read) + " files read, " + std::to_string(ignored) +
          " ignored — full list in the HTML/JSON report\n";
  return text + "\n</details>\n";
}

// "### TITLE" and one bullet per line; `fold` puts the bullets in a <details> (Open hypotheses).
std::string bullet_section(const std::string& title, const std::vector<std::string>& lines, const std::string& none,
                           bool fold) {
  std::string text = "### " + title + "\n\n";
  if (lines.empty()) {
    return text + none + "\n\n";
  }
  if (fold) {
    text += "<details><summary>" + std::to_string(lines.size()) + (lines.size() == 1 ? " hypothesis" : " hypotheses") +
            ", each with how to test it</summary>\n\n";
  }
  for (const std::string& line : lines) {
    text += "- " + prose_markdown(line) + "\n";
  }
  return text + (fold ? "\n</details>\n\n" : "\n");
}

// Per class of op metrics: its label and every metric, most changed first (the folded full tables).
using FullTables = std::vector<std::pair<std::string, std::vector<const MetricComparison*>>>;

// "#### TITLE" and a metric table of `metrics`; "" when there are none.
std::string metric_table(const std::string& title, const std::vector<const MetricComparison*>& metrics) {
  if (metrics.empty()) {
    return "";
  }
  std::string text = "#### " + title + "\n\n" + k_metric_header;
  for (const MetricComparison* m : metrics) {
    text += metric_row(*m);
  }
  return text + "\n";
}

// The Measurements section's body, folded: end-to-end and step-time tables and the chart; each op
// class's full list goes to `full_tables` for the folded tables after it.
std::string measurements_section(const Report& report, FullTables& full_tables) {
  if (conditions_differ(report)) {
    return "Not computed: the conditions above differ.\n\n";
  }
  std::string body = metric_table("End-to-end", ranked_metrics(report, MetricClass::end_to_end));
  body += metric_table("Profiled step time", ranked_metrics(report, MetricClass::step_time));
  const std::string chart = mermaid_change_chart(report);
  if (!chart.empty()) {
    body += "#### Change of the metrics above (signed %, 0 = no change)\n\n" + chart + "\n";
  }
  for (MetricClass c : {MetricClass::device, MetricClass::self_cpu}) {
    std::vector<const MetricComparison*> ops, runtime_calls;
    for (const MetricComparison* m : ranked_metrics(report, c)) {
      (m->family == Family::runtime_calls ? runtime_calls : ops).push_back(m);
    }
    if (!ops.empty()) {
      full_tables.emplace_back(c == MetricClass::device ? "device time" : "self CPU time", std::move(ops));
    }
    if (!runtime_calls.empty()) {
      full_tables.emplace_back(
          std::string("runtime calls' self CPU time (") +
              (report.rules.gate_runtime_calls ? "gating" : "not gating: rules gate_runtime_calls") + ")",
          std::move(runtime_calls));
    }
  }
  const std::string legend =
      "_change: Hodges–Lehmann estimate of head / base (median of all pairwise ratios) as a signed %, with its "
      "distribution-free 90% CI, so it can differ from the ratio of the two medians; the op tables' CIs, p values "
      "and names longer than 32 characters (cut here in the middle, …) are in the JSON and HTML reports._\n\n" +
      (paired_note(report).empty() ? std::string() : "_" + paired_note(report) + "_\n\n");
  if (body.empty()) {
    return legend;
  }
  return "<details><summary>End-to-end and step time</summary>\n\n" + legend + body + "</details>\n\n";
}

// The folded full tables with at most `keep_per_table` rows each (the most changed).
std::string full_tables_text(const FullTables& full_tables, std::size_t keep_per_table) {
  std::string text;
  for (const auto& [label, ops] : full_tables) {
    const std::size_t keep = std::min(keep_per_table, ops.size());
    text += "<details><summary>All " + std::to_string(ops.size()) + " ops: " + label +
            " per step, most changed first</summary>\n\n";
    text += k_op_header;
    for (std::size_t i = 0; i < keep; ++i) {
      text += op_row(*ops[i]);
    }
    if (keep < ops.size()) {
      text += "\n" + std::to_string(ops.size() - keep) +
              " least-changed rows cut to fit GitHub's comment limit; the JSON report has every metric.\n";
    }
    text += "\n</details>\n\n";
  }
  return text;
}

// The full tables in `room` characters: every row if they fit, else the most rows per table that fit
// (least changed rows cut first; found by bisection).
std::string fitted_full_tables(const FullTables& full_tables, std::size_t room) {
  std::size_t total_rows = 0;
  for (const auto& [label, ops] : full_tables) {
    total_rows += ops.size();
  }
  std::string full = full_tables_text(full_tables, total_rows);
  if (full.size() <= room) {
    return full;
  }
  std::size_t low = 0, high = total_rows;
  while (low < high) {
    const std::size_t mid = (low + high + 1) / 2;
    if (full_tables_text(full_tables, mid).size() <= room) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return full_tables_text(full_tables, low);
}

}  // namespace

// The key when it is valid, else "" (the CLI refuses a bad key before any work; this keeps the marker
// line a marker whatever a caller passes).
std::string comment_problem_free(const std::string& key);

std::string comment_key_problem(const std::string& key) {
  if (key.empty() || key.size() > 64) {
    return "a comment key has 1 to 64 characters, not " + std::to_string(key.size());
  }
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return "a comment key holds only A-Z a-z 0-9 . _ -";
    }
  }
  return "";
}

std::string comment_problem_free(const std::string& key) {
  return comment_key_problem(key).empty() ? key : "";
}

std::string sticky_marker(const std::string& key) {
  return key.empty() ? std::string(k_sticky_marker) : "<!-- neuron-gate key=" + key + " -->";
}

namespace {

// The report with `marker` as its last line ("" for none: a point's detail inside another report).
std::string render_with_marker(const Report& report, std::size_t max_chars, const std::string& marker) {
  const std::string end = marker.empty() ? std::string() : "\n" + marker + "\n";
  std::string head = "## " + prose_markdown(report.verdict_line) + "\n\n";
  head += "**neuron-gate** · " + prose_markdown(report.context_line) + "\n\n";
  if (!report.inputs_line.empty()) {
    head += "⚠️ " + prose_markdown(report.inputs_line) + "\n\n";
  }
  head += summary_table(report);
  head += conditions_section(report);
  head += "### Measurements\n\n";
  FullTables full_tables;
  head += measurements_section(report, full_tables);

  const std::string tail = bullet_section("Interpretations", report.interpretations, "Nothing to interpret.", false) +
                           bullet_section("Open hypotheses", report.open_hypotheses, "None.", true) +
                           provenance_section(report) + end;

  // Full tables take what room is left, least changed rows cut first.
  const std::size_t fixed = head.size() + tail.size();
  std::string text = head + fitted_full_tables(full_tables, fixed < max_chars ? max_chars - fixed : 0) + tail;
  if (text.size() > max_chars) {
    // Interpretations or provenance alone overflow: keep what fits of the top, whole lines only, and say so.
    text = cut_at_lines(head, max_chars > end.size() ? max_chars - end.size() : 0,
                        "\n…report cut to fit GitHub's comment limit; see the JSON or HTML report.\n") +
           end;
  }
  return text;
}

}  // namespace

std::string cut_at_lines(const std::string& markdown, std::size_t max_chars, const std::string& note) {
  std::string kept;
  std::size_t open_details = 0;
  bool in_fence = false;
  const auto closers = [&](std::size_t details, bool fence) { return (fence ? 4 : 0) + details * 11; };
  std::size_t start = 0;
  while (start < markdown.size()) {
    std::size_t end = markdown.find('\n', start);
    end = end == std::string::npos ? markdown.size() : end + 1;
    const std::string_view line(markdown.data() + start, end - start);
    std::size_t details = open_details;
    for (std::size_t at = line.find("<details>"); at != std::string_view::npos; at = line.find("<details>", at + 1)) {
      ++details;
    }
    for (std::size_t at = line.find("</details>"); at != std::string_view::npos; at = line.find("</details>", at + 1)) {
      details -= details > 0 ? 1 : 0;
    }
    const bool fence = line.rfind("```", 0) == 0 ? !in_fence : in_fence;
    if (kept.size() + line.size() + 1 + closers(details, fence) + note.size() > max_chars) {
      break;
    }
    kept += line;
    open_details = details;
    in_fence = fence;
    start = end;
  }
  if (!kept.empty() && kept.back() != '\n') {
    kept += '\n';
  }
  if (in_fence) {
    kept += "```\n";
  }
  for (std::size_t i = 0; i < open_details; ++i) {
    kept += "</details>\n";
  }
  return kept + note;
}

std::string render_markdown(const Report& report, std::size_t max_chars, const std::string& comment_key) {
  return render_with_marker(report, max_chars, sticky_marker(comment_problem_free(comment_key)));
}

std::string render_markdown_detail(const Report& report, std::size_t max_chars) {
  return render_with_marker(report, max_chars, "");
}

}  // namespace neuron_gate
