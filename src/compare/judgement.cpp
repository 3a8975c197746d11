#include "compare/judgement.hpp"

#include "compare/material.hpp"
#include "compare/unattributed.hpp"
#include "stats/multiple_testing.hpp"
#include "stats/power.hpp"

#include <algorithm>
#include <cmath>

namespace neuron_gate {
namespace {

Family family_of(const MetricMeasurement& m) {
  if (m.explanatory) {
    return Family::device_summary;  // Neuron device summaries are a family of their own
  }
  switch (m.metric_class) {
  case MetricClass::end_to_end:
    return Family::end_to_end;
  case MetricClass::step_time:
    return Family::step_time;
  case MetricClass::device:
  case MetricClass::self_cpu:
    break;
  }
  return Family::per_op;
}

bool per_op(const MetricMeasurement& m) {
  return m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::device;
}

bool class_gates(MetricClass metric_class, const RuleSet& rules, bool have_end_to_end) {
  const GateMode mode = rules.rule_for(metric_class).gate;
  if (mode == GateMode::always) {
    return true;
  }
  if (mode == GateMode::never) {
    return false;
  }
  switch (metric_class) {
  case MetricClass::end_to_end:
    return have_end_to_end;
  case MetricClass::device:
  case MetricClass::self_cpu:
    return !have_end_to_end;
  case MetricClass::step_time:
    return false;
  }
  return false;
}

// Adjusts `p` (nullopt entries stay nullopt, and do not count in the family).
std::vector<std::optional<double>> adjust(const std::vector<std::optional<double>>& p, Correction correction) {
  std::vector<double> present;
  for (const auto& value : p) {
    if (value) {
      present.push_back(*value);
    }
  }
  const std::vector<double> adjusted = adjust_p_values(present, correction);
  std::vector<std::optional<double>> result;
  std::size_t next = 0;
  for (const auto& value : p) {
    result.push_back(value ? std::optional<double>(adjusted[next++]) : std::nullopt);
  }
  return result;
}

// Family, family size and adjusted p values of every metric with both sides present.
void adjust_families(std::vector<MetricComparison>& metrics, Correction correction) {
  for (Family family : {Family::end_to_end, Family::device_summary, Family::per_op, Family::per_op_minor,
                        Family::step_time, Family::replaced, Family::unattributed}) {
    std::vector<MetricComparison*> members;
    for (MetricComparison& m : metrics) {
      if (m.family == family && m.present_in_base && m.present_in_head) {
        members.push_back(&m);
      }
    }
    std::vector<std::optional<double>> worse, better, two_sided;
    for (const MetricComparison* m : members) {
      worse.push_back(m->p_worse);
      better.push_back(m->p_better);
      two_sided.push_back(m->p_two_sided);
    }
    const auto worse_adjusted = adjust(worse, correction);
    const auto better_adjusted = adjust(better, correction);
    const auto q = adjust(two_sided, Correction::benjamini_hochberg);
    for (std::size_t i = 0; i < members.size(); ++i) {
      members[i]->family_size = members.size();
      members[i]->p_worse_adjusted = worse_adjusted[i];
      members[i]->p_better_adjusted = better_adjusted[i];
      members[i]->q_value = q[i];
    }
  }
}

// The ratio with > 1 meaning worse, whatever the metric's direction.
std::optional<double> worse_ratio(const MetricComparison& m, std::optional<double> ratio) {
  if (!ratio || *ratio <= 0) {
    return std::nullopt;
  }
  return m.better == Better::lower ? *ratio : 1.0 / *ratio;
}

// The ratio CI lies wholly beyond the threshold on the worse side (for_worse) or the better side.
bool ci_beyond(const MetricComparison& m, bool for_worse) {
  const auto a = worse_ratio(m, m.ratio_low);
  const auto b = worse_ratio(m, m.ratio_high);
  if (!a || !b) {
    return false;
  }
  const double low = std::min(*a, *b), high = std::max(*a, *b);
  return for_worse ? low >= 1.0 + m.threshold : high <= 1.0 - m.threshold;
}

// The ratio CI's end nearest to no change, as a worse ratio (> 1 worse), in the direction of the change.
std::optional<double> near_end(const MetricComparison& m, bool for_worse) {
  const auto a = worse_ratio(m, m.ratio_low);
  const auto b = worse_ratio(m, m.ratio_high);
  if (!a || !b) {
    return std::nullopt;
  }
  return for_worse ? std::min(*a, *b) : std::max(*a, *b);
}

// Per op: the change clears base's own A/A noise (issue 14 item 3): the near end of the ratio CI (widened
// by the timer resolution) lies beyond 1 ± the noise (0 when not estimated). Checked only where the noise
// or the resolution is known; true for other metrics.
bool clears_noise(const MetricComparison& m, bool for_worse) {
  if (!per_op(m) || (!m.base_noise && !m.resolution)) {
    return true;
  }
  const auto end = near_end(m, for_worse);
  const double noise = m.base_noise.value_or(0.0);
  return end && (for_worse ? *end > 1.0 + noise : *end < 1.0 - noise);
}

// Self CPU time of one process per side: its steps share the process's state, so a difference is not
// established across runs (issue 14 item 4). Device time is measured on the device and keeps deciding.
bool one_process(const MetricComparison& m) {
  return m.metric_class == MetricClass::self_cpu && (m.base_processes == 1 || m.head_processes == 1);
}

// Why a significant change beyond the threshold and floor was not called a change; nullopt when it was.
std::optional<VerdictReason> change_blocked(const MetricComparison& m, double worse) {
  const bool for_worse = worse >= 1.0;
  if (one_process(m)) {
    return VerdictReason::not_across_runs;
  }
  if (m.run_allowance > 0 && (for_worse ? worse < 1.0 + m.run_allowance : worse > 1.0 - m.run_allowance)) {
    return VerdictReason::within_run_allowance;
  }
  if (!clears_noise(m, for_worse)) {
    return m.base_noise ? VerdictReason::within_noise : VerdictReason::within_resolution;
  }
  return std::nullopt;
}

// The reason an undecided metric with enough samples is INCONCLUSIVE, the one that holds.
VerdictReason inconclusive_reason(const MetricComparison& m, bool above_floor) {
  if (!m.ratio) {
    return VerdictReason::no_ratio;
  }
  if (!m.ratio_low || !m.ratio_high) {
    return VerdictReason::no_interval;
  }
  const auto worse = worse_ratio(m, m.ratio);
  const bool beyond = worse && (*worse >= 1.0 + m.threshold || *worse <= 1.0 - m.threshold);
  const bool significant = (worse && *worse >= 1.0) ? m.significant_worse : m.significant_better;
  if (significant && beyond && !above_floor) {
    return VerdictReason::below_floor;
  }
  if (significant && beyond) {
    if (auto blocked = change_blocked(m, *worse)) {
      return *blocked;
    }
  }
  if (ci_beyond(m, true) || ci_beyond(m, false)) {
    return significant ? VerdictReason::below_floor : VerdictReason::adjusted_p_not_reached;
  }
  return significant ? VerdictReason::significant_size_open : VerdictReason::threshold_straddled;
}

// Quantised data whose unwidened shift CI lies within one quantum of no change.
bool within_one_quantum(const MetricComparison& m) {
  if (!m.resolution || !m.shift_low || !m.shift_high) {
    return false;
  }
  const double q = *m.resolution;
  return *m.shift_low + q >= -q && *m.shift_high - q <= q;
}

// The shift CI inside ±floor: inclusive, or strictly for quantised data (an interval of exactly ±one
// quantum cannot tell no change from a whole quantum).
bool shift_within_floor(const MetricComparison& m) {
  if (!per_op(m) || !m.shift_low || !m.shift_high) {
    return false;
  }
  if (m.resolution) {
    return *m.shift_low > -m.floor_us && *m.shift_high < m.floor_us;
  }
  return *m.shift_low >= -m.floor_us && *m.shift_high <= m.floor_us;
}

// The verdict rules of judge() (judgement.hpp), in order.
void give_verdict(MetricComparison& m) {
  if ((m.base_screened && m.base_excluded_share > m.max_excluded_share) ||
      (m.head_screened && m.head_excluded_share > m.max_excluded_share)) {
    m.verdict = Verdict::inconclusive;
    m.why = VerdictReason::data_incomplete;
    return;
  }
  if (!m.present_in_base || !m.present_in_head) {
    m.verdict = Verdict::structural;
    m.why = m.present_in_base ? VerdictReason::op_disappears : VerdictReason::op_appears;
    return;
  }
  if (m.family == Family::replaced) {
    m.verdict = Verdict::structural;  // judged through its replacement group, never twice
    m.why = VerdictReason::in_replacement_group;
    return;
  }
  const auto worse = worse_ratio(m, m.ratio);
  const bool above_floor = !per_op(m) || (m.shift ? std::fabs(*m.shift) : 0.0) >= m.floor_us;
  const double t = m.threshold;
  if (m.metric_class == MetricClass::step_time && (m.base_runs < 2 || m.head_runs < 2)) {
    // Step time holds data loading and profiler overhead, which vary from run to run: the steps of
    // one run cannot show that a step-time change belongs to the code.
    m.verdict = Verdict::inconclusive;
    m.why = VerdictReason::single_run;
    return;
  }
  const bool decidable = worse && !change_blocked(m, *worse);
  if (m.significant_worse && worse && *worse >= 1.0 + t && above_floor && decidable) {
    m.verdict = Verdict::regressed;
    m.why = VerdictReason::worse_beyond_threshold;
  } else if (m.calls_changed) {
    m.verdict = Verdict::structural;
    m.why = VerdictReason::calls_changed;
  } else if (m.significant_better && worse && *worse <= 1.0 - t && above_floor && decidable) {
    m.verdict = Verdict::improved;
    m.why = VerdictReason::better_beyond_threshold;
  } else if (m.ratio_low && m.ratio_high && *m.ratio_low >= 1.0 - t && *m.ratio_high <= 1.0 + t) {
    m.verdict = Verdict::equivalent;
    m.why = VerdictReason::ci_within_threshold;
  } else if (shift_within_floor(m)) {
    m.verdict = Verdict::equivalent;
    m.why = VerdictReason::ci_within_floor;
  } else if (within_one_quantum(m)) {
    m.verdict = Verdict::inconclusive;
    m.why = VerdictReason::within_resolution;
  } else if (smallest_attainable_p(m.base_samples.size(), m.head_samples.size(), true) > m.needed_p) {
    m.verdict = Verdict::insufficient;
    m.why = VerdictReason::too_few_samples;
    m.samples_needed = samples_needed_per_side(m.needed_p);
  } else {
    m.verdict = Verdict::inconclusive;
    m.why = inconclusive_reason(m, above_floor);
  }
}

// Every judgement field of one metric, after its family was adjusted.
void judge_metric(MetricComparison& m, const RuleSet& rules, const std::vector<MetricClass>& gating_classes,
                  const DecideOptions& options) {
  m.alpha = rules.alpha;
  m.needed_p = family_alpha(rules.alpha, m.family_size);
  m.threshold = rules.threshold_for(m.metric_class, unranked_name(m));
  m.floor_us = per_op(m) ? rules.floor_us : 0.0;
  if (per_op(m)) {
    for (const BaseNoise& noise : options.base_noise) {
      if (noise.metric_class == m.metric_class && noise.scope == m.scope && noise.name == m.name) {
        m.base_noise = noise.noise_floor;
      }
    }
  }
  if (m.metric_class == MetricClass::end_to_end &&
      (m.base_processes < k_min_runs_for_e2e_run_unit || m.head_processes < k_min_runs_for_e2e_run_unit)) {
    m.run_allowance = rules.between_run_allowance;
  }
  m.max_excluded_share = rules.max_excluded_share;
  m.significant_worse = m.p_worse_adjusted && *m.p_worse_adjusted <= rules.alpha;
  m.significant_better = m.p_better_adjusted && *m.p_better_adjusted <= rules.alpha;
  m.gating = std::find(gating_classes.begin(), gating_classes.end(), m.metric_class) != gating_classes.end() &&
             (!m.explanatory || rules.end_to_end.gate == GateMode::always) && m.material &&
             m.family != Family::replaced && m.family != Family::unattributed;
  give_verdict(m);
  cap_unattributed(m);
  if (m.verdict != Verdict::regressed && m.verdict != Verdict::improved && m.verdict != Verdict::structural) {
    m.minimum_detectable_ratio = minimum_detectable_ratio(m.base_samples, m.head_samples, m.needed_p);
  }
  m.worth_a_look = m.verdict != Verdict::regressed && m.verdict != Verdict::improved && !m.capped_from && m.q_value &&
                   *m.q_value <= rules.alpha && m.ratio && std::fabs(*m.ratio - 1.0) >= m.threshold &&
                   m.metric_class != MetricClass::end_to_end;
  if (m.verdict == Verdict::regressed && !options.today.empty()) {
    const Waiver* waiver = rules.waiver_for(m.name, options.today);
    if (waiver == nullptr && (m.ranked || !m.point.empty())) {
      // a pattern for the op covers every rank and every operating point
      waiver = rules.waiver_for(unranked_name(m), options.today);
    }
    if (waiver != nullptr) {
      m.waiver = waiver->reason + " (until " + waiver->expires + ")";
      m.waiver_until = waiver->expires;
    }
  }
}

bool undecided(Verdict verdict) {
  return verdict == Verdict::inconclusive || verdict == Verdict::insufficient;
}

// |ln ratio|: the size of a change in either direction (0 without a ratio).
double log_change(const MetricComparison& m) {
  return m.ratio && *m.ratio > 0 ? std::fabs(std::log(*m.ratio)) : 0.0;
}

// Samples per side that would let `m` be decided: enough for its needed p to be attainable at all and,
// for an effect the CI puts beyond the threshold, enough power (0.8) to detect the observed ratio at the
// observed noise (stats/power.hpp), and always more than it has.
std::size_t samples_to_decide(const MetricComparison& m, NoDecisionCause cause) {
  std::size_t needed = samples_needed_per_side(m.needed_p);
  if (cause == NoDecisionCause::adjusted_p_not_reached) {
    if (m.ratio) {
      if (auto n = samples_to_detect(m.base_samples, m.head_samples, *m.ratio, m.needed_p)) {
        needed = std::max(needed, *n);
      }
    }
    needed = std::max(needed, std::min(m.base_samples.size(), m.head_samples.size()) + 1);
  }
  return needed;
}

// NO DECISION (issue 11, 22): a gating metric's ratio CI wholly beyond its threshold on the worse side
// while its adjusted p cannot pass; or no gating metric decided and one undecided for lack of samples.
std::optional<NoDecision> no_decision(const std::vector<MetricComparison>& metrics) {
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i].gating && metrics[i].why == VerdictReason::data_incomplete) {
      return NoDecision{NoDecisionCause::data_incomplete, i, 0};  // issue 13 item 2: never a pass
    }
  }
  std::optional<std::size_t> beyond, lacking, one_run_change;
  bool any_decided = false;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (!m.gating) {
      continue;
    }
    any_decided = any_decided || m.verdict == Verdict::regressed || m.verdict == Verdict::improved ||
                  m.verdict == Verdict::equivalent;
    if (undecided(m.verdict) && !m.significant_worse && ci_beyond(m, true) && !beyond) {
      beyond = i;
    }
    // Of the metrics lacking samples, the headline names the one that changed most.
    const bool lack = m.verdict == Verdict::insufficient || m.why == VerdictReason::single_run;
    if (lack && (!lacking || log_change(m) > log_change(metrics[*lacking]))) {
      lacking = i;
    }
    const bool one_run = m.why == VerdictReason::not_across_runs || m.why == VerdictReason::within_run_allowance;
    if (one_run && worse_ratio(m, m.ratio).value_or(0.0) > 1.0 && (!one_run_change || log_change(m) > log_change(metrics[*one_run_change]))) {
      one_run_change = i;
    }
  }
  if (one_run_change && !beyond) {
    // A significant change beyond the threshold that one process per side cannot establish: never a pass.
    const bool e2e = metrics[*one_run_change].metric_class == MetricClass::end_to_end;
    return NoDecision{NoDecisionCause::one_process, *one_run_change,
                      e2e ? k_min_runs_for_e2e_run_unit : k_runs_to_establish};
  }
  if (beyond) {
    const NoDecisionCause cause = NoDecisionCause::adjusted_p_not_reached;
    return NoDecision{cause, *beyond, samples_to_decide(metrics[*beyond], cause)};
  }
  if (!any_decided && lacking) {
    const NoDecisionCause cause = NoDecisionCause::too_few_samples;
    return NoDecision{cause, *lacking, samples_to_decide(metrics[*lacking], cause)};
  }
  return std::nullopt;
}

