#include "report/points_report.hpp"

namespace neuron_gate {
namespace {

// The row of one point: its deciding metric is its own report's first deciding summary row.
PointRow row_of(const PointComparison& point, const std::optional<Report>& detail) {
  PointRow row;
  row.label = point.label;
  row.status = point.status;
  row.outcome = point.judgement.decision.outcome;
  row.metric = "–";
  row.change = "–";
  row.verdict = point_verdict_text(point);
  if (detail && !detail->summary_lines.empty() && detail->summary_lines.front().role == SummaryRole::deciding) {
    row.metric = detail->summary_lines.front().name;
    row.change = detail->summary_lines.front().change;
  }
  return row;
}

}  // namespace

PointsReport build_points_report(const PointsJudgement& judged, std::vector<std::optional<Report>> details,
                                 const std::string& base_spec, const std::string& head_spec, RuleSet rules) {
  PointsReport report;
  report.decision = judged.judgement.decision;
  for (std::size_t i = 0; i < judged.points.size(); ++i) {
    report.rows.push_back(row_of(judged.points[i], details[i]));
  }
  report.details = std::move(details);
  report.rules = std::move(rules);
  report.verdict_line = points_headline_text(report);
  report.context_line = points_context_text(judged, base_spec, head_spec);
  return report;
}

}  // namespace neuron_gate
