#pragma once
// The policies of `compare` beside each metric's verdict (issue 40 item 2: commands only dispatch): base's
// A/A noise check (when it is estimated, what the judgement takes from it, the finding it gives) and the
// refusal of a comparison that has nothing to gate. Used by the one-point and the operating-points path.

#include "compare/calibration.hpp"
#include "compare/conditions.hpp"
#include "compare/findings.hpp"
#include "compare/judgement.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Runs base needs for compare's noise check: sampling_plan().noise_check, or noise_check_run_unit under
// SampleUnit::run.
std::size_t noise_check_runs(const RuleSet& rules);

// Base's A/A noise (calibration.hpp) for the compare, when base has noise_check_runs() runs to split:
// k_noise_check_splits halvings of base's runs. Each half keeps whole runs, so the noise holds the
// variation between runs, not only between steps (issue 14 items 3-4). Bounded: at most
// k_noise_check_value_budget sample values compared, by fewer splits, never below k_noise_check_min_splits.
// nullopt when base has too few runs.
std::optional<Calibration> base_calibration(const SideSamples& base, const RuleSet& rules);

// The per-op noise floors of `calibration` as the judgement takes them (empty without one).
std::vector<BaseNoise> base_noise(const std::optional<Calibration>& calibration);

// Base's A/A noise as an open hypothesis, for gating metrics: the gating metrics whose threshold sits
// below it. Where base has too few runs for an estimate and a side is a single trace, the finding says
// the floor and thresholds decide alone. Nothing when no metric gates.
void add_noise_findings(const SideSamples& base, const SideSamples& head, const RuleSet& rules,
                        const std::vector<MetricComparison>& metrics, const std::optional<Calibration>& calibration,
                        OpenHypotheses& found);

// Stage 5 of a one-point compare: the judgement of the metrics measured in place (empty when the
// conditions differ), refusing (UsageError "nothing to gate: ...") a comparable comparison in which no
// gating metric has samples on both sides after the rules: never a pass in disguise. Per op, base's own
// A/A noise (`calibration`, when estimated) must be cleared (issue 14 item 3).
Judgement judge_comparison(std::vector<MetricComparison> measurements, const ConditionsDiff& conditions,
                           const RuleSet& rules, bool strict, const std::string& today_date,
                           const std::optional<Calibration>& calibration, const DeviceTimeMissing& device_time_missing);

}  // namespace neuron_gate
