// Renderers of a report of several operating points (points_report.hpp): they only render.
#include "report/annotations.hpp"
#include "report/escape.hpp"
#include "report/html.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "report/points_report.hpp"
#include "report/prose.hpp"
#include "util/text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace neuron_gate {
namespace {

std::string points_table(const PointsReport& report) {
  std::string text = "| operating point | deciding metric | change | verdict |\n|---|---|--:|---|\n";
  for (const PointRow& row : report.rows) {
    const bool bold = row.outcome == Outcome::regression && row.status == PointStatus::compared;
    // Cells through the in-table escapers: a `|` ends a GFM cell even inside a code span.
    const std::string verdict = prose_markdown_cell(row.verdict, k_cell_name_chars);
    text += "| " + markdown_code(shorten_middle(sanitize_text(row.label), k_cell_name_chars), true) + " | " +
            prose_markdown_cell(row.metric, k_cell_name_chars) + " | " +
            (bold ? "**" + row.change + "**" : row.change) + " | " + (bold ? "**" + verdict + "**" : verdict) + " |\n";
  }
  return text + "\n";
}

}  // namespace

std::string render_points_markdown(const PointsReport& report, std::size_t max_chars, const std::string& comment_key) {
  const std::string marker = sticky_marker(comment_key_problem(comment_key).empty() ? comment_key : "");
  std::string text = "## " + prose_markdown(report.verdict_line) + "\n\n";
  text += "**neuron-gate** · " + prose_markdown(report.context_line) + "\n\n";
  text += points_table(report);
  text += "### Operating points\n\n";
  const std::size_t fixed = text.size() + marker.size() + 2 + report.rows.size() * 512;
  const std::size_t share = fixed < max_chars ? (max_chars - fixed) / std::max<std::size_t>(1, report.rows.size()) : 0;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const PointRow& row = report.rows[i];
    // An HTML block: GitHub links @names, #N and :emoji: in its text, but not inside <code>; the verdict
    // (prose that may hold data) is in the table above, the outcome's own name here.
    text += "<details><summary><code>" + escape_html(shorten_middle(sanitize_text(row.label), 64)) + "</code> · " +
            outcome_name(row.outcome) + "</summary>\n\n";
    text += report.details[i] ? render_markdown_detail(*report.details[i], share)
                              : prose_markdown(row.verdict) + ": nothing to compare it with.\n";
    text += "\n</details>\n\n";
  }
  if (text.size() + marker.size() + 1 > max_chars) {  // rows are bounded per cell, but not in number
    text = cut_at_lines(text, max_chars > marker.size() + 1 ? max_chars - marker.size() - 1 : 0,
                        "\n…report cut to fit GitHub's comment limit; see the JSON or HTML report.\n");
  }
  return text + marker + "\n";
}

std::string render_points_json(const PointsReport& report) {
  nlohmann::ordered_json j;
  j["schema"] = "neuron-gate.points/1";
  j["outcome"] = outcome_name(report.decision.outcome);
  j["verdict"] = outcome_key(report.decision.outcome);
  j["exit_code"] = report.decision.exit_code;
  j["verdict_line"] = prose_plain(report.verdict_line);
  j["context_line"] = prose_plain(report.context_line);
  j["regressed"] = report.decision.regressed;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const PointRow& row = report.rows[i];
    nlohmann::ordered_json point;
    point["label"] = row.label;
    point["outcome"] = outcome_name(row.outcome);
    point["status"] = point_status_key(row.status);
    point["verdict"] = prose_plain(row.verdict);
    point["deciding_metric"] = prose_plain(row.metric);
    point["change"] = row.change;
    point["report"] = report.details[i] ? nlohmann::ordered_json::parse(render_json(*report.details[i]))
                                        : nlohmann::ordered_json(nullptr);
    points.push_back(std::move(point));
  }
  j["operating_points"] = std::move(points);
  return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string render_points_html(const PointsReport& report) {
  std::string main = "<section id=\"operating-points\">\n<div class=\"table-wrap\"><table>\n<thead><tr>"
                     "<th>operating point</th><th>deciding metric</th><th class=\"num\">change</th><th>verdict</th>"
                     "</tr></thead>\n<tbody>\n";
  std::string version;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const PointRow& row = report.rows[i];
    const bool bold = row.outcome == Outcome::regression && row.status == PointStatus::compared;
    main += std::string("<tr") + (bold ? " class=\"deciding\"" : "") + "><td><code>" + escape_html(row.label) +
            "</code></td><td>" + prose_html(row.metric) + "</td><td class=\"num\">" +
            (bold ? "<strong>" + escape_html(row.change) + "</strong>" : escape_html(row.change)) + "</td><td>" +
            prose_html(row.verdict) + "</td></tr>\n";
    if (report.details[i]) {
      version = report.details[i]->provenance.tool_version;
    }
  }
  main += "</tbody>\n</table></div>\n</section>\n";
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const PointRow& row = report.rows[i];
    main += "<details class=\"point\"><summary><code>" + escape_html(row.label) + "</code> · " +
            prose_html(row.verdict) + "</summary>\n";
    if (const std::optional<Report>& detail = report.details[i]) {
      main += "<h2>" + prose_html(detail->verdict_line) + "</h2>\n<p>" + prose_html(detail->context_line) + "</p>\n" +
              render_html_sections(*detail);
    } else {
      main += "<p>" + prose_html(row.verdict) + ": nothing to compare it with.</p>\n";
    }
    main += "</details>\n";
  }
  return render_html_page(report.decision.outcome, "neuron-gate: " + std::string(outcome_name(report.decision.outcome)),
                          report.verdict_line, report.context_line, main, version);
}

std::string render_points_junit(const PointsReport& report) {
  std::vector<JunitPoint> points;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    points.push_back(
        {report.rows[i].label, report.details[i] ? &*report.details[i] : nullptr, prose_plain(report.rows[i].verdict)});
  }
  return render_junit_points(points);
}

std::string render_points_annotations(const PointsReport& report) {
  std::string text;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const PointRow& row = report.rows[i];
    text +=
        row.status == PointStatus::compared && report.details[i]
            ? render_annotations(*report.details[i], k_annotations_per_kind, row.label)
            : point_not_compared_annotation(row.label, prose_plain(row.verdict), row.status != PointStatus::head_only);
  }
  return text;
}

std::string render_points_verdict(const PointsReport& report) {
  std::string text = escape_terminal(prose_plain(report.verdict_line));
  for (const std::optional<Report>& detail : report.details) {
    if (detail && detail->inputs_overlap.kind != InputsOverlapKind::none) {
      return text + " · ⚠️ " + inputs_overlap_name(detail->inputs_overlap.kind) + "\n";
    }
  }
  return text + "\n";
}

std::string render_points_terminal(const PointsReport& report) {
  std::string text = escape_terminal(prose_plain(report.verdict_line)) + "\n" +
                     escape_terminal(prose_plain(report.context_line)) + "\n\n";
  for (const PointRow& row : report.rows) {
    text += "  " + escape_terminal(row.label) + "  " + escape_terminal(prose_plain(row.metric)) + "  " +
            escape_terminal(row.change) + "  " + escape_terminal(prose_plain(row.verdict)) + "\n";
  }
  return text;
}

}  // namespace neuron_gate
