#include "compare/judgement.hpp"

#include "profile/device_capture.hpp"
#include "stats/power.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

// The decision rule (docs/decision-rule.md): who gates, and the outcome and exit code from the judged
// metrics. Verdicts per metric are judgement.cpp's.

namespace neuron_gate {
namespace {

bool per_op_class(const MetricComparison& m) {
  return m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::device;
}

// Samples per side (pairs, for a paired metric) that would let `m` be decided: enough for its needed p to
// be attainable at all and, for an effect the CI puts beyond the threshold, enough power (0.8) to detect
// the observed ratio at the observed noise (stats/power.hpp; unpaired only), and always more than it has.
std::size_t samples_to_decide(const MetricComparison& m, NoDecisionCause cause) {
  std::size_t needed = samples_needed(m);
  if (cause == NoDecisionCause::undecided_regression) {
    if (m.ratio && !m.paired) {
      if (auto n = samples_to_detect(m.base_samples, m.head_samples, *m.ratio, m.needed_p)) {
        needed = std::max(needed, *n);
      }
    }
    needed = std::max(needed, std::min(m.base_samples.size(), m.head_samples.size()) + 1);
  }
  return needed;
}

// The largest worse ratio an undecided gating metric may show and still pass (docs/decision-rule.md): its
// threshold when its samples span enough processes a side, else the threshold widened by the between-run
// allowance it carries, (1 + t)(1 + allowance).
double undecided_bound(const MetricComparison& m) {
  const double bound = 1.0 + m.threshold;
  return across_runs(m) ? bound : bound * (1.0 + m.run_allowance);
}

// An undecided gating metric whose estimate is worse than undecided_bound() and could still be REGRESSED
// with more evidence: per op, its shift reaches the floor. An insignificant change of a quantum-sized op
// (quantum_sized: base median under 3 quanta) must also exceed one timer quantum and not lie within one
// (within_resolution); for larger ops one quantum is a change like any other (a 3 µs op x1.5 reads +1 µs),
// and a significant change never passes for being small in quanta (monotone in evidence:
// docs/decision-rule.md). Its log worse ratio (> 0); nullopt when it may pass. A metric without a ratio (base median 0:
// ops that appear) is left to its class total `all ops`, which holds the same time and has a ratio.
std::optional<double> undecided_regression(const MetricComparison& m) {
  if (!m.gating || !undecided(m.verdict)) {
    return std::nullopt;
  }
  const double shift = m.shift ? std::fabs(*m.shift) : 0.0;
  if (per_op_class(m) && shift < m.floor_us) {
    return std::nullopt;
  }
  if (!m.significant_worse && per_op_class(m) && quantum_sized(m) &&
      (m.why == VerdictReason::within_resolution || shift <= *m.resolution)) {
    return std::nullopt;  // one timer quantum without significance: no sample count can show it
  }
  const auto worse = worse_ratio(m, m.ratio);
  return worse && *worse >= undecided_bound(m) ? std::optional<double>(std::log(*worse)) : std::nullopt;
}

// An undecided gating metric whose estimate is within its bound but whose 90% CI reaches beyond it: a
// regression beyond the threshold is not excluded, so it never passes (docs/decision-rule.md). Per op, the
// CI's worse end of the shift must reach the floor, and an insignificant quantum-sized op's more than one
// quantum, as undecided_regression() asks of the estimate; an insignificant change within one timer quantum
// (within_resolution) reaches beyond only by the quantum its CI is widened by. Its log worse CI end (> 0);
// nullopt otherwise.
std::optional<double> regression_not_excluded(const MetricComparison& m) {
  if (!m.gating || !undecided(m.verdict)) {
    return std::nullopt;
  }
  const auto low = worse_ratio(m, m.ratio_low), high = worse_ratio(m, m.ratio_high);
  if (!low || !high || std::max(*low, *high) <= undecided_bound(m) * (1.0 + k_bound_tolerance)) {
    return std::nullopt;
  }
  if (per_op_class(m)) {
    const double reach_us = m.shift_high.value_or(0.0);  // per-op time: lower is better
    if (reach_us < m.floor_us) {
      return std::nullopt;
    }
    if (!m.significant_worse &&
        (m.why == VerdictReason::within_resolution || (quantum_sized(m) && reach_us <= *m.resolution))) {
      return std::nullopt;  // the CI reaches beyond by the quantum it is widened by, not by evidence
    }
  }
  return std::log(std::max(*low, *high));
}

// The NO DECISION for the worst undecided regression `m`: runs per side when its samples do not span enough
// processes, else samples per side.
NoDecision undecided_regression_decision(const MetricComparison& m, std::size_t index) {
  if (!across_runs(m)) {
    const bool e2e = m.metric_class == MetricClass::end_to_end;
    return NoDecision{
        NoDecisionCause::one_process, index, e2e ? k_min_runs_for_e2e_run_unit : k_processes_to_establish, {}, {}};
  }
  const bool lack = m.verdict == Verdict::insufficient || m.why == VerdictReason::single_run;
  const NoDecisionCause cause = lack ? NoDecisionCause::too_few_samples : NoDecisionCause::undecided_regression;
  return NoDecision{cause, index, samples_to_decide(m, cause), {}, {}};
}

// NO DECISION (docs/decision-rule.md): a gating metric with incomplete data (head's alone first: the caller
// makes that NOT COMPARABLE); else the worst undecided
// gating metric whose estimate is worse than its bound (undecided_regression); else the undecided gating
// metric whose CI reaches furthest beyond its bound (regression_not_excluded; end to end first), after the one lacking
// samples that changed most when no gating metric decided (what would decide is then more samples).
std::optional<NoDecision> no_decision(const std::vector<MetricComparison>& metrics) {
  std::optional<NoDecision> incomplete;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (m.gating && m.why == VerdictReason::data_incomplete) {
      // issue 13 item 2: never a pass; head's data alone beyond the limit fail closed (issue 36 item 6)
      const bool base_incomplete = m.base_screened && m.base_excluded_share > m.max_excluded_share;
      if (!base_incomplete) {
        return NoDecision{NoDecisionCause::head_data_incomplete, i, 0, {}, {}};
      }
      incomplete = incomplete.value_or(NoDecision{NoDecisionCause::data_incomplete, i, 0, {}, {}});
    }
  }
  if (incomplete) {
    return incomplete;
  }
  std::optional<std::size_t> worst, lacking, reaching;
  std::optional<double> worst_change, widest_reach;
  double worst_size = 0;
  bool any_decided = false;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (!m.gating) {
      continue;
    }
    any_decided = any_decided || m.verdict == Verdict::regressed || m.verdict == Verdict::improved ||
                  m.verdict == Verdict::equivalent;
    if (const auto change = undecided_regression(m)) {
      // The worst: end to end before per op; per op the largest growth in µs per step (a 1 µs op that
      // doubles is a smaller regression than a 100 µs op +20%); then the largest relative change.
      const double size = m.metric_class == MetricClass::end_to_end ? HUGE_VAL : std::fabs(m.shift.value_or(0.0));
      if (!worst || size > worst_size || (size == worst_size && *change > *worst_change)) {
        worst = i;
        worst_change = change;
        worst_size = size;
      }
    }
    // The widest reach, end to end before per op (as for the worst above: the headline names the latency
    // whose CI straddles the threshold, not an unchanged op whose noisy CI reaches further).
    if (const auto reach = regression_not_excluded(m)) {
      const bool e2e = m.metric_class == MetricClass::end_to_end;
      const bool reaching_e2e = reaching && metrics[*reaching].metric_class == MetricClass::end_to_end;
      if (!reaching || (e2e && !reaching_e2e) || (e2e == reaching_e2e && *reach > *widest_reach)) {
        reaching = i;
        widest_reach = reach;
      }
    }
    // Of the metrics lacking samples, the headline names the one that changed most for the worse (an
    // improvement only when nothing got worse).
    const bool lack = m.verdict == Verdict::insufficient || m.why == VerdictReason::single_run;
    if (lack && (!lacking || worse_ratio(m, m.ratio).value_or(0.0) >
                                 worse_ratio(metrics[*lacking], metrics[*lacking].ratio).value_or(0.0))) {
      lacking = i;
    }
  }
  if (worst) {
    return undecided_regression_decision(metrics[*worst], *worst);
  }
  if (!any_decided && lacking) {
    const NoDecisionCause cause = NoDecisionCause::too_few_samples;
    return NoDecision{cause, *lacking, samples_to_decide(metrics[*lacking], cause), {}, {}};
  }
  if (reaching) {
    return NoDecision{NoDecisionCause::regression_not_excluded, *reaching, 0, {}, {}};
  }
  return std::nullopt;
}

