#pragma once
// What `rank` decides by when the profiles are traces without end-to-end numbers (issue 37 item 5): the
// profiled step time of every ProfilerStep, or the device time of all ops per step (the `all ops` device
// total `compare` gates on), read as an end-to-end metric so that rank's tests and tie rules apply as they are.

#include "formats/end_to_end_metric.hpp"
#include "profile/read_side.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace neuron_gate {

// A per-step total of a side's traces.
enum class StepTotal {
  step_time,     // ProfilerStep duration ("whole trace" duration for a trace without steps), µs
  device_total,  // device time of every op plus the device time attributed to none, µs per step
};

// `rank --metric` names: "step-time" and "device-total"; nullopt for any other name (an end-to-end metric).
std::optional<StepTotal> step_total_named(std::string_view name);

// The report's name of a total: "profiled step time", "device time of all ops".
const char* step_total_title(StepTotal total);

// The per-step totals of `side` as an end-to-end metric named step_total_title(total), unit "us", lower
// is better, origin application: one sample per step after the first `drop_first` of each trace, grouped
// into runs (side_runs: one per folder of traces) with run_sizes. Throws UsageError naming `label` when the
// side has no traces, holds several ranks (a rank's step is not the job's), has no sample step, or, for
// device_total, has no device time (none captured, or lost: ScreenedTime::device_time_lost).
EndToEndMetric step_total_metric(const SideSamples& side, StepTotal total, std::size_t drop_first,
                                 const std::string& label);

}  // namespace neuron_gate
