#include "compare/gate_policy.hpp"

#include "compare/sampling_plan.hpp"
#include "compare/side_view.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <utility>

namespace neuron_gate {

std::size_t noise_check_runs(const RuleSet& rules) {
  return rules.unit == SampleUnit::run ? sampling_plan().noise_check_run_unit : sampling_plan().noise_check;
}

std::optional<Calibration> base_calibration(const SideSamples& base, const RuleSet& rules) {
  if (side_runs(base).size() < noise_check_runs(rules)) {
    return std::nullopt;
  }
  CalibrationOptions calibration_options;
  calibration_options.splits = k_noise_check_splits;
  calibration_options.value_budget = k_noise_check_value_budget;
  calibration_options.min_splits = k_noise_check_min_splits;
  return calibrate(base, rules, calibration_options);
}

std::vector<BaseNoise> base_noise(const std::optional<Calibration>& calibration) {
  std::vector<BaseNoise> noise;
  if (!calibration) {
    return noise;
  }
  for (const NoiseFloor& floor : calibration->metrics) {
    const bool per_op = floor.metric_class == MetricClass::self_cpu || floor.metric_class == MetricClass::device;
    if (per_op && floor.noise_floor) {
      noise.push_back(BaseNoise{floor.metric_class, floor.name, *floor.noise_floor, floor.scope});
    }
  }
  return noise;
}

void add_noise_findings(const SideSamples& base, const SideSamples& head, const RuleSet& rules,
                        const std::vector<MetricComparison>& metrics, const std::optional<Calibration>& calibration,
                        OpenHypotheses& found) {
  const bool any_gating =
      std::any_of(metrics.begin(), metrics.end(), [](const MetricComparison& m) { return m.gating; });
  if (!any_gating) {
    return;
  }
  if (!calibration) {
    if (base.traces.size() == 1 || head.traces.size() == 1) {
      found.noise_not_estimated = NoiseNotEstimated{side_runs(base).size(), noise_check_runs(rules)};
    }
    return;
  }
  found.noise = noise_finding(*calibration, metrics);
}

Judgement judge_comparison(std::vector<MetricComparison> measurements, const ConditionsDiff& conditions,
                           const RuleSet& rules, bool strict, const std::string& today_date,
                           const std::optional<Calibration>& calibration,
                           const DeviceTimeMissing& device_time_missing) {
  DecideOptions decide_options;
  decide_options.strict = strict;
  decide_options.device_time_missing = device_time_missing;
  decide_options.today = today_date;
  decide_options.base_noise = base_noise(calibration);
  Judgement judgement = judge_in_place(std::move(measurements), conditions, rules, decide_options);
  std::size_t gating_metrics = 0;
  for (const auto& [verdict, count] : judgement.decision.gating_counts) {
    gating_metrics += count;
  }
  if (conditions.comparable() && gating_metrics == 0) {
    throw UsageError("nothing to gate: no gating metric has samples on both sides after the rules (" + rules.source +
                     ": ignore, drop_first_steps, gate) were applied; run `neuron-gate inspect` "
                     "on each side and check the rules");
  }
  return judgement;
}

}  // namespace neuron_gate