// Who gates (docs/decision-rule.md), point by point: end-to-end metrics gate when present; the per-op family
// (MetricJudgement::gates_under_undecided_end_to_end) of an operating point gates too when a gating end-to-end
// metric of that point is undecided, and alone at a point that has no end-to-end metric. So every point's
// own verdict (operating_points.cpp) agrees with the whole one.
void escalate_to_per_op(Judgement& result) {
  std::set<std::string_view> with_end_to_end, undecided_end_to_end;
  for (const MetricComparison& m : result.metrics) {
    if (m.metric_class == MetricClass::end_to_end && !m.explanatory) {
      with_end_to_end.insert(m.point);
    }
    if (m.gating && m.metric_class == MetricClass::end_to_end && undecided(m.verdict)) {
      undecided_end_to_end.insert(m.point);
    }
  }
  std::vector<MetricClass>& classes = result.decision.gating_classes;
  for (MetricComparison& m : result.metrics) {
    if (!m.gates_under_undecided_end_to_end) {
      continue;
    }
    m.gating = undecided_end_to_end.count(m.point) != 0 || with_end_to_end.count(m.point) == 0;
    if (m.gating && std::find(classes.begin(), classes.end(), m.metric_class) == classes.end()) {
      classes.push_back(m.metric_class);
    }
  }
}