void count_and_decide(Judgement& result, const ConditionsDiff& conditions, const DecideOptions& options) {
  Decision& decision = result.decision;
  bool any_undecided = false;
  for (const MetricComparison& m : result.metrics) {
    ++decision.counts[m.verdict];
    if (m.gating) {
      ++decision.gating_counts[m.verdict];
      any_undecided = any_undecided || undecided(m.verdict);
      if (m.verdict == Verdict::regressed && !m.waiver) {
        decision.regressed.push_back(m.name);
      }
    }
  }
  if (!conditions.comparable()) {
    decision.outcome = Outcome::not_comparable;
  } else if (!decision.regressed.empty()) {
    decision.outcome = Outcome::regression;
  } else if ((decision.no_decision = no_decision(result.metrics))) {
    decision.outcome = Outcome::no_decision;
  } else if (options.strict && any_undecided) {
    decision.outcome = Outcome::inconclusive;
  } else {
    decision.outcome = Outcome::pass;
  }
  decision.exit_code = exit_code(decision.outcome, options.strict);
}

} // namespace

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
  case Verdict::regressed:
    return "REGRESSED";
  case Verdict::improved:
    return "IMPROVED";
  case Verdict::equivalent:
    return "EQUIVALENT";
  case Verdict::inconclusive:
    return "INCONCLUSIVE";
  case Verdict::insufficient:
    return "INSUFFICIENT";
  case Verdict::structural:
    return "STRUCTURAL";
  }
  return "INCONCLUSIVE";
}

