#include "report/markdown.hpp"

#include "report/chart.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"

#include <algorithm>
#include <sstream>

namespace neuron_gate {
namespace {

// A table cell of data shown as text (escape.hpp: no markup, no line break, `|` escaped).
std::string text_cell(const std::string& text) { return markdown_spans(text, true); }

// A table cell of data shown as code.
std::string code_cell(const std::string& name) { return markdown_code(name, true); }

// The adjusted p of the one-sided test in the direction the metric moved.
std::string adjusted_p_cell(const MetricComparison& m) {
  const bool moved_better = m.ratio && ((m.better == Better::lower) == (*m.ratio < 1.0));
  return format_p(moved_better ? m.p_better_adjusted : m.p_worse_adjusted);
}

std::string n_cell(const MetricComparison& m) {
  return std::to_string(m.base_samples.size()) + " / " + std::to_string(m.head_samples.size());
}

std::string calls_cell(const MetricComparison& m) {
  if (!m.base_calls && !m.head_calls) {
    return "–";
  }
  return format_number(m.base_calls) + " → " + format_number(m.head_calls);
}

std::string verdict_cell(const MetricComparison& m) {
  std::string text = verdict_name(m.verdict);
  if (m.waiver) {
    text += " (waived)";
  }
  return text;
}

const char* const k_metric_header =
    "| metric | base median | head median | ratio | 95% CI | adj. p | n base / head | verdict |\n"
    "|---|--:|--:|--:|--:|--:|--:|---|\n";

std::string metric_row(const MetricComparison& m) {
  return "| " + code_cell(m.name) + " | " + escape_markdown(format_value(m.base_median, m.unit, m.resolution)) + " | " +
         escape_markdown(format_value(m.head_median, m.unit, m.resolution)) + " | " + format_ratio(m.ratio) + " | " +
         format_ratio_interval(m.ratio_low, m.ratio_high) + " | " + adjusted_p_cell(m) + " | " + n_cell(m) +
         " | " + verdict_cell(m) + " |\n";
}

const char* const k_op_header =
    "| op | base median | head median | ratio | 95% CI | adj. p | calls / step | n base / head | verdict |\n"
    "|---|--:|--:|--:|--:|--:|--:|--:|---|\n";

std::string op_row(const MetricComparison& m) {
  return "| " + code_cell(m.name) + " | " + escape_markdown(format_value(m.base_median, m.unit, m.resolution)) + " | " +
         escape_markdown(format_value(m.head_median, m.unit, m.resolution)) + " | " + format_ratio(m.ratio) + " | " +
         format_ratio_interval(m.ratio_low, m.ratio_high) + " | " + adjusted_p_cell(m) + " | " +
         calls_cell(m) + " | " + n_cell(m) + " | " + verdict_cell(m) + " |\n";
}

struct Sections {
  std::string head;       // verdict line up to the top tables
  std::string full_open;  // per class: opening of the <details> full table
  std::string tail;       // interpretations, hypotheses, provenance
};

std::string conditions_section(const Report& report) {
  std::string text = "### Conditions held fixed\n\n";
  if (report.conditions.rows.empty()) {
    return text + "No conditions could be read from the data.\n\n";
  }
  text += "| condition | base | head | |\n|---|---|---|---|\n";
  for (const ConditionRow& row : report.conditions.rows) {
    const char* mark = row.matches ? "✓" : (row.accepted ? "✗ accepted" : "✗");
    text += "| " + text_cell(row.name) + " | " + text_cell(row.base) + " | " + text_cell(row.head) + " | " + mark +
            (row.note.empty() ? "" : " " + text_cell(row.note)) + " |\n";
  }
  return text + "\n";
}

std::string provenance_section(const Report& report) {
  const Provenance& p = report.provenance;
  std::string text = "### Provenance\n\n";
  text += "- neuron-gate " + p.tool_version + "; base " + markdown_code(p.base_spec, false) + ", head " +
          markdown_code(p.head_spec, false) + "\n";
  text += "- rules: " + escape_markdown(p.rules_source) +
          (p.rules_from.empty() ? "" : " from " + escape_markdown(p.rules_from)) + " (sha256 `" + p.rules_sha256.substr(0, 16) + "…`); alpha " +
          format_number(report.rules.alpha) + ", " + correction_name(report.rules.correction) +
          ", floor " + format_number(report.rules.floor_us) + " µs per op per step; unit: " +
          sample_unit_description(report.rules.unit) + "\n";
  for (const GitCommit& commit : p.commits) {
    text += "- " + commit.side + " git commit " + markdown_code(commit.commit.substr(0, 12), false) + " " + escape_markdown(commit.summary) +
            (commit.dirty ? " (work tree has uncommitted changes)" : "") + "\n";
  }
  std::size_t read = 0, ignored = 0;
  for (const ProvenanceFile& file : p.files) {
    (file.sha256.empty() ? ignored : read) += 1;
  }
  for (const SideFacts* facts : {&report.base_facts, &report.head_facts}) {
    const char* side = facts == &report.base_facts ? "base" : "head";
    text += std::string("- ") + side + ": " + std::to_string(facts->traces) + " traces, " +
            std::to_string(facts->steps) + " sample steps, " + std::to_string(facts->events) + " events; " +
            std::to_string(facts->outside_step_events) + " op calls outside every step (counted, not compared)" +
            device_share_text(*facts) + "\n";
  }
  for (const std::string& warning : p.warnings) {
    text += "- ⚠️ " + markdown_spans(warning, false) + "\n";
  }
  text += "\n<details><summary>" + std::to_string(read) + " files read, " + std::to_string(ignored) +
          " ignored</summary>\n\n| side | file | kind | bytes | sha256 |\n|---|---|---|--:|---|\n";
  for (const ProvenanceFile& file : p.files) {
    text += "| " + file.side + " | " + code_cell(file.relative_path) + " | " + file.kind +
            (file.ignored_reason.empty() ? "" : ": " + text_cell(file.ignored_reason)) +
            (file.detail.empty() ? "" : " (" + text_cell(file.detail) + ")") + " | " +
            std::to_string(file.size_bytes) + " | " + (file.sha256.empty() ? "–" : markdown_code(file.sha256.substr(0, 16) + "…")) +
            " |\n";
  }
  return text + "\n</details>\n";
}

std::string bullet_section(const std::string& title, const std::vector<std::string>& lines, const std::string& none) {
  std::string text = "### " + title + "\n\n";
  if (lines.empty()) {
    return text + none + "\n\n";
  }
  for (const std::string& line : lines) {
    text += "- " + prose_markdown(line) + "\n";
  }
  return text + "\n";
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

// The Measurements section's body: end-to-end and step-time tables, the top ops per class and the
// chart; each op class's full list goes to `full_tables` for the folded tables.
std::string measurements_section(const Report& report, FullTables& full_tables) {
  if (report.outcome == Outcome::not_comparable) {
    return "Not computed: the conditions above differ.\n\n";
  }
  std::string text = "_ratio: Hodges–Lehmann estimate of head / base (median of all pairwise ratios) with its distribution-free 95% CI, so it can differ from the ratio of the two medians; adj. p: one-sided Mann–Whitney U in the direction of the change, after the correction named in Provenance._\n\n";
  text += metric_table("End-to-end", ranked_metrics(report, MetricClass::end_to_end));
  text += metric_table("Profiled step time", ranked_metrics(report, MetricClass::step_time));
  for (MetricClass c : {MetricClass::device, MetricClass::self_cpu}) {
    auto ops = ranked_metrics(report, c);
    if (ops.empty()) {
      continue;
    }
    const std::string label = c == MetricClass::device ? "device time" : "self CPU time";
    const std::size_t top = std::min<std::size_t>(10, ops.size());
    text += "#### Ops that changed most: " + label + " per step (top " + std::to_string(top) + " of " +
            std::to_string(ops.size()) + ")\n\n";
    text += k_op_header;
    for (std::size_t i = 0; i < top; ++i) {
      text += op_row(*ops[i]);
    }
    text += "\n";
    full_tables.emplace_back(label, std::move(ops));
  }
  // A picture of the top changes reads faster than the tables above it.
  const std::string chart = mermaid_change_chart(report);
  if (!chart.empty()) {
    text += "#### Largest changes\n\n" + chart + "\n";
  }
  return text;
}

// The folded full tables with at most `keep_per_table` rows each (the most changed).
std::string full_tables_text(const FullTables& full_tables, std::size_t keep_per_table) {
  std::string text;
  for (const auto& [label, ops] : full_tables) {
    const std::size_t keep = std::min(keep_per_table, ops.size());
    text += "<details><summary>All " + std::to_string(ops.size()) + " " + label + " metrics</summary>\n\n";
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

} // namespace

std::string render_markdown(const Report& report, std::size_t max_chars) {
  std::string head = "## " + prose_markdown(report.verdict_line) + "\n\n";
  head += "**neuron-gate** · base " + markdown_code(report.provenance.base_spec, false) + " → head " +
          markdown_code(report.provenance.head_spec, false) + "\n\n";
  head += conditions_section(report);
  head += "### Measurements\n\n";
  FullTables full_tables;
  head += measurements_section(report, full_tables);

  const std::string tail = bullet_section("Interpretations", report.interpretations, "Nothing to interpret.") +
                           bullet_section("Open hypotheses", report.open_hypotheses, "None.") +
                           provenance_section(report) + "\n" + k_sticky_marker + "\n";

  // Full tables take what room is left, least changed rows cut first.
  const std::size_t fixed = head.size() + tail.size();
  std::string text = head + fitted_full_tables(full_tables, fixed < max_chars ? max_chars - fixed : 0) + tail;
  if (text.size() > max_chars) {
    // Interpretations or provenance alone overflow: keep the verdict and say so.
    text = head.substr(0, std::min(head.size(), max_chars / 2)) +
           "\n\n…report cut to fit GitHub's comment limit; see the JSON or HTML report.\n\n" + k_sticky_marker + "\n";
  }
  return text;
}

} // namespace neuron_gate
