#pragma once
// Calibration -> Markdown and JSON (the output of `neuron-gate calibrate`). The noise-floor finding
// `compare` adds to its open hypotheses is compare/findings.hpp's noise_finding, worded in prose.hpp.

#include "compare/calibration.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"

#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// The calibration as Markdown: false-alarm rate with its 95% CI next to alpha, splits per metric
// class, and the per-metric noise floor next to each threshold (metrics whose threshold sits below the
// noise first). Byte-identical for the same inputs.
std::string render_calibration_markdown(const Calibration& calibration, const RuleSet& rules);

// The calibration as JSON, schema "neuron-gate.calibration/1" (docs/reference.md "Command line"); undefined numbers
// are null. Pretty-printed, keys in a fixed order.
std::string render_calibration_json(const Calibration& calibration, const RuleSet& rules);

}  // namespace neuron_gate
