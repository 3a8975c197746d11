#include "compare/whole_run_shift.hpp"

#include <algorithm>
#include <cmath>

namespace neuron_gate {

std::optional<WholeRunShiftFinding> whole_run_shift(const std::vector<MetricComparison>& metrics,
                                                    const RuleSet& rules) {
  const double min_base = k_shift_min_floors * rules.floor_us;
  std::vector<std::size_t> eligible;
  std::vector<double> logs;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = metrics[i];
    const bool per_op = m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::device;
    if (per_op && m.base_median && m.head_median && *m.base_median >= min_base && *m.head_median > 0) {
      // The Hodges–Lehmann ratio where there is one: on bimodal step data the ratio of the two medians
      // jumps with how many steps of each mode a side caught (issue 38 item 7).
      const double ratio = m.ratio && *m.ratio > 0 ? *m.ratio : *m.head_median / *m.base_median;
      eligible.push_back(i);
      logs.push_back(std::log(ratio));
    }
  }
  if (eligible.size() < k_shift_min_ops) {
    return std::nullopt;
  }
  std::vector<double> sorted = logs;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double log_factor = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  if (std::fabs(log_factor) < std::log(k_shift_min_factor)) {
    return std::nullopt;
  }
  const double band = std::max(std::log(k_shift_band), std::fabs(log_factor) / 3);
  WholeRunShiftFinding found;
  found.factor = std::exp(log_factor);
  found.eligible = eligible.size();
  for (std::size_t k = 0; k < eligible.size(); ++k) {
    if (std::fabs(logs[k] - log_factor) <= band) {
      found.along.push_back(eligible[k]);
    }
  }
  if (found.along.size() < k_shift_min_ops || 3 * found.along.size() < 2 * found.eligible) {
    return std::nullopt;
  }
  return found;
}

}  // namespace neuron_gate
