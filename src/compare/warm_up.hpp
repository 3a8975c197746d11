#pragma once
// The profiler's warm-up: the first trace of each run folder (a process's first profiler cycle) or the
// first step of each trace far longer than the rest, found in step times; and the warm-up screen that
// leaves base's warm-up cycle out of both sides' samples (docs/decision-rule.md "Warm-up cycles").

#include "profile/read_side.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

enum class WarmUpKind {
  first_trace_of_run,   // the first trace of each run folder has a far longer step than the later ones
  first_step_of_trace,  // the first step of each trace (of 3 or more steps) is far longer than the rest
};

// Median first / median later at or beyond which a side shows warm-up.
inline constexpr double k_warm_up_ratio = 1.5;

// The profiler's warm-up seen in one side: median first / median later >= k_warm_up_ratio.
struct WarmUpFinding {
  std::string side;  // the side's label, "base" or "head"
  WarmUpKind kind = WarmUpKind::first_trace_of_run;
  double ratio = 1;          // median first / median later
  std::size_t measured = 0;  // run folders (first_trace_of_run) or traces (first_step_of_trace) read
  double first_us = 0;       // median step time of the first traces (steps), µs
  double later_us = 0;       // median step time of the later ones, µs
  // Traces the warm-up screen left out of the samples (leave_out_warm_up_traces); 0 and 0 when kept.
  std::size_t base_left_out = 0, head_left_out = 0;
  bool operator==(const WarmUpFinding&) const = default;
};

// The profiler's warm-up in `side`, if any: first the first-trace-of-run pattern (folders with 2 or
// more traces, 2 or more such folders), else the first-step-of-trace pattern (traces of 3 or more
// steps). A step's time is its ProfilerStep duration (a key_averages table's self CPU total).
std::optional<WarmUpFinding> warm_up_pattern(const SideSamples& side);

// The warm-up screen. When base shows the first-trace-of-run pattern and every run folder of both sides
// holds traces of one rank, the first trace (path order) of each run folder of 2 or more traces is
// removed from both sides' traces: a process's first profiler cycle measures start-up (allocator,
// caches, lazy initialisation), not the code's steady state, and pooled with the later cycles it can
// turn a real +38% into −10%. Decided from base alone, so head cannot hide a slower first cycle of its
// own; applied to both, so the samples stay alike. Returns base's pattern with the counts left out, or
// nullopt when nothing was left out.
std::optional<WarmUpFinding> leave_out_warm_up_traces(SideSamples& base, SideSamples& head);

// The same screen decided by `base` and applied to it and every side of `others` (rank's alternatives);
// head_left_out counts the traces left out of all of `others`.
std::optional<WarmUpFinding> leave_out_warm_up_traces(SideSamples& base, const std::vector<SideSamples*>& others);

}  // namespace neuron_gate
