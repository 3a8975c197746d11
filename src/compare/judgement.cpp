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
  if (m.explanatory) {  // Neuron device summaries and metrics marked "gates": false are families of their own
    return m.declared_explanatory ? Family::end_to_end_explains : Family::device_summary;
  }
  if (m.runtime_call) {
    return Family::runtime_calls;
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
  for (Family family : k_families) {
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

// The ratio CI lies wholly beyond the threshold on the worse side (for_worse) or the better side.
bool ci_beyond(const MetricComparison& m, bool for_worse) {
  const auto a = worse_ratio(m, m.ratio_low);
  const auto b = worse_ratio(m, m.ratio_high);
  if (!a || !b) {
    return false;
  }
  const double low = std::min(*a, *b), high = std::max(*a, *b);
  return for_worse ? low > (1.0 + m.threshold) * (1.0 + k_bound_tolerance)
                   : high < (1.0 - m.threshold) * (1.0 - k_bound_tolerance);
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

// The change clears no change, and per op base's own A/A noise (issue 14 item 3): the near end of the ratio
// CI (widened by the timer resolution) lies beyond 1 ± the noise (0 when not estimated, and for other
// metrics), so a verdict never contradicts its own interval. Without a CI: false only for a per-op metric
// whose noise or resolution is known.
bool clears_noise(const MetricComparison& m, bool for_worse) {
  const auto end = near_end(m, for_worse);
  if (!end) {
    return !per_op(m) || (!m.base_noise && !m.resolution);
  }
  const double noise = per_op(m) ? m.base_noise.value_or(0.0) : 0.0;
  return for_worse ? *end > (1.0 + noise) * (1.0 + k_bound_tolerance)
                   : *end < (1.0 - noise) * (1.0 - k_bound_tolerance);
}

// Self CPU or step time of fewer than k_processes_to_establish processes a side: the steps of one process
// share its state, so a difference is not established across runs (docs/decision-rule.md). Device time is
// measured on the device and keeps deciding.
bool one_process(const MetricComparison& m) {
  return (m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::step_time) && !across_runs(m);
}

// The change holds across runs: no between-run interval (MetricMeasurement::runs_ratio_low/high), or its
// end nearest to no change lies beyond 1 in the direction of the change and the runs' one-sided Welch p
// reaches the family's corrected level (needed_p): one of twenty ops whose runs happen to differ at 5%
// (a loaded runner slowing some of head's processes) is not a regression of that op.
bool runs_agree(const MetricComparison& m, bool for_worse) {
  const auto a = worse_ratio(m, m.runs_ratio_low);
  const auto b = worse_ratio(m, m.runs_ratio_high);
  if (!a || !b) {
    return !m.runs_ratio_low && !m.runs_ratio_high;
  }
  const bool interval_clears =
      for_worse ? std::min(*a, *b) > 1.0 + k_bound_tolerance : std::max(*a, *b) < 1.0 - k_bound_tolerance;
  // the interval clears no change in the change's direction, so the one-sided p is half the two-sided one
  return interval_clears && (!m.runs_p_two_sided || *m.runs_p_two_sided / 2.0 <= m.needed_p);
}

// Why a significant change beyond the threshold and floor was not called a change; nullopt when it was.
std::optional<VerdictReason> change_blocked(const MetricComparison& m, double worse) {
  const bool for_worse = worse >= 1.0;
  if (one_process(m)) {
    return VerdictReason::not_across_runs;
  }
  // Within the allowance; from 1-2 processes a side within the threshold widened by it, (1 + t)(1 + a), the
  // bound an undecided metric passes within (docs/decision-rule.md): else process noise alone fails.
  const double t = across_runs(m) ? 0.0 : m.threshold;
  if (m.run_allowance > 0 &&
      (for_worse ? worse < (1.0 + t) * (1.0 + m.run_allowance) : worse > (1.0 - t) * (1.0 - m.run_allowance))) {
    return VerdictReason::within_run_allowance;
  }
  if (!clears_noise(m, for_worse)) {
    return per_op(m) && m.base_noise   ? VerdictReason::within_noise
           : per_op(m) && m.resolution ? VerdictReason::within_resolution
                                       : VerdictReason::ci_includes_no_change;
  }
  if (!runs_agree(m, for_worse)) {
    return VerdictReason::runs_disagree;
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

// EQUIVALENT's interval test: the ratio CI, widened by the between-run allowance where the samples do not
// span enough processes (m.run_allowance), inside [1 - t, 1 + t]; and the between-run interval, where
// there is one, inside it too.
bool ci_within_threshold(const MetricComparison& m) {
  if (!m.ratio_low || !m.ratio_high) {
    return false;
  }
  const double widen = 1.0 + m.run_allowance;
  const bool runs_within = !m.runs_ratio_low || !m.runs_ratio_high ||
                           (*m.runs_ratio_low >= 1.0 - m.threshold && *m.runs_ratio_high <= 1.0 + m.threshold);
  return runs_within && *m.ratio_low / widen >= 1.0 - m.threshold && *m.ratio_high * widen <= 1.0 + m.threshold;
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
  } else if (ci_within_threshold(m)) {
    m.verdict = Verdict::equivalent;
    m.why = VerdictReason::ci_within_threshold;
  } else if (shift_within_floor(m)) {
    m.verdict = Verdict::equivalent;
    m.why = VerdictReason::ci_within_floor;
  } else if (within_one_quantum(m)) {
    m.verdict = Verdict::inconclusive;
    m.why = VerdictReason::within_resolution;
  } else if (needed_p_out_of_reach(m)) {
    m.verdict = Verdict::insufficient;
    m.why = VerdictReason::too_few_samples;
    m.samples_needed = samples_needed(m);
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
  if ((m.metric_class == MetricClass::end_to_end &&
       (m.base_processes < k_min_runs_for_e2e_run_unit || m.head_processes < k_min_runs_for_e2e_run_unit)) ||
      one_process(m)) {
    m.run_allowance = rules.between_run_allowance;
  }
  m.max_excluded_share = rules.max_excluded_share;
  m.significant_worse = m.p_worse_adjusted && *m.p_worse_adjusted <= rules.alpha;
  m.significant_better = m.p_better_adjusted && *m.p_better_adjusted <= rules.alpha;
  const bool can_gate = (!m.explanatory || rules.end_to_end.gate == GateMode::always) && m.material &&
                        m.family != Family::replaced && m.family != Family::unattributed &&
                        (m.family != Family::runtime_calls || rules.gate_runtime_calls);
  m.gating =
      can_gate && std::find(gating_classes.begin(), gating_classes.end(), m.metric_class) != gating_classes.end();
  m.gates_under_undecided_end_to_end =
      can_gate && !m.gating && per_op(m) && rules.rule_for(m.metric_class).gate == GateMode::automatic;
  give_verdict(m);
  cap_unattributed(m);
  if (m.verdict != Verdict::regressed && m.verdict != Verdict::improved && m.verdict != Verdict::structural) {
    m.minimum_detectable_ratio = minimum_detectable_ratio(m.base_samples, m.head_samples, m.needed_p);
  }
  // Not where the pooled samples' q says nothing of the change: steps of fewer than 3 processes (their q
  // reads 1e-8 beside "not established across runs"), a change within one timer quantum (1 -> 2 us, +100%).
  const bool q_meaningless = m.why == VerdictReason::not_across_runs || m.why == VerdictReason::within_resolution;
  m.worth_a_look = m.verdict != Verdict::regressed && m.verdict != Verdict::improved && !m.capped_from && m.q_value &&
                   *m.q_value <= rules.alpha && m.ratio && std::fabs(*m.ratio - 1.0) >= m.threshold &&
                   m.metric_class != MetricClass::end_to_end && !q_meaningless;
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

// Paired runs too few to decide never hide a regression (docs/decision-rule.md "Paired runs"): a paired
// metric whose pairs cannot reach its needed p is judged again on its unpaired test of the same runs
// (MetricMeasurement::unpaired), its p adjusted by Bonferroni over its family (at least Holm's), and that
// judgement replaces the paired one when it is REGRESSED. Otherwise the paired judgement stands.
void unpaired_where_pairs_fall_short(MetricComparison& m, const RuleSet& rules,
                                     const std::vector<MetricClass>& gating_classes, const DecideOptions& options) {
  if (!m.paired || !m.unpaired || !needed_p_out_of_reach(m)) {
    return;
  }
  MetricComparison alternative = m;
  static_cast<MetricMeasurement&>(alternative) = *m.unpaired;
  // The unpaired test was measured before the metric was named for its operating point or rank: keep m's
  // identity, else a regression at a point lost its point (the point's row read pass, the headline no metric).
  alternative.name = m.name;
  alternative.point = m.point;
  alternative.rank = m.rank;
  alternative.ranked = m.ranked;
  const double size = static_cast<double>(std::max<std::size_t>(1, m.family_size));
  const auto bonferroni = [size](std::optional<double> p) {
    return p ? std::optional<double>(std::min(1.0, *p * size)) : std::nullopt;
  };
  alternative.p_worse_adjusted = bonferroni(alternative.p_worse);
  alternative.p_better_adjusted = bonferroni(alternative.p_better);
  alternative.q_value = bonferroni(alternative.p_two_sided);
  judge_metric(alternative, rules, gating_classes, options);
  if (alternative.verdict == Verdict::regressed) {
    m = std::move(alternative);
  }
}

}  // namespace

std::optional<double> worse_ratio(const MetricComparison& m, std::optional<double> ratio) {
  if (!ratio || *ratio <= 0) {
    return std::nullopt;
  }
  return m.better == Better::lower ? *ratio : 1.0 / *ratio;
}

std::size_t samples_needed(const MetricComparison& m) {
  return m.paired ? pairs_needed(m.needed_p) : samples_needed_per_side(m.needed_p);
}

bool needed_p_out_of_reach(const MetricComparison& m) {
  const double smallest = m.paired ? smallest_attainable_signed_rank_p(m.base_samples.size())
                                   : smallest_attainable_p(m.base_samples.size(), m.head_samples.size(), true);
  return smallest > m.needed_p;
}

bool across_runs(const MetricComparison& m) {
  return std::min(m.base_processes, m.head_processes) >= k_processes_to_establish;
}

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
  case Family::end_to_end_explains:
    return "end-to-end (explains)";
  case Family::per_op:
    return "per-op";
  case Family::per_op_minor:
    return "per-op (not material)";
  case Family::step_time:
    return "step time";
  case Family::replaced:
    return "per-op (replaced)";
  case Family::runtime_calls:
    return "runtime calls";
  case Family::unattributed:
    return "per-op (not attributed)";
  }
  return "per-op";
}

bool undecided(Verdict verdict) {
  return verdict == Verdict::inconclusive || verdict == Verdict::insufficient;
}

double family_alpha(double alpha, std::size_t family_size) {
  return alpha / static_cast<double>(std::max<std::size_t>(1, family_size));
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
    unpaired_where_pairs_fall_short(m, rules, result.decision.gating_classes, options);
  }
  decide(result, conditions, options);
  return result;
}

}  // namespace neuron_gate
