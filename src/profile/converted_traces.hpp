#pragma once
// Traces converted from Neuron Explorer's Parquet output by `neuron-gate-capture explorer-to-json`
// (NEURON-FORMATS.md 5.5): the conversion states in the trace's metadata where it came from and what it
// assumed, and inspect lists that among its Assumptions.

#include "profile/trace_samples.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// One line per trace whose metadata has the string `neuron_gate_source`: "PATH: SOURCE; device time:
// DEVICE_TIME; assumed: ASSUMED" (the last two from `neuron_gate_device_time` and `neuron_gate_assumed`
// when they are strings). Empty when no trace was converted.
std::vector<std::string> converted_trace_assumptions(const std::vector<TraceSamples>& traces);

}  // namespace neuron_gate
