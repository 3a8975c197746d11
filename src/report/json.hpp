#pragma once
// Report -> JSON, schema "neuron-gate.report/1" (documented in README.md).

#include "report/report.hpp"

#include <string>

namespace neuron_gate {

// The JSON report: verdict, conditions, every metric (sample summaries, raw and adjusted p, CI,
// verdict and reason), interpretations, open hypotheses, rules and provenance. Pretty-printed,
// keys in a fixed order; byte-identical for the same inputs.
std::string render_json(const Report& report);

} // namespace neuron_gate