const char* family_name(Family family) {
  switch (family) {
  case Family::end_to_end:
    return "end-to-end";
  case Family::device_summary:
    return "device summary";
  case Family::per_op:
    return "per-op";
  case Family::per_op_minor:
    return "per-op (not material)";
  case Family::step_time:
    return "step time";
  case Family::replaced:
    return "per-op (replaced)";
  case Family::unattributed:
    return "per-op (not attributed)";
  }
  return "per-op";
}

double family_alpha(double alpha, std::size_t family_size) {
  return alpha / static_cast<double>(std::max<std::size_t>(1, family_size));
}

int exit_code(Outcome outcome, bool strict) {
  switch (outcome) {
  case Outcome::pass:
    return 0;
  case Outcome::regression:
    return 1;
  case Outcome::not_comparable:
    return 3;
  case Outcome::inconclusive:
    return 4;
  case Outcome::no_decision:
    return strict ? 4 : 0;
  }
  return 2;
}

Judgement judge_in_place(std::vector<MetricComparison> measured, const ConditionsDiff& conditions, const RuleSet& rules,
                         const DecideOptions& options) {
  Judgement result;
  const bool have_end_to_end = std::any_of(measured.begin(), measured.end(), [](const MetricComparison& m) {
    return m.metric_class == MetricClass::end_to_end && !m.explanatory;
  });
  for (MetricClass c : {MetricClass::end_to_end, MetricClass::device, MetricClass::self_cpu, MetricClass::step_time}) {
    if (class_gates(c, rules, have_end_to_end)) {
      result.decision.gating_classes.push_back(c);
    }
  }
  result.metrics = std::move(measured);
  for (MetricComparison& m : result.metrics) {
    m.family = family_of(m);
  }
  result.decision.material = select_material(result.metrics, rules.material_share);
  mark_unattributed(result.metrics, rules.floor_us, result.decision.material);
  adjust_families(result.metrics, rules.correction);
  for (MetricComparison& m : result.metrics) {
    judge_metric(m, rules, result.decision.gating_classes, options);
  }
  count_and_decide(result, conditions, options);
  return result;
}

void decide(Judgement& judgement, const ConditionsDiff& conditions, const DecideOptions& options) {
  count_and_decide(judgement, conditions, options);
}

} // namespace neuron_gate
