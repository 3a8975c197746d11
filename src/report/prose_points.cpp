// Wording of a report of several operating points (points_report.hpp): the headline, the context line
// and each point's verdict cell.
#include "report/points_report.hpp"

#include "report/escape.hpp"
#include "report/headline.hpp"
#include "report/prose.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

namespace neuron_gate {
namespace {

std::string labels_text(const std::vector<std::string>& labels) {
  std::string text;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    text += (i ? ", " : "") + labels[i];
  }
  return text;
}

// " · not compared: `a` (in base only), `b` (conditions differ (...))", "" when every point was compared.
std::string not_compared_text(const PointsReport& report) {
  std::vector<std::string> parts;
  for (const PointRow& row : report.rows) {
    if (row.status != PointStatus::compared) {
      parts.push_back(prose_code(row.label) + " (" + row.verdict.substr(std::string("not comparable: ").size()) + ")");
    }
  }
  return parts.empty() ? "" : " · not compared: " + labels_text(parts);
}

// The rows whose own outcome is `outcome`, as their labels.
std::vector<std::string> labels_with(const PointsReport& report, Outcome outcome) {
  std::vector<std::string> labels;
  for (const PointRow& row : report.rows) {
    if (row.status == PointStatus::compared && row.outcome == outcome) {
      labels.push_back(prose_code(row.label));
    }
  }
  return labels;
}

std::string lower_text(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::string point_verdict_text(const PointComparison& point) {
  switch (point.status) {
  case PointStatus::base_only:
    return "not comparable: in base only";
  case PointStatus::head_only:
    return "not comparable: in head only";
  case PointStatus::conditions_differ: {
    std::vector<std::string> names;
    for (const ConditionRow& row : point.conditions.rows) {
      if (!row.matches && !row.accepted) {
        names.push_back(row.name);
      }
    }
    return "not comparable: conditions differ (" + labels_text(names) + ")";
  }
  case PointStatus::compared:
    break;
  }
  const Outcome outcome = point.judgement.decision.outcome;
  return outcome == Outcome::regression ? "regressed" : lower_text(outcome_name(outcome));
}

std::string points_headline_text(const PointsReport& report) {
  const Outcome outcome = report.decision.outcome;
  const std::string start = std::string(outcome_emoji(outcome)) + " " + outcome_name(outcome);
  if (outcome == Outcome::not_comparable) {
    const bool any_compared = std::any_of(report.rows.begin(), report.rows.end(),
                                          [](const PointRow& row) { return row.status == PointStatus::compared; });
    // Fail closed (docs/decision-rule.md): head must hold every base point, under the same conditions.
    return start +
           (any_compared ? ": every operating point of base must be compared in head"
                         : ": no operating point is on both sides with the same conditions") +
           not_compared_text(report);
  }
  const std::vector<std::string> here = labels_with(report, outcome);
  if (outcome == Outcome::regression && !here.empty()) {
    // The first regressed point's own headline, naming the point; the others after it.
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
      if (report.rows[i].status == PointStatus::compared && report.rows[i].outcome == outcome && report.details[i]) {
        const Report& detail = *report.details[i];
        const std::string line = headline_text(Judgement{detail.metrics, detail.decision}, detail.conditions,
                                               detail.summary, report.rows[i].label);
        const std::vector<std::string> others(here.begin() + 1, here.end());
        return line + (others.empty() ? std::string() : " · also at " + labels_text(others));
      }
    }
  }
  std::size_t compared = 0;
  for (const PointRow& row : report.rows) {
    compared += row.status == PointStatus::compared ? 1U : 0U;
  }
  std::string line = start;
  if (outcome == Outcome::pass) {
    line += " at " + std::to_string(compared) + " of " + plural(report.rows.size(), "operating point");
  } else if (!here.empty()) {
    line += " at " + labels_text(here);
  }
  return line + not_compared_text(report);
}

std::string points_context_text(const PointsJudgement& judged, const std::string& base_spec,
                                const std::string& head_spec) {
  std::size_t in_base = 0, in_head = 0, compared = 0;
  for (const PointComparison& point : judged.points) {
    in_base += point.base ? 1U : 0U;
    in_head += point.head ? 1U : 0U;
    compared += point.status == PointStatus::compared ? 1U : 0U;
  }
  std::string line = "base " + prose_code(base_spec) + " → head " + prose_code(head_spec) + " · " +
                     plural(in_base, "operating point") + " in base, " + std::to_string(in_head) + " in head, " +
                     std::to_string(compared) + " compared";
  const std::vector<MetricClass>& classes = judged.judgement.decision.gating_classes;
  if (compared > 0 && !classes.empty()) {
    line += " · gated by ";
    for (std::size_t i = 0; i < classes.size(); ++i) {
      line += (i ? ", " : "") + metric_class_label(classes[i]);
    }
    line += " · one Holm correction across all points";
  }
  return line + counts_text(judged.judgement.decision, "insufficient");
}

}  // namespace neuron_gate
