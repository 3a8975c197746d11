#include "report/prose.hpp"

#include "report/escape.hpp"

#include "report/number_format.hpp"

#include "profile/operating_points.hpp"
#include "profile/ranks.hpp"

#include <algorithm>
#include <sstream>

namespace neuron_gate {

namespace {

// What a side whose device time was lost is told (verdict reasons and the NO DECISION headline).
constexpr const char* k_device_time_lost_advice =
    "device work was launched but no device time was captured; synchronize the device before the profiler "
    "exports (e.g. torch.cuda.synchronize(), xm.mark_step() + xm.wait_device_ops()) and profile again";

// What a side is told whose device activity was captured but whose profiles hold no device time.
constexpr const char* k_device_time_not_in_trace_advice =
    "synchronize the device before the profiler exports, and where the trace holds CPU events only "
    "(TorchNeuron's trace.json) add the device's own numbers beside each run's trace (`neuron-explorer view "
    "--output-format summary-json` of its NTFF files, docs/NEURON-FORMATS.md)";

}  // namespace
namespace {

// A ratio as a percentage without the sign for gains: 1.123 -> "12.3%", 0.95 -> "-5%"
// (number_format.hpp format_percent of ratio - 1).
std::string percent(double ratio) {
  return format_percent(ratio - 1.0);
}

// The ratio with > 1 meaning worse, whatever the metric's direction.
double worse_of(const MetricComparison& m) {
  const double ratio = m.ratio.value_or(1.0);
  return m.better == Better::lower || ratio <= 0 ? ratio : 1.0 / ratio;
}

std::string too_few_samples_text(const MetricComparison& m) {
  std::ostringstream reason;
  reason << "n=" << m.base_samples.size() << "/" << m.head_samples.size() << " cannot reach p <= " << m.needed_p
         << " (alpha / " << m.family_size << " metrics); needs " << m.samples_needed.value_or(0)
         << (m.paired ? " paired runs (the signed-rank test's smallest p is 2^-pairs)" : " per side");
  return reason.str();
}

// Where an undecided metric's 90% CI lies against ±threshold and whether the change is significant, said
// from the interval and the test as they are (issue 38 item 7: "straddles" was printed for -100…-66.7%).
std::string interval_against_threshold(const MetricComparison& m, bool worse) {
  const double t = m.threshold;
  const bool known = m.ratio_low && m.ratio_high;
  const char* where = !known                                                ? " is unknown"
                      : *m.ratio_high < 1.0 - t || *m.ratio_low > 1.0 + t   ? " lies wholly beyond the threshold"
                      : *m.ratio_low >= 1.0 - t && *m.ratio_high <= 1.0 + t ? " lies within the threshold"
                                                                            : " straddles the threshold";
  const bool significant = worse ? m.significant_worse : m.significant_better;
  std::string but;  // why a CI within the threshold is not EQUIVALENT (judgement.cpp ci_within_threshold)
  if (known && *m.ratio_low >= 1.0 - t && *m.ratio_high <= 1.0 + t) {
    const double widen = 1.0 + m.run_allowance;
    if (m.runs_ratio_low && m.runs_ratio_high && (*m.runs_ratio_low < 1.0 - t || *m.runs_ratio_high > 1.0 + t)) {
      but = ", but the between-runs interval " + format_change_interval(m.runs_ratio_low, m.runs_ratio_high) +
            " does not";
    } else if (*m.ratio_low / widen < 1.0 - t || *m.ratio_high * widen > 1.0 + t) {
      but = ", but not once widened by the ±" + format_number(m.run_allowance * 100.0) + "% between-run allowance";
    }
  }
  return "90% CI " + format_change_interval(m.ratio_low, m.ratio_high) + where + " (±" + percent(1.0 + t) + ")" + but +
         " and the change is " + (significant ? "" : "not ") + "significant after correction";
}

// A significant change beyond the threshold held back by the between-run allowance: within ±a, or from 1-2
// processes a side within (1 + t)(1 + a) - 1 (judgement.cpp change_blocked).
std::string within_allowance_text(const MetricComparison& m) {
  const std::string allowance = format_number(m.run_allowance * 100.0) + "%";
  const double bound = ((1.0 + m.threshold) * (1.0 + m.run_allowance) - 1.0) * 100.0;
  return "significant and beyond the threshold, but the samples come from too few processes (" +
         std::to_string(m.base_processes) + " / " + std::to_string(m.head_processes) +
         " runs) and the change is within " +
         (across_runs(m) ? "the between-run allowance of ±" + allowance
                         : "the " + format_number(bound) +
                               "% that samples of this few processes can pass (the threshold widened by the ±" +
                               allowance + " between-run allowance)");
}

// The reasons of an INCONCLUSIVE metric with enough samples.
std::string inconclusive_text(const MetricComparison& m) {
  const bool worse = worse_of(m) >= 1.0;
  const std::optional<double> p = worse ? m.p_worse_adjusted : m.p_better_adjusted;
  switch (m.why) {
  case VerdictReason::significant_size_open:
    return "the change is significant after correction (adjusted p " + format_p(p) + ") but its 90% CI " +
           format_change_interval(m.ratio_low, m.ratio_high) + " straddles the threshold (±" +
           percent(1.0 + m.threshold) + ")";
  case VerdictReason::adjusted_p_not_reached:
    return "90% CI " + format_change_interval(m.ratio_low, m.ratio_high) + " lies wholly beyond the ±" +
           percent(1.0 + m.threshold) + " threshold, but the adjusted p " + format_p(p) + " does not reach alpha " +
           format_number(m.alpha) + " (" + std::to_string(m.family_size) + " metrics in the family)";
  case VerdictReason::below_floor:
    return "significant and beyond the threshold, but the change of " +
           format_duration_us(m.shift ? std::optional<double>(std::abs(*m.shift)) : std::nullopt) +
           " per step is below the floor of " + format_number(m.floor_us) + " µs per step";
  case VerdictReason::no_interval:
    return "no 90% CI of the ratio at these sample sizes, so the change cannot be placed against the threshold";
  case VerdictReason::no_ratio:
    return "no ratio (base median is 0) and the change is not within the floor";
  case VerdictReason::within_noise:
    return "significant and beyond the threshold, but the 90% CI " + format_change_interval(m.ratio_low, m.ratio_high) +
           " does not clear base's own A/A noise of ±" + format_number(m.base_noise.value_or(0.0) * 100.0) +
           "% (random halvings of base's runs)";
  case VerdictReason::within_resolution:
    return "the change is within the timer's resolution (" + format_duration_us(m.resolution) +
           "): neither a change nor its absence can be shown" +
           (m.ratio_low && m.ratio_high ? "; the 90% CI, widened by one quantum each side, is " +
                                              format_change_interval(m.ratio_low, m.ratio_high)
                                        : std::string());
  case VerdictReason::not_across_runs:
    return "significant and beyond the threshold, but a side's steps come from fewer than " +
           std::to_string(k_processes_to_establish) + " processes: not established across runs (capture " +
           std::to_string(k_processes_to_establish) + " or more runs per side)";
  case VerdictReason::data_incomplete: {
    // The side whose screened events this metric holds and whose share is beyond the limit (head first).
    const bool head = m.head_screened && m.head_excluded_share > m.max_excluded_share;
    const double share = head ? m.head_excluded_share : m.base_excluded_share;
    const char* kind = m.metric_class == MetricClass::device     ? "device"
                       : m.metric_class == MetricClass::self_cpu ? "self CPU"
                                                                 : "self CPU or device";
    if (head ? m.head_device_lost : m.base_device_lost) {
      return std::string("device time missing on ") + (head ? "head" : "base") + ": " + k_device_time_lost_advice;
    }
    if (const std::string& op = head ? m.head_device_missing : m.base_device_missing; !op.empty()) {
      return "device time missing for `" + op + "` on " + (head ? "head" : "base") +
             ": its CPU calls remain but launches have no device event in the trace; excluded and missing "
             "device time carry " +
             format_number(share * 100.0) + "% of the side's (more than the " +
             format_number(m.max_excluded_share * 100.0) + "% allowed, rules `max_excluded_share`); see Data problems";
    }
    // Self CPU shares are by time or by count, whichever is larger (screened_metrics.hpp).
    return std::string("the data are incomplete: this metric holds events excluded as data problems on ") +
           (head ? "head" : "base") + ", where excluded events carry " + format_number(share * 100.0) + "% of the " +
           kind + " time" + (m.metric_class == MetricClass::self_cpu ? " or of this metric's events" : "") +
           " (more than the " + format_number(m.max_excluded_share * 100.0) +
           "% allowed, rules `max_excluded_share`); see Data problems";
  }
  case VerdictReason::runs_disagree:
    return "significant and beyond the threshold over the pooled samples, but the runs' medians do not establish it: "
           "their 90% interval (Welch, " +
           std::to_string(m.base_processes) + " / " + std::to_string(m.head_processes) + " runs) is " +
           format_change_interval(m.runs_ratio_low, m.runs_ratio_high) +
           (m.runs_p_two_sided ? ", one-sided p " + format_p(*m.runs_p_two_sided / 2.0) + " (needs " +
                                     format_p(m.needed_p) + ", the family's level)"
                               : std::string());
  case VerdictReason::ci_includes_no_change:
    return "significant after correction (adjusted p " + format_p(p) + "), but the 90% CI " +
           format_change_interval(m.ratio_low, m.ratio_high) + " does not clear no change";
  case VerdictReason::within_run_allowance:
    return within_allowance_text(m);
  default:
    break;
  }
  return interval_against_threshold(m, worse);
}

}  // namespace

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
  case Outcome::pass:
    return "PASS";
  case Outcome::regression:
    return "REGRESSION";
  case Outcome::not_comparable:
    return "NOT COMPARABLE";
  case Outcome::no_decision:
    return "NO DECISION";
  }
  return "PASS";
}

