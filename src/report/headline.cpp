#include "report/headline.hpp"

#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "report/prose.hpp"

#include <algorithm>
#include <cctype>

namespace neuron_gate {
namespace {

// "`latency`" for end-to-end, "profiled step time", "`aten::mm` self CPU" / "device" for ops.
std::string summary_label(const MetricComparison& m) {
  if (m.scope != MetricScope::op) {  // the sums' own names ("replaced ops", "all ops"), not profile data
    return m.name + (m.metric_class == MetricClass::device ? " device" : " self CPU");
  }
  switch (m.metric_class) {
  case MetricClass::end_to_end:
    return prose_code(m.name);
  case MetricClass::step_time:
    return m.ranked ? "profiled " + prose_code(m.name) : std::string("profiled step time");
  case MetricClass::device:
    return prose_code(m.name) + " device";
  case MetricClass::self_cpu:
    return prose_code(m.name) + " self CPU";
  }
  return prose_code(m.name);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// "+42.5% (90% CI +42.2…+42.8%, threshold 5%)" or ", within ±5%" for an equivalent one.
std::string change_with_ci(const MetricComparison& m) {
  std::string text = signed_change_text(m);
  std::string bracket;
  if (m.ratio_low && m.ratio_high) {
    bracket = "90% CI " + format_change_interval(m.ratio_low, m.ratio_high) + ", ";
  }
  bracket += (m.verdict == Verdict::equivalent ? "within ±" : "threshold ") + format_number(m.threshold * 100.0) + "%";
  return text + " (" + bracket + ")";
}

std::string note_of(const MetricComparison& m, SummaryRole role, Outcome outcome) {
  if (m.waiver) {
    return "waived until " + prose_text(m.waiver_until.value_or("?"));
  }
  if (!m.present_in_base || !m.present_in_head) {
    return m.present_in_head ? "appears" : "disappears";
  }
  if (m.verdict == Verdict::structural && m.calls_changed) {
    return "calls " + format_number(m.base_calls) + " → " + format_number(m.head_calls);
  }
  // Beside a pass or an undecided outcome, a regressed metric that does not gate says so (under a
  // REGRESSION the deciding rows gate and the rest explain them).
  if (m.verdict == Verdict::regressed && role != SummaryRole::deciding && !m.gating && outcome != Outcome::regression) {
    return "regressed, not gating";
  }
  return lower(verdict_name(m.verdict));
}

std::string samples_text(const VerdictSummary& s) {
  if (s.base_samples == 0 && s.head_samples == 0) {
    return "";
  }
  if (s.base_samples == s.head_samples) {
    return " · " + std::to_string(s.base_samples) + (s.base_samples == 1 ? " sample" : " samples") + " per side";
  }
  return " · " + std::to_string(s.base_samples) + " / " + std::to_string(s.head_samples) + " samples (base / head)";
}

}  // namespace

std::string signed_change_text(const MetricComparison& m) {
  if (!m.present_in_base || !m.present_in_head) {
    return m.present_in_head ? "new" : "removed";
  }
  if (m.ratio) {
    return format_change(m.ratio);
  }
  if (m.base_median && m.head_median && *m.base_median > 0) {
    return format_change(*m.head_median / *m.base_median);
  }
  return "–";
}

std::string headline_text(const Judgement& judgement, const ConditionsDiff& conditions, const VerdictSummary& summary,
                          const std::string& point) {
  const Outcome outcome = judgement.decision.outcome;
  const std::string start = std::string(outcome_emoji(outcome)) + " " + outcome_name(outcome) +
                            (point.empty() ? std::string() : " at " + prose_code(point));
  if (outcome == Outcome::pass && summary.waived > 0) {
    return start + " · " + std::to_string(summary.waived) + (summary.waived == 1 ? " regression" : " regressions") +
           " waived" + (summary.waived_until ? " until " + prose_text(*summary.waived_until) : std::string());
  }
  if ((outcome != Outcome::regression && outcome != Outcome::pass) || summary.deciding.empty()) {
    return verdict_line(judgement, conditions, false);
  }
  const MetricComparison& m = judgement.metrics[summary.deciding.front()];
  const char* joint = outcome == Outcome::regression
                          ? ": "
                          : (summary.pass_per_op ? " · no gating op regressed; largest change " : " · ");
  std::string line = start + joint + summary_label(m) + " " + change_with_ci(m);
  if (outcome == Outcome::pass && undecided(m.verdict)) {
    // A pass on an undecided estimate within its bound (docs/decision-rule.md): say how little it shows.
    line += across_runs(m) ? std::string(" · undecided, estimate within the threshold")
                           : " · not established across runs (" + std::to_string(m.base_processes) + " / " +
                                 std::to_string(m.head_processes) + " processes)";
  }
  const std::size_t more = outcome == Outcome::regression ? summary.deciding.size() - 1 : 0;
  line = more > 0 ? line + " and " + std::to_string(more) + " more" : line;
  if (outcome == Outcome::regression && m.base_processes > 0 && m.head_processes > 0 && !across_runs(m)) {
    // Decided within too few processes to measure how far separate processes of one code differ
    // (docs/decision-rule.md "Processes a side"): said where the verdict is read.
    line += " · from " + std::to_string(m.base_processes) + " / " + std::to_string(m.head_processes) +
            " processes: between-process noise not measured, capture 5 runs a side to confirm";
  }
  return line;
}

namespace {

// ", 2 not verified (`devices`, `world_size`)": conditions counted as matching but not checked; the inputs,
// when unknown, get their own part of the context line (inputs_unknown_text).
std::string unverified_conditions_text(const VerdictSummary& summary) {
  std::vector<std::string> names;
  for (const std::string& name : summary.conditions_unverified) {
    if (name != "inputs") {
      names.push_back(name);
    }
  }
  if (names.empty()) {
    return "";
  }
  std::string text = ", " + std::to_string(names.size()) + " not verified (";
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) {
    text += (i ? ", " : "") + prose_code(names[i]);
  }
  return text + (names.size() > 3 ? ", …)" : ")");
}

// " · inputs unknown: record shapes or add a run manifest" where no side records the inputs (issue 38 item 7).
std::string inputs_unknown_text(const VerdictSummary& summary) {
  const auto& names = summary.conditions_unverified;
  return std::find(names.begin(), names.end(), "inputs") == names.end()
             ? ""
             : " · inputs unknown: record shapes or add a run manifest";
}

}  // namespace

std::string context_text(const Judgement& judgement, const VerdictSummary& summary, const std::string& base_spec,
                         const std::string& head_spec) {
  std::string line = "base " + prose_code(base_spec) + " → head " + prose_code(head_spec) + samples_text(summary);
  if (summary.conditions > 0) {
    line += " · " + std::to_string(summary.conditions_matched) + " of " + std::to_string(summary.conditions) +
            (summary.conditions == 1 ? " condition matches" : " conditions match") +
            (summary.conditions_accepted > 0 ? ", " + std::to_string(summary.conditions_accepted) + " accepted"
                                             : std::string()) +
            unverified_conditions_text(summary) + inputs_unknown_text(summary);
  }
  const std::vector<MetricClass>& classes = summary.gating_classes;
  if (!classes.empty() && judgement.decision.outcome != Outcome::not_comparable) {
    line += " · gated by ";
    for (std::size_t i = 0; i < classes.size(); ++i) {
      line += (i ? ", " : "") + metric_class_label(classes[i]);
    }
  }
  return line + counts_text(judgement.decision, "insufficient");
}

std::vector<SummaryLine> summary_lines(const std::vector<MetricComparison>& metrics, const VerdictSummary& summary,
                                       Outcome outcome) {
  std::vector<SummaryLine> lines;
  for (const SummaryRow& row : summary.rows) {
    const MetricComparison& m = metrics[row.metric];
    const bool against = ratio_against_medians(m);
    lines.push_back({row.role, row.metric, summary_label(m), signed_change_text(m) + (against ? k_medians_mark : ""),
                     format_value(m.base_median, m.unit, m.resolution),
                     format_value(m.head_median, m.unit, m.resolution), note_of(m, row.role, outcome),
                     against ? summary_label(m) + ": " + medians_note(m) : std::string()});
  }
  return lines;
}

}  // namespace neuron_gate
