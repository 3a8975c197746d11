#pragma once
// What each trace event is for timing (EventKind), decided from its category, its process and its name
// (NEURON-FORMATS.md 2.5, 6.7); internal to the trace reader.

#include "formats/kineto_trace.hpp"

namespace neuron_gate {

// Sets TraceEvent::kind of every event of `trace` (and of trace.unusable): by category; uncategorised events
// are cpu_op in a trace without any category (legacy) and device in torch_npu's "Ascend Hardware" process;
// CPU-side events with a name PyTorch's key_averages drops are ignored.
void classify_events(RawTrace& trace, bool any_categorised_event);

}  // namespace neuron_gate