const char* outcome_key(Outcome outcome) {
  switch (outcome) {
  case Outcome::pass:
    return "pass";
  case Outcome::regression:
    return "regression";
  case Outcome::not_comparable:
    return "not-comparable";
  case Outcome::no_decision:
    return "no-decision";
  }
  return "pass";
}

const char* outcome_emoji(Outcome outcome) {
  switch (outcome) {
  case Outcome::pass:
    return "✅";
  case Outcome::regression:
    return "❌";
  case Outcome::not_comparable:
    return "⛔";
  case Outcome::no_decision:
    return "⚠️";
  }
  return "⚠️";
}

namespace {

// Why device time no op accounts for is shown but not judged (compare/unattributed.hpp).
std::string unattributed_text(const MetricComparison& m) {
  // Our own name, not a profile's: plain backticks like `max_excluded_share` (the reason reaches JSON as it is).
  const std::string total = "`" + std::string(k_class_total_name) + (m.ranked ? rank_suffix(m.rank) : "") +
                            (m.point.empty() ? "" : point_suffix(m.point)) + "`";
  return std::string(m.scope == MetricScope::replacement_group
                         ? "the group holds device time no op accounts for (time may have moved between its ops and "
                           "no op)"
                         : "device time no op accounts for") +
         ": counted in the device " + total + " total, which gates; not judged on its own";
}

// The reason of the verdict alone (verdict_reason_text adds the direction note).
std::string reason_of_verdict(const MetricComparison& m) {
  const double t = m.threshold;
  switch (m.why) {
  case VerdictReason::op_disappears:
    return "op disappears in head";
  case VerdictReason::op_appears:
    return "op appears in head";
  case VerdictReason::calls_changed: {
    std::ostringstream reason;
    reason << "median calls per step " << m.base_calls.value_or(0) << " -> " << m.head_calls.value_or(0);
    return reason.str();
  }
  case VerdictReason::in_replacement_group: {
    std::ostringstream reason;
    if (m.base_calls != m.head_calls) {
      reason << "median calls per step " << m.base_calls.value_or(0) << " -> " << m.head_calls.value_or(0) << "; ";
    } else {
      reason << (m.base_median.value_or(0) == 0 ? "time appears in head; " : "time disappears in head; ");
    }
    reason << "judged with its replacement group (" << k_replacement_group_name << ")";
    return reason.str();
  }
  case VerdictReason::worse_beyond_threshold:
    return "worse by " + percent(worse_of(m)) + " (threshold " + percent(1.0 + t) + "), adjusted p within alpha";
  case VerdictReason::better_beyond_threshold:
    return "better by " + percent(2.0 - worse_of(m)) + " (threshold " + percent(1.0 + t) + "), adjusted p within alpha";
  case VerdictReason::ci_within_threshold:
    return "90% CI " + format_change_interval(m.ratio_low, m.ratio_high) + " lies within ±" + percent(1.0 + t);
  case VerdictReason::ci_within_floor: {
    std::ostringstream reason;
    reason << "90% CI of the change lies within ±" << m.floor_us << " us per step (the floor)";
    return reason.str();
  }
  case VerdictReason::too_few_samples:
    return too_few_samples_text(m);
  case VerdictReason::single_run:
    return "a side has a single run: its steps do not sample run-to-run variation";
  case VerdictReason::not_attributed: {
    MetricComparison alone = m;  // the reason it had before the cap
    alone.why = m.capped_from == Verdict::improved ? VerdictReason::better_beyond_threshold
                                                   : VerdictReason::worse_beyond_threshold;
    return unattributed_text(m) + " (on its own: " + reason_of_verdict(alone) + ")";
  }
  default:
    break;
  }
  return inconclusive_text(m);
}

}  // namespace