// The replacement-group exception (docs/decision-rule.md): a self CPU op REGRESSED or undecided whose growth
// per step is smaller than its replacement group's shrinkage (same class, point and rank) does not gate. The
// undecided one too (monotone in evidence): else the same growth without significance made NO DECISION
// where the REGRESSED one passed.
void offset_by_replacement(std::vector<MetricComparison>& metrics) {
  std::vector<const MetricComparison*> groups;  // a few: one per class, point and rank at most
  for (const MetricComparison& m : metrics) {
    if (m.scope == MetricScope::replacement_group && m.metric_class == MetricClass::self_cpu && m.shift &&
        *m.shift < 0) {
      groups.push_back(&m);
    }
  }
  for (MetricComparison& m : metrics) {
    if (groups.empty() || (m.verdict != Verdict::regressed && !undecided(m.verdict)) ||
        m.metric_class != MetricClass::self_cpu || m.scope != MetricScope::op || !m.shift || *m.shift <= 0) {
      continue;
    }
    for (const MetricComparison* group : groups) {
      if (group->point == m.point && group->rank == m.rank && -*group->shift > *m.shift) {
        m.offset_by_replacement = true;
        m.gating = false;
        m.gates_under_undecided_end_to_end = false;
      }
    }
  }
}

void count_and_decide_impl(Judgement& result, const ConditionsDiff& conditions, const DecideOptions& options) {
  offset_by_replacement(result.metrics);
  escalate_to_per_op(result);
  Decision& decision = result.decision;
  for (const MetricComparison& m : result.metrics) {
    ++decision.counts[m.verdict];
    if (m.gating) {
      ++decision.gating_counts[m.verdict];
      if (m.verdict == Verdict::regressed && !m.waiver) {
        decision.regressed.push_back(m.name);
      }
    }
  }
  const std::optional<NoDecision> undecided_outcome = no_decision(result.metrics);
  const bool head_incomplete = undecided_outcome && undecided_outcome->cause == NoDecisionCause::head_data_incomplete;
  if (!conditions.comparable()) {
    decision.outcome = Outcome::not_comparable;
  } else if (!decision.regressed.empty()) {
    decision.outcome = Outcome::regression;
  } else if (head_incomplete) {
    decision.outcome = Outcome::not_comparable;  // head's evidence is the PR's: re-profile head
    decision.no_decision = undecided_outcome;
  } else if ((decision.no_decision = undecided_outcome)) {
    decision.outcome = Outcome::no_decision;
  } else if (!options.device_time_missing.sides.empty() &&
             std::none_of(result.metrics.begin(), result.metrics.end(), [&](const MetricComparison& m) {
               return m.metric_class == MetricClass::device &&
                      (options.device_time_missing_point.empty() || m.point == options.device_time_missing_point);
             })) {
    decision.outcome = Outcome::no_decision;  // the device's time is unknown: never a pass
    decision.no_decision = NoDecision{NoDecisionCause::device_time_missing, 0, 0, options.device_time_missing_point,
                                      options.device_time_missing};
  } else {
    decision.outcome = Outcome::pass;
  }
  decision.exit_code = exit_code(decision.outcome, options.strict);
}

}  // namespace

int exit_code(Outcome outcome, bool strict) {
  switch (outcome) {
  case Outcome::pass:
    return 0;
  case Outcome::regression:
    return 1;
  case Outcome::not_comparable:
    return 3;
  case Outcome::no_decision:
    return strict ? 4 : 0;
  }
  return 2;
}

DeviceTimeMissing device_time_missing(const SideSamples& base, const SideSamples& head) {
  const bool in_base = device_time_unknown(base), in_head = device_time_unknown(head);
  DeviceTimeMissing missing;
  missing.sides = in_base && in_head ? "base and head" : in_base ? "base" : in_head ? "head" : "";
  const SideSamples* first = in_base ? &base : in_head ? &head : nullptr;
  if (first != nullptr && !first->screened.device_time_lost) {
    missing.captured = device_capture_sign(*first);
  }
  return missing;
}

void decide(Judgement& judgement, const ConditionsDiff& conditions, const DecideOptions& options) {
  count_and_decide_impl(judgement, conditions, options);
}

}  // namespace neuron_gate
