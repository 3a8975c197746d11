#include "compare/verdict.hpp"

#include "stats/multiple_testing.hpp"
#include "stats/power.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace neuron_gate {
namespace {

std::string family_of(MetricClass metric_class) {
  switch (metric_class) {
  case MetricClass::end_to_end:
    return "end-to-end";
  case MetricClass::step_time:
    return "step time";
  case MetricClass::device:
  case MetricClass::self_cpu:
    break;
  }
  return "per-op";
}

// Explanatory end-to-end metrics (Neuron device summaries) are a family of their own.
std::string family_of(const MetricComparison& m) {
  return m.explanatory ? "device summary" : family_of(m.metric_class);
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

std::string percent(double ratio) {
  std::ostringstream out;
  out.precision(3);
  out << (ratio - 1.0) * 100.0 << "%";
  return out.str();
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

void give_verdict(MetricComparison& m, const RuleSet& rules) {
  const bool per_op = m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::device;
  const double floor = per_op ? rules.floor_us : 0.0;
  const double t = m.threshold;
  if (!m.present_in_base || !m.present_in_head) {
    m.verdict = Verdict::structural;
    m.reason = m.present_in_base ? "op disappears in head" : "op appears in head";
    return;
  }
  // "worse" ratio: > 1 means worse, whatever the metric's direction.
  std::optional<double> worse_ratio;
  if (m.ratio && *m.ratio > 0) {
    worse_ratio = m.better == Better::lower ? *m.ratio : 1.0 / *m.ratio;
  }
  const double shift_size = m.shift ? std::fabs(*m.shift) : 0.0;
  const bool above_floor = !per_op || shift_size >= floor;
  const std::size_t nb = m.base_samples.size();
  const std::size_t nh = m.head_samples.size();

  if (m.metric_class == MetricClass::step_time && (m.base_runs < 2 || m.head_runs < 2)) {
    // Step time holds data loading and profiler overhead, which vary from run to run: the steps of
    // one run cannot show that a step-time change belongs to the code.
    m.verdict = Verdict::inconclusive;
    m.reason = "a side has a single run: its steps do not sample run-to-run variation";
    return;
  }
  if (m.p_worse_adjusted && *m.p_worse_adjusted <= rules.alpha && worse_ratio && *worse_ratio >= 1.0 + t &&
      above_floor) {
    m.verdict = Verdict::regressed;
    m.reason = "worse by " + percent(*worse_ratio) + " (threshold " + percent(1.0 + t) + "), adjusted p within alpha";
    return;
  }
  if (m.calls_changed) {
    m.verdict = Verdict::structural;
    std::ostringstream reason;
    reason << "median calls per step " << m.base_calls.value_or(0) << " -> " << m.head_calls.value_or(0);
    m.reason = reason.str();
    return;
  }
  if (m.p_better_adjusted && *m.p_better_adjusted <= rules.alpha && worse_ratio && *worse_ratio <= 1.0 - t &&
      above_floor) {
    m.verdict = Verdict::improved;
    m.reason = "better by " + percent(2.0 - *worse_ratio) + " (threshold " + percent(1.0 + t) + "), adjusted p within alpha";
    return;
  }
  if (m.ratio_low && m.ratio_high && *m.ratio_low >= 1.0 - t && *m.ratio_high <= 1.0 + t) {
    m.verdict = Verdict::equivalent;
    m.reason = "95% CI of the ratio lies within ±" + percent(1.0 + t);
    return;
  }
  if (per_op && m.shift_low && m.shift_high && *m.shift_low >= -floor && *m.shift_high <= floor) {
    m.verdict = Verdict::equivalent;
    std::ostringstream reason;
    reason << "95% CI of the change lies within ±" << floor << " us per step (the floor)";
    m.reason = reason.str();
    return;
  }
  const double smallest_p = (nb == 0 || nh == 0) ? 1.0 : smallest_attainable_p(nb, nh, true);
  const double needed_p = rules.alpha / static_cast<double>(std::max<std::size_t>(1, m.family_size));
  if (smallest_p > needed_p) {
    m.verdict = Verdict::insufficient;
    m.samples_needed = samples_needed_per_side(needed_p);
    std::ostringstream reason;
    reason << "n=" << nb << "/" << nh << " cannot reach p <= " << needed_p << " (alpha / " << m.family_size
           << " metrics); needs " << *m.samples_needed << " per side";
    m.reason = reason.str();
    return;
  }
  m.verdict = Verdict::inconclusive;
  if (m.ratio_low && m.ratio_high) {
    m.reason = "95% CI of the ratio straddles the threshold and the change is not significant after correction";
  } else {
    m.reason = "no ratio (base median is 0) and the change is not within the floor";
  }
}

} // namespace

Decision decide(std::vector<MetricComparison>& metrics, const ConditionsDiff& conditions, const RuleSet& rules,
                const DecideOptions& options) {
  Decision decision;
  const bool have_end_to_end = std::any_of(metrics.begin(), metrics.end(), [](const MetricComparison& m) {
    return m.metric_class == MetricClass::end_to_end && !m.explanatory;
  });
  for (MetricClass c : {MetricClass::end_to_end, MetricClass::device, MetricClass::self_cpu, MetricClass::step_time}) {
    if (class_gates(c, rules, have_end_to_end)) {
      decision.gating_classes.push_back(c);
    }
  }

  for (const std::string family : {"end-to-end", "device summary", "per-op", "step time"}) {
    std::vector<MetricComparison*> members;
    for (MetricComparison& m : metrics) {
      if (family_of(m) == family && m.present_in_base && m.present_in_head) {
        members.push_back(&m);
      }
    }
    std::vector<std::optional<double>> worse, better, two_sided;
    for (MetricComparison* m : members) {
      worse.push_back(m->p_worse);
      better.push_back(m->p_better);
      two_sided.push_back(m->p_two_sided);
    }
    const auto worse_adjusted = adjust(worse, rules.correction);
    const auto better_adjusted = adjust(better, rules.correction);
    const auto q = adjust(two_sided, Correction::benjamini_hochberg);
    for (std::size_t i = 0; i < members.size(); ++i) {
      members[i]->family = family;
      members[i]->family_size = members.size();
      members[i]->p_worse_adjusted = worse_adjusted[i];
      members[i]->p_better_adjusted = better_adjusted[i];
      members[i]->q_value = q[i];
    }
  }

  for (MetricComparison& m : metrics) {
    if (m.family.empty()) {
      m.family = family_of(m);
    }
    m.gating = std::find(decision.gating_classes.begin(), decision.gating_classes.end(), m.metric_class) !=
                   decision.gating_classes.end() &&
               (!m.explanatory || rules.end_to_end.gate == GateMode::always);
    give_verdict(m, rules);
    if (m.verdict != Verdict::regressed && m.verdict != Verdict::improved && m.verdict != Verdict::structural) {
      const double family_alpha = rules.alpha / static_cast<double>(std::max<std::size_t>(1, m.family_size));
      if (auto mde = minimum_detectable_ratio(m.base_samples, m.head_samples, family_alpha)) {
        m.minimum_detectable_ratio = mde;
      }
    }
    if (m.verdict == Verdict::regressed && !options.today.empty()) {
      const Waiver* waiver = rules.waiver_for(m.name, options.today);
      if (waiver == nullptr && m.ranked) {
        waiver = rules.waiver_for(unranked_name(m), options.today);  // a pattern for the op covers every rank
      }
      if (waiver != nullptr) {
        m.waiver = waiver->reason + " (until " + waiver->expires + ")";
      }
    }
    ++decision.counts[m.verdict];
    if (m.gating) {
      ++decision.gating_counts[m.verdict];
      if (m.verdict == Verdict::regressed && !m.waiver) {
        decision.regressed.push_back(m.name);
      }
    }
  }

  if (!conditions.comparable()) {
    decision.outcome = Outcome::not_comparable;
  } else if (!decision.regressed.empty()) {
    decision.outcome = Outcome::regression;
  } else if (options.strict &&
             (decision.gating_counts[Verdict::inconclusive] + decision.gating_counts[Verdict::insufficient]) > 0) {
    decision.outcome = Outcome::inconclusive;
  } else {
    decision.outcome = Outcome::pass;
  }
  return decision;
}

} // namespace neuron_gate
