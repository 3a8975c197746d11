#include "report/annotations.hpp"

#include "report/escape.hpp"
#include "report/number_format.hpp"

#include <vector>

namespace neuron_gate {
namespace {

// One annotation before escaping: its title and message mix the report's own words with data strings.
struct Annotation {
  std::string title;
  std::string message;
};

std::string command(const char* kind, const Annotation& a) {
  return std::string("::") + kind + " title=" + escape_workflow_property(a.title) +
         "::" + escape_workflow_data(a.message) + "\n";
}

// "`latency` (end-to-end)"-like label without code marks: annotations are plain text.
std::string label(const MetricComparison& m) {
  return m.metric_class == MetricClass::step_time ? m.name : m.name + " (" + metric_class_label(m.metric_class) + ")";
}

// The numbers behind a metric's verdict on one line: change with its CI and threshold, medians, reason.
std::string describe(const MetricComparison& m) {
  std::string text = label(m) + ": " + format_change(m.ratio);
  if (m.ratio_low && m.ratio_high) {
    text += " (90% CI " + format_change_interval(m.ratio_low, m.ratio_high) + ", threshold " +
            format_percent(m.threshold) + ")";
  }
  text += ", median " + format_value(m.base_median, m.unit, m.resolution) + " -> " +
          format_value(m.head_median, m.unit, m.resolution) + " (n " + std::to_string(m.base_samples.size()) + " / " +
          std::to_string(m.head_samples.size()) + ")";
  if (!m.reason.empty()) {
    text += "; " + m.reason;
  }
  if (m.waiver) {
    text += "; waived: " + *m.waiver;
  }
  return text;
}

std::vector<Annotation> errors(const Report& report, const std::string& where) {
  std::vector<Annotation> found;
  if (report.outcome == Outcome::not_comparable && !conditions_differ(report)) {
    found.push_back({"neuron-gate: not comparable" + where, prose_plain(report.verdict_line)});
  }
  if (report.outcome == Outcome::not_comparable) {
    for (const ConditionRow& row : report.conditions.rows) {
      if (!row.matches && !row.accepted) {
        found.push_back({"neuron-gate: not comparable" + where,
                         "condition " + row.name + " differs: base " + row.base + "; head " + row.head +
                             "; rerun both sides with the same settings or accept it with --allow-mismatch " +
                             row.name});
      }
    }
  }
  for (const MetricComparison& m : report.metrics) {
    if (m.gating && m.verdict == Verdict::regressed && !m.waiver) {
      found.push_back({"neuron-gate: " + m.name + where + " regressed", describe(m)});
    }
  }
  if (report.decision.exit_code == 4) {  // --strict: NO DECISION failed the gate
    found.push_back({"neuron-gate: no decision (--strict)" + where, prose_plain(report.verdict_line)});
  }
  return found;
}

std::vector<Annotation> warnings(const Report& report, const std::string& where) {
  std::vector<Annotation> found;
  if (!report.inputs_line.empty()) {  // first: it says what every verdict below is worth
    found.push_back({"neuron-gate: " + std::string(inputs_overlap_name(report.inputs_overlap.kind)) + where,
                     prose_plain(report.inputs_line)});
  }
  if (report.outcome == Outcome::no_decision && report.decision.exit_code != 4) {
    found.push_back({"neuron-gate: no decision" + where, prose_plain(report.verdict_line)});
  }
  for (const bool gating : {true, false}) {
    for (const MetricComparison& m : report.metrics) {
      if (m.gating == gating && m.verdict == Verdict::regressed && (m.waiver || !m.gating)) {
        const char* note = m.waiver ? " (waived)" : " (not gating)";
        found.push_back({"neuron-gate: " + m.name + where + " regressed" + note, describe(m)});
      }
    }
  }
  return found;
}

}  // namespace

std::string render_annotations(const Report& report, std::size_t max_per_kind, const std::string& point) {
  const std::string where = point.empty() ? std::string() : " [at " + point + "]";
  const std::vector<Annotation> error_list = errors(report, where);
  const std::vector<Annotation> warning_list = warnings(report, where);
  std::string text;
  for (std::size_t i = 0; i < error_list.size() && i < max_per_kind; ++i) {
    text += command("error", error_list[i]);
  }
  for (std::size_t i = 0; i < warning_list.size() && i < max_per_kind; ++i) {
    text += command("warning", warning_list[i]);
  }
  const std::size_t left_errors = error_list.size() > max_per_kind ? error_list.size() - max_per_kind : 0;
  const std::size_t left_warnings = warning_list.size() > max_per_kind ? warning_list.size() - max_per_kind : 0;
  if (left_errors + left_warnings > 0) {
    text += command("notice",
                    {"neuron-gate", std::to_string(left_errors) + " more errors and " + std::to_string(left_warnings) +
                                        " more warnings are not annotated; the full list is in the report"});
  }
  return text;
}

std::string point_not_compared_annotation(const std::string& point, const std::string& verdict, bool blocks) {
  return command(blocks ? "error" : "warning", {"neuron-gate: operating point " + point + " not compared", verdict});
}

std::string error_annotation(std::string_view message) {
  return command("error", {"neuron-gate: exit code 2 (error)", std::string(message)});
}

}  // namespace neuron_gate
