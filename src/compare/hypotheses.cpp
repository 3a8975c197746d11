// Open hypotheses (findings.hpp): what the judgement does not establish, each a typed finding.
#include "compare/findings.hpp"

#include <algorithm>
#include <map>

namespace neuron_gate {
namespace {

std::optional<InsufficientFinding> insufficient_finding(const std::vector<MetricComparison>& metrics) {
  InsufficientFinding found;
  for (const MetricComparison& m : metrics) {
    if (!m.gating) {
      continue;
    }
    ++found.gating_total;
    if (m.verdict == Verdict::insufficient) {
      ++found.insufficient;
      found.samples_needed = std::max(found.samples_needed, m.samples_needed.value_or(0));
      found.base_samples = m.base_samples.size();
      found.head_samples = m.head_samples.size();
    }
  }
  return found.insufficient > 0 ? std::optional<InsufficientFinding>(found) : std::nullopt;
}

bool any_input_shapes(const SideSamples& base, const SideSamples& head) {
  for (const SideSamples* side : {&base, &head}) {
    if (!side->table_input_shapes.empty()) {
      return true;
    }
    for (const TraceSamples& trace : side->traces) {
      if (!trace.input_shapes.empty()) {
        return true;
      }
    }
  }
  return false;
}

// The side's run manifest lists the model's inputs (fields "inputs[NAME]...").
bool manifest_lists_inputs(const SideSamples& side) {
  if (!side.manifest) {
    return false;
  }
  const auto& fields = side.manifest->fields;
  const auto it = fields.lower_bound("inputs[");
  return it != fields.end() && it->first.rfind("inputs[", 0) == 0;
}

// The per-metric lists of the open hypotheses, in metric order.
void metric_hypotheses(const std::vector<MetricComparison>& metrics, OpenHypotheses& found) {
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (m.verdict == Verdict::inconclusive && (m.gating || m.metric_class == MetricClass::step_time)) {
      found.inconclusive.push_back(i);
    }
    if (m.worth_a_look) {
      found.worth_a_look.push_back(i);
    }
    if (m.metric_class == MetricClass::device && m.verdict == Verdict::regressed) {
      found.device_regressions.push_back(i);
    }
  }
}

}  // namespace

DataProblemFinding data_problems(const SideSamples& side) {
  DataProblemFinding found;
  found.side = side.label;
  std::map<std::string, Nanoseconds> negative;
  for (const TraceSamples& trace : side.traces) {
    found.negative_duration_events += trace.problems.negative_duration_events;
    found.unfinished_events += trace.problems.unfinished_events;
    for (const auto& [name, ns] : trace.problems.negative_self_time) {
      auto [it, inserted] = negative.emplace(name, ns);
      if (!inserted) {
        it->second = std::min(it->second, ns);
      }
    }
  }
  found.negative_self_time.assign(negative.begin(), negative.end());
  found.listed = side.data_problems;
  return found;
}

void add_warm_up_screen(OpenHypotheses& found, const std::optional<WarmUpFinding>& screen) {
  if (!screen) {
    return;
  }
  std::erase_if(found.warm_up, [](const WarmUpFinding& f) { return f.kind == WarmUpKind::first_trace_of_run; });
  found.warm_up.insert(found.warm_up.begin(), *screen);
}

OpenHypotheses hypothesize(const SideSamples& base, const SideSamples& head, const ConditionsDiff& conditions,
                           const Judgement& judgement) {
  OpenHypotheses found;
  for (const SideSamples* side : {&base, &head}) {  // listed in every report, NOT COMPARABLE too
    DataProblemFinding problems = data_problems(*side);
    if (!problems.negative_self_time.empty() || problems.unfinished_events > 0 ||
        problems.negative_duration_events > 0 || !problems.listed.empty()) {
      found.data_problems.push_back(std::move(problems));
    }
  }
  if (judgement.decision.outcome == Outcome::not_comparable) {
    return found;
  }
  for (const ConditionRow& row : conditions.rows) {
    if (!row.matches && row.accepted) {
      found.accepted.push_back({row.name, row.base, row.head});
    }
  }
  found.insufficient = insufficient_finding(judgement.metrics);
  metric_hypotheses(judgement.metrics, found);
  if (base.traces.size() == 1 || head.traces.size() == 1) {
    found.single_trace = SingleTraceFinding{base.traces.size(), head.traces.size()};
  }
  for (const SideSamples* side : {&base, &head}) {
    const auto pattern = warm_up_pattern(*side);
    if (pattern) {
      found.warm_up.push_back(*pattern);
    }
    const WarmUpSteps warm_up = !pattern                                          ? WarmUpSteps::none
                                : pattern->kind == WarmUpKind::first_trace_of_run ? WarmUpSteps::first_trace_of_run
                                                                                  : WarmUpSteps::first_step_of_trace;
    if (auto modes = bimodal_steps(*side, warm_up)) {
      found.bimodal_steps.push_back(*modes);
    }
  }
  // Inputs are verified by shapes in the traces or tables, or by both run manifests' inputs (the inputs
  // condition then compares those: inputs_condition.hpp).
  found.inputs_unverified = !any_input_shapes(base, head) && (!base.traces.empty() || !head.traces.empty()) &&
                            !(manifest_lists_inputs(base) && manifest_lists_inputs(head));
  return found;
}

std::optional<NoiseFinding> noise_finding(const Calibration& base_calibration,
                                          const std::vector<MetricComparison>& metrics) {
  NoiseFinding found;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    if (!m.gating) {
      continue;
    }
    for (const NoiseFloor& floor : base_calibration.metrics) {
      if (floor.metric_class == m.metric_class && floor.name == m.name && floor.threshold_below_noise) {
        found.below.push_back({i, floor.noise_floor.value_or(0)});
      }
    }
  }
  if (found.below.empty()) {
    return std::nullopt;
  }
  found.splits = base_calibration.splits;
  found.units = base_calibration.half_a + base_calibration.half_b;
  found.split_by = base_calibration.split_by;
  found.seed = base_calibration.seed;
  return found;
}

}  // namespace neuron_gate