bool ratio_against_medians(const MetricComparison& m) {
  if (!m.present_in_base || !m.present_in_head || !m.ratio || !m.base_median || !m.head_median || *m.ratio == 1.0) {
    return false;
  }
  const double change = *m.head_median - *m.base_median;
  return (*m.ratio > 1.0 && change < 0) || (*m.ratio < 1.0 && change > 0);
}

std::string medians_note(const MetricComparison& m) {
  return "the change " + format_change(m.ratio) +
         " is the Hodges–Lehmann estimate over all base × head pairs of "
         "samples and moves the other way from the two medians shown (" +
         format_value(m.base_median, m.unit, m.resolution) + " → " + format_value(m.head_median, m.unit, m.resolution) +
         "): the samples overlap, and the medians alone do not show the change";
}

std::string verdict_reason_text(const MetricComparison& m) {
  std::string reason = reason_of_verdict(m);
  if (m.unattributed && m.why != VerdictReason::not_attributed && m.verdict != Verdict::structural) {
    reason += "; " + unattributed_text(m);
  }
  if (ratio_against_medians(m)) {
    reason += "; " + medians_note(m);
  }
  if (*m.pairing != '\0') {
    reason += std::string("; ") + m.pairing;
  }
  return reason;
}

namespace {

// "`latency` (end-to-end) +7.0% (90% CI +2.0…+12.0%): worse than the 5% threshold but not established
// (<the metric's reason>); needs 14 samples per side (has 6 / 6)".
std::string no_decision_text(const Judgement& judgement) {
  const NoDecision& nd = *judgement.decision.no_decision;
  if (nd.cause == NoDecisionCause::device_time_missing) {
    const std::string where = (nd.device.sides.empty() ? std::string() : " on " + nd.device.sides) +
                              (nd.point.empty() ? std::string() : " at " + prose_code(nd.point));
    if (!nd.device.captured.empty()) {
      return "device time missing" + where + ": device activity was captured (" + prose_code(nd.device.captured) +
             ") but the profiles hold no device time, so the device's share of the step is unknown; " +
             k_device_time_not_in_trace_advice;
    }
    return "device time missing" + where + ": " + k_device_time_lost_advice;
  }
  const MetricComparison& m = judgement.metrics[nd.metric];
  if (nd.cause == NoDecisionCause::data_incomplete || nd.cause == NoDecisionCause::head_data_incomplete) {
    return inconclusive_text(m) + " (first: " + prose_code(m.name) + ", " + metric_class_label(m.metric_class) + ")" +
           (nd.cause == NoDecisionCause::head_data_incomplete ? "; re-profile head" : "");
  }
  std::string text =
      (m.metric_class == MetricClass::step_time ? std::string("profiled ") + m.name : prose_code(m.name)) + " (" +
      metric_class_label(m.metric_class) + ") " + format_change(m.ratio);
  if (m.ratio_low && m.ratio_high) {
    text += " (90% CI " + format_change_interval(m.ratio_low, m.ratio_high) + ")";
  }
  if (nd.cause == NoDecisionCause::one_process) {
    const double bound = (1.0 + m.threshold) * (1.0 + m.run_allowance) - 1.0;
    return text + ": worse than the " + format_percent(bound) + " that samples of " + std::to_string(m.base_processes) +
           " / " + std::to_string(m.head_processes) + " processes can pass (the " + format_percent(m.threshold) +
           " threshold widened by the ±" + format_number(m.run_allowance * 100.0) +
           "% between-run allowance), and not established across runs; " + "capture at least " +
           std::to_string(nd.samples_needed) + " runs per side (separate processes)";
  }
  if (nd.cause == NoDecisionCause::regression_not_excluded) {
    const bool widened = !across_runs(m) && m.run_allowance > 0;
    const double bound = widened ? (1.0 + m.threshold) * (1.0 + m.run_allowance) - 1.0 : m.threshold;
    return text + ": the 90% CI reaches beyond the " + format_percent(bound) +
           (widened ? " that samples of " + std::to_string(m.base_processes) + " / " +
                          std::to_string(m.head_processes) + " processes can pass"
                    : std::string(" threshold")) +
           ", so a regression of that size is not excluded (" + verdict_reason_text(m) +
           "); narrow it with more runs per side (separate processes; has " + std::to_string(m.base_processes) + " / " +
           std::to_string(m.head_processes) + ") or a quieter machine";
  }
  if (nd.cause == NoDecisionCause::undecided_regression) {
    text += ": worse than the " + format_percent(m.threshold) + " threshold but not established (" +
            verdict_reason_text(m) + ")";
  } else {
    const auto worse = worse_ratio(m, m.ratio);
    if (worse && *worse < 1.0) {
      // The metric that got worst still got better: no regression is named, only what is missing.
      return "too few samples to decide any gating metric (the least improved: " + text + "); needs about " +
             std::to_string(nd.samples_needed) + " samples per side (has " + std::to_string(m.base_samples.size()) +
             " / " + std::to_string(m.head_samples.size()) + ")";
    }
    text += ": too few samples to decide";
  }
  // What would decide it, from why it is undecided: more runs where the runs' medians disagree, a wider
  // threshold or a quieter machine where base's own A/A noise hides the change, else more samples.
  if (m.why == VerdictReason::runs_disagree) {
    return text + "; capture more runs per side (separate processes; has " + std::to_string(m.base_processes) + " / " +
           std::to_string(m.head_processes) + ")";
  }
  if (m.why == VerdictReason::within_noise && m.base_noise) {
    return text + "; base's own A/A noise (±" + format_number(*m.base_noise * 100.0) +
           "%) hides a change of this size: profile on a quieter machine or more runs, or widen this metric's "
           "threshold (rules `ops`)";
  }
  if (m.paired) {
    return text + "; needs about " + std::to_string(nd.samples_needed) +
           " paired runs of one capture session at this noise (has " + std::to_string(m.base_samples.size()) + ")";
  }
  return text + "; needs about " + std::to_string(nd.samples_needed) + " samples per side at this noise (has " +
         std::to_string(m.base_samples.size()) + " / " + std::to_string(m.head_samples.size()) + ")";
}

}  // namespace

