#include "compare/findings.hpp"

#include "compare/unattributed.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace neuron_gate {
namespace {

bool is_op(const MetricMeasurement& m) {
  return m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::device;
}

// `indices` without those in `removed` (both in metric order), order kept.
std::vector<std::size_t> without(const std::vector<std::size_t>& indices, const std::vector<std::size_t>& removed) {
  std::vector<std::size_t> kept;
  for (std::size_t i : indices) {
    if (!std::binary_search(removed.begin(), removed.end(), i)) {
      kept.push_back(i);
    }
  }
  return kept;
}

double absolute_change(const MetricMeasurement& m) {
  const auto change = median_change(m);
  return change ? std::fabs(*change) : 0.0;
}

GateFinding gate_finding(const Judgement& judgement, const RuleSet& rules) {
  GateFinding gate;
  // Only the classes the profiles have metrics of (issue 38 item 7: "device time per op … decide" was said
  // of CPU-only profiles).
  for (const MetricClass c : judgement.decision.gating_classes) {
    if (std::any_of(judgement.metrics.begin(), judgement.metrics.end(),
                    [c](const MetricComparison& m) { return m.metric_class == c; })) {
      gate.gating_classes.push_back(c);
    }
  }
  gate.have_end_to_end = std::any_of(judgement.metrics.begin(), judgement.metrics.end(), [](const MetricComparison& m) {
    return m.metric_class == MetricClass::end_to_end && !m.explanatory;
  });
  gate.correction = rules.correction;
  gate.alpha = rules.alpha;
  gate.material = judgement.decision.material;
  gate.per_op_gates = std::any_of(gate.gating_classes.begin(), gate.gating_classes.end(),
                                  [](MetricClass c) { return c == MetricClass::self_cpu || c == MetricClass::device; });
  return gate;
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::binary_search(names.begin(), names.end(), name);
}

// The op metrics of one replacement group (same class and rank, named in its member lists).
ReplacementFinding replacement_finding(const std::vector<MetricComparison>& metrics, std::size_t group) {
  const MetricComparison& g = metrics[group];
  ReplacementFinding found;
  found.group = group;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (m.scope != MetricScope::op || m.metric_class != g.metric_class || m.rank != g.rank) {
      continue;
    }
    const std::string name = unranked_name(m);
    if (listed(g.replaced->gone, name)) {
      found.gone.push_back(i);
    } else if (listed(g.replaced->appeared, name)) {
      found.appeared.push_back(i);
      if (!found.largest_appeared ||
          m.head_median.value_or(0) > metrics[*found.largest_appeared].head_median.value_or(0)) {
        found.largest_appeared = i;
      }
    } else if (listed(g.replaced->calls_changed, name)) {
      found.calls_changed.push_back(i);
    }
  }
  return found;
}

StructuralFinding structural_finding(const std::vector<MetricComparison>& metrics) {
  StructuralFinding found;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i].scope == MetricScope::replacement_group) {
      found.groups.push_back(replacement_finding(metrics, i));
    }
  }
  return found;
}

// The step-time metric that changed most (per rank, the rank whose step time changed most).
std::optional<std::size_t> most_changed_step(const std::vector<MetricComparison>& metrics) {
  std::optional<std::size_t> step;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (m.metric_class == MetricClass::step_time &&
        (!step || std::fabs(m.ratio.value_or(1.0) - 1.0) > std::fabs(metrics[*step].ratio.value_or(1.0) - 1.0))) {
      step = i;
    }
  }
  return step;
}

StepTimeFinding step_time_finding(const std::vector<MetricComparison>& metrics, std::size_t step, double floor_us) {
  StepTimeFinding found;
  found.step = step;
  std::vector<OpContribution> contributions;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    found.have_device = found.have_device || m.metric_class == MetricClass::device;
    if (!is_op(m) || m.scope != MetricScope::op || m.rank != metrics[step].rank) {
      continue;
    }
    const double change = median_change(m).value_or(0);
    (m.metric_class == MetricClass::self_cpu ? found.cpu_total_us : found.device_total_us) += change;
    contributions.push_back({i, change});
  }
  std::stable_sort(contributions.begin(), contributions.end(), [](const OpContribution& a, const OpContribution& b) {
    return std::fabs(a.change_us) > std::fabs(b.change_us);
  });
  for (const OpContribution& c : contributions) {
    if (found.largest.size() == 5 || std::fabs(c.change_us) < floor_us) {
      break;
    }
    found.largest.push_back(c);
  }
  found.host_overhead =
      found.have_device && found.cpu_total_us > floor_us && std::fabs(found.device_total_us) < floor_us;
  return found;
}

