// The timer's resolution (issue 14 item 3): integer-µs data are quantised, and their intervals widen by
// one quantum. Declared in metric_comparison.hpp.
#include "compare/metric_comparison.hpp"

#include <algorithm>

namespace neuron_gate {

void widen_for_resolution(MetricMeasurement& metric, double resolution) {
  metric.resolution = resolution;
  if (metric.shift_low && metric.shift_high) {
    metric.shift_low = *metric.shift_low - resolution;
    metric.shift_high = *metric.shift_high + resolution;
  }
  if (metric.ratio_low && metric.ratio_high && metric.base_median && *metric.base_median > 0) {
    const double step = resolution / *metric.base_median;
    metric.ratio_low = std::max(0.0, *metric.ratio_low - step);
    metric.ratio_high = *metric.ratio_high + step;
  }
}

bool quantum_sized(const MetricMeasurement& metric) {
  return metric.resolution && metric.base_median && *metric.base_median < k_quantum_sized_quanta * *metric.resolution;
}

bool integer_microsecond_data(const SideSamples& side) {
  return integer_microsecond_data(whole_side(side));
}

bool integer_microsecond_data(const SideView& view) {
  if (view.traces.empty()) {
    return false;
  }
  for (const std::size_t t : view.traces) {
    const TraceSamples& trace = view.side->traces[t];
    for (const StepSample& step : trace.steps) {
      if (step.duration_ns % 1000 != 0) {
        return false;
      }
      for (const auto& [op, values] : step.ops) {
        if (values.self_cpu_ns % 1000 != 0 || values.device_ns % 1000 != 0) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace neuron_gate
