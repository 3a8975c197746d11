#pragma once
// Which metrics hold events the event screen excluded (issue 13 item 2): a data problem makes only the
// metrics it touches undecidable. The profile stage names what it excluded per trace (TraceSamples::
// screened_ops, screened_unattributed, steps_screened, ScreenedTime::device_time_lost); this marks the
// metrics built from them, per side, and sets each side's excluded share of the metric's kind. Whether
// that leaves a metric INCONCLUSIVE is the judgement's (judgement.cpp, rules max_excluded_share).

#include "compare/metric_comparison.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace neuron_gate {

// Sets base/head_excluded_share and base/head_screened of every metric of `metrics` (built by
// compare_metrics from `base` and `head`). A metric of a rank (MetricMeasurement::ranked) reads that
// rank's traces only, a rank-less one every trace of the side. Per side:
//   op (self CPU)     a CPU-side event of that op key was screened, or a cut-off step held the op
//   op (device time)  a screened device event the attribution rules give to that op (an unattributed row:
//                     one no op is found for, of its category), a cut-off step gave it device time, or
//                     the trace lost its device time (device_time_lost: every device metric)
//   class total       any op of its class that is not ignored by the rules (or lost device time)
//   replacement group any of its members (or lost device time)
//   step time         a step was cut off, or a ProfilerStep event itself was unusable
// Shares: excluded_device_share (device), excluded_cpu_share (self CPU), the larger (step time), of
// the whole side (the rules key is per side and class); a marked self CPU metric takes the larger of that
// and its share by count: its CPU-side events without a usable time (ScreenedOp::unusable_cpu_events) over
// those plus its calls kept in the samples (class total: every op's; replacement group: its members'),
// since such an event carries no time to measure but leaves its step's sample a call short. End-to-end metrics are left
// unmarked.
void mark_screened_metrics(std::vector<MetricMeasurement>& metrics, const SideSamples& base, const SideSamples& head,
                           const RuleSet& rules);

// The same for views (metric_comparison.hpp): the view's traces and its screened time.
void mark_screened_metrics(std::vector<MetricMeasurement>& metrics, const SideView& base, const SideView& head,
                           const RuleSet& rules);

// The same for `count` metrics held elsewhere (judged in place, judgement.hpp): `at(i)` is metric i.
void mark_screened_metrics(std::size_t count, const std::function<MetricMeasurement&(std::size_t)>& at,
                           const SideView& base, const SideView& head, const RuleSet& rules);

}  // namespace neuron_gate