std::string counts_text(const Decision& decision, const char* insufficient) {
  static const std::pair<Verdict, const char*> order[] = {
      {Verdict::regressed, "regressed"},   {Verdict::improved, "improved"},         {Verdict::structural, "structural"},
      {Verdict::equivalent, "equivalent"}, {Verdict::inconclusive, "inconclusive"}, {Verdict::insufficient, nullptr}};
  std::string line;
  for (const auto& [verdict, word] : order) {
    auto it = decision.counts.find(verdict);
    if (it != decision.counts.end() && it->second > 0) {
      line += " · " + std::to_string(it->second) + " " + (word != nullptr ? word : insufficient);
    }
  }
  return line;
}

std::string verdict_line(const Judgement& judgement, const ConditionsDiff& conditions, bool with_counts) {
  const Decision& decision = judgement.decision;
  std::string line = std::string(outcome_emoji(decision.outcome)) + " " + outcome_name(decision.outcome);
  if (decision.outcome == Outcome::not_comparable && decision.no_decision) {
    return line + " · " + no_decision_text(judgement);
  }
  if (decision.outcome == Outcome::not_comparable) {
    std::size_t differing = 0;
    for (const ConditionRow& row : conditions.rows) {
      differing += (!row.matches && !row.accepted) ? 1 : 0;
    }
    return line + " · " + std::to_string(differing) + (differing == 1 ? " condition differs" : " conditions differ");
  }
  if (decision.outcome == Outcome::no_decision && decision.no_decision) {
    line += " · " + no_decision_text(judgement);
  }
  return with_counts ? line + counts_text(decision, "insufficient (too few samples to decide)") : line;
}

}  // namespace neuron_gate
