#pragma once
// The layouts a trace's samples can come from (kineto_trace.hpp reads the first two, key_averages_table.hpp
// the third); a value of RawTrace and of the sampling stage's TraceSamples.

namespace neuron_gate {

// How a trace file is laid out.
enum class TraceFormat {
  kineto,              // {"traceEvents": [...]} with categories
  legacy_array,        // top-level array (legacy autograd profiler, torch_npu)
  key_averages_table,  // a printed key_averages() table: one run, one sample (table_samples.hpp)
};

}  // namespace neuron_gate
