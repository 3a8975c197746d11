#pragma once
// The statistics of one measured metric (DESIGN.md section 4): Mann–Whitney U (worse, better, two-sided),
// the Hodges–Lehmann shift and ratio with their 95% CIs, Welch's t on logs, the medians.

#include "compare/metric_comparison.hpp"

namespace neuron_gate {

// Fills the medians, p values, test method, shift, ratio and Welch fields of `metric` from its
// base_samples and head_samples (the rest are left as they are). Without samples on a side only the
// medians are set. The ratio is from logs where every sample is > 0, else the shift over the base median.
void run_statistics(MetricMeasurement& metric);

} // namespace neuron_gate