// Profiled step time and the first lower-is-better end-to-end metric moving in opposite directions.
std::optional<DisagreementFinding> disagreement(const std::vector<MetricComparison>& metrics, std::size_t step) {
  const auto latency = std::find_if(metrics.begin(), metrics.end(), [](const MetricComparison& m) {
    return m.metric_class == MetricClass::end_to_end && m.better == Better::lower;
  });
  const MetricComparison& s = metrics[step];
  if (latency == metrics.end() || !s.ratio || !latency->ratio) {
    return std::nullopt;
  }
  const bool step_faster = *s.ratio<1.0, step_slower = *s.ratio> 1.0;
  const bool latency_slower = *latency->ratio > 1.0 + latency->threshold;
  const bool latency_faster = *latency->ratio < 1.0 - latency->threshold;
  if ((step_faster && latency_slower) || (step_slower && latency_faster)) {
    return DisagreementFinding{step, static_cast<std::size_t>(latency - metrics.begin())};
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> median_change(const MetricMeasurement& m) {
  if (m.head_median && m.base_median) {
    return *m.head_median - *m.base_median;
  }
  return m.head_median ? m.head_median : (m.base_median ? std::optional<double>(-*m.base_median) : std::nullopt);
}

Interpretations interpret(const ConditionsDiff& conditions, const Judgement& judgement, const RuleSet& rules) {
  Interpretations found;
  if (judgement.decision.outcome == Outcome::not_comparable) {
    for (const ConditionRow& row : conditions.rows) {
      if (!row.matches && !row.accepted) {
        found.not_comparable.push_back({row.name, row.base, row.head});
      }
    }
    return found;
  }
  const std::vector<MetricComparison>& metrics = judgement.metrics;
  found.gate = gate_finding(judgement, rules);
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (m.gating && (m.verdict == Verdict::regressed || m.verdict == Verdict::improved ||
                     (m.verdict == Verdict::equivalent && m.metric_class == MetricClass::end_to_end))) {
      found.gating_metrics.push_back(i);
    }
    if (is_op(m) && !m.gating && m.verdict == Verdict::regressed) {
      found.op_regressions.push_back(i);
    }
    if (m.explanatory && !m.gating && (m.verdict == Verdict::regressed || m.verdict == Verdict::improved)) {
      found.device_summary.push_back(i);
    }
    if (m.capped_from && m.scope == MetricScope::op) {
      const std::size_t total = device_total_of(m, metrics);
      found.unattributed.push_back({i, total < metrics.size() ? std::optional<std::size_t>(total) : std::nullopt});
    }
  }
  found.whole_run_shift = whole_run_shift(metrics, rules);
  if (found.whole_run_shift) {  // said once: the ops along it leave the one-by-one lists
    const std::vector<std::size_t>& along = found.whole_run_shift->along;
    const std::vector<std::size_t> others = without(found.gating_metrics, along);
    std::set_difference(found.gating_metrics.begin(), found.gating_metrics.end(), others.begin(), others.end(),
                        std::back_inserter(found.whole_run_shift->decided));
    found.gating_metrics = others;
    found.op_regressions = without(found.op_regressions, along);
  }
  std::stable_sort(found.op_regressions.begin(), found.op_regressions.end(), [&](std::size_t a, std::size_t b) {
    return absolute_change(metrics[a]) > absolute_change(metrics[b]);
  });
  found.structural = structural_finding(metrics);
  if (const auto step = most_changed_step(metrics); step && metrics[*step].base_median && metrics[*step].head_median) {
    found.step_time = step_time_finding(metrics, *step, rules.floor_us);
    found.disagreement = disagreement(metrics, *step);
  }
  return found;
}

Findings find_findings(const SideSamples& base, const SideSamples& head, const ConditionsDiff& conditions,
                       const Judgement& judgement, const RuleSet& rules) {
  Findings findings;
  findings.interpretations = interpret(conditions, judgement, rules);
  findings.open_hypotheses = hypothesize(base, head, conditions, judgement);
  if (const auto& shift = findings.interpretations.whole_run_shift) {
    OpenHypotheses& open = findings.open_hypotheses;
    open.whole_run_shift = shift;
    open.device_regressions = without(open.device_regressions, shift->along);
  }
  return findings;
}

}  // namespace neuron_gate
