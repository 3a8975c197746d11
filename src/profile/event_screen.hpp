#pragma once
// The event screen (issue 13 item 1): events that cannot be true measurements are found and excluded
// before any sample is made, each counted per kind and file with its first example, byte offset and the
// time it carried (data_problems.hpp). The profile stage only measures and counts; whether the excluded
// time leaves a metric undecidable is decided in compare/judgement.cpp.

#include "formats/data_problems.hpp"
#include "formats/kineto_trace.hpp"
#include "profile/step_windows.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace neuron_gate {

// What the screen found in one trace: the problems by kind (with excluded time) and the time totals
// (excluded_* only; kept_* are filled in when the samples are made).
struct EventScreen {
  std::vector<DataProblem> problems;
  ScreenedTime time;
  // The events removed from trace.events, in file order: the sample builder names the ops (and, for
  // device events, the ops they would be attributed to) whose events were screened.
  std::vector<TraceEvent> excluded;
  // Stand-ins for the device events of launches whose device events are missing (device_events_missing):
  // device events at their launch, with its correlation and External id, weighing the estimated time.
  std::vector<TraceEvent> missing_device;
};

// Screens the events of `trace` (named `path` in examples) and removes the excluded ones from
// trace.events. Classes, first match wins:
//   device_out_of_range  a device event starting at ts 0 (in a trace whose CPU events do not start at 0)
//                        or outside the trace's time range: [first, last] instant of its CPU-side events
//                        and "Trace" spans, widened by k_range_slack of its length (at least 1 ms) each side
//   longer_than_step     an event (not a ProfilerStep) whose dur exceeds the step window holding its start
//                        (CPU-side: its process's step; device: any process's step), or outside steps the
//                        trace's widened time range
//   duplicate            dur > 0 and the same name, thread, ts, dur and args bytes (TraceEvent::args_hash) as an
//                        earlier event: the repeats
//   unfinished, negative_duration, and named events without a usable ts or dur (bad_timestamp, bad_duration,
//                        time_out_of_range): found while reading, never in trace.events (RawTrace::unusable);
//                        their time is estimated as the median dur of the kept events of the same name, and
//                        added to the problem
//   device_time_lost, device_events_missing  launches without their device events, found by correlation
//                        and flow links (missing_device_events.hpp): nothing is removed; missing ones get
//                        stand-ins in `missing_device`
EventScreen screen_events(const std::string& path, RawTrace& trace);

// A data problem's example of an event: `name "ts": …, "dur": …` (µs, 3 decimals), the name cut to 60 bytes.
std::string event_example(const RawTrace& trace, const TraceEvent& event);

// Share of a trace's time range each side of it within which device events still count as in range
// (work queued on the device runs long after the last CPU event when the device is the bottleneck; host
// and device clocks differ slightly): one whole span, at least 1 ms.
inline constexpr double k_range_slack = 1.0;

// A last step is cut off when its duration is below this share of the median of its process's other
// steps and its number of CPU-side events at most this share of theirs: a step cut off holds a part of
// the work (one stopped inside the first of a step's 4 CPU events holds exactly a quarter); a warm-up step
// can be 5x longer than the next, with the same events (the bundled A_sched traces).
inline constexpr double k_cut_off_step_share = 0.25;

// Indexes (into steps.windows(), built from `trace`) of the last step of each process that has at least
// two steps whose duration is below, and CPU-side event count at most, k_cut_off_step_share x the
// medians of that process's other steps: a step cut off when the profiler stopped (the AMD trace H02
// ends with a 0.049 ms step holding no op after a 9.3 ms one).
std::vector<std::uint32_t> cut_off_steps(const RawTrace& trace, const StepWindows& steps);

// The same from `counts`, by window: the CPU-side events (not windows) starting in each window of its
// process, as the sample builder counts them while summing (no second walk of the events).
std::vector<std::uint32_t> cut_off_steps(const StepWindows& steps, const std::vector<double>& counts);

}  // namespace neuron_gate
