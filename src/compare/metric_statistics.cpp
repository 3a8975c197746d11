#include "compare/metric_statistics.hpp"

#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/welch_log.hpp"

#include <algorithm>
#include <span>

namespace neuron_gate {
namespace {

const char* method_name(UMethod method) {
  switch (method) {
  case UMethod::exact:
    return "exact";
  case UMethod::exact_conditional:
    return "exact conditional (ties)";
  case UMethod::asymptotic:
    return "normal approximation";
  case UMethod::asymptotic_continuity:
    return "normal approximation, tie and continuity corrected";
  case UMethod::automatic:
    break;
  }
  return "automatic";
}

} // namespace

void run_statistics(MetricMeasurement& metric) {
  const std::span<const double> base(metric.base_samples);
  const std::span<const double> head(metric.head_samples);
  metric.base_median = median(base);
  metric.head_median = median(head);
  if (base.empty() || head.empty()) {
    return;
  }
  // SciPy convention: x = base, y = head; "less" means base tends to be smaller, i.e. head larger.
  const MannWhitneyTests tests = mann_whitney_u_tests(base, head);
  const MannWhitneyResult& head_larger = tests.less;
  const MannWhitneyResult& head_smaller = tests.greater;
  const MannWhitneyResult& worse = metric.better == Better::lower ? head_larger : head_smaller;
  const MannWhitneyResult& better = metric.better == Better::lower ? head_smaller : head_larger;
  const MannWhitneyResult& both = tests.two_sided;
  metric.p_worse = worse.p;
  metric.p_better = better.p;
  metric.p_two_sided = both.p;
  metric.test_method = method_name(worse.method);

  const bool all_positive = std::all_of(base.begin(), base.end(), [](double v) { return v > 0; }) &&
                            std::all_of(head.begin(), head.end(), [](double v) { return v > 0; });
  if (auto shift = hodges_lehmann_shift(base, head)) {
    metric.shift = shift->estimate;
    metric.shift_low = shift->ci_low;
    metric.shift_high = shift->ci_high;
  }
  if (all_positive) {
    if (auto ratio = hodges_lehmann_ratio(base, head)) {
      metric.ratio = ratio->estimate;
      metric.ratio_low = ratio->ci_low;
      metric.ratio_high = ratio->ci_high;
      metric.ratio_from_logs = true;
    }
    if (auto welch = welch_t_log(base, head)) {
      metric.welch_ratio = welch->ratio_of_geometric_means;
      metric.welch_low = welch->ratio_low;
      metric.welch_high = welch->ratio_high;
      metric.welch_p = welch->p_two_sided;
    }
  } else if (metric.base_median && *metric.base_median > 0 && metric.shift) {
    const double b = *metric.base_median;
    metric.ratio = (b + *metric.shift) / b;
    if (metric.shift_low && metric.shift_high) {
      metric.ratio_low = std::max(0.0, (b + *metric.shift_low) / b);  // a duration ratio is never negative
      metric.ratio_high = (b + *metric.shift_high) / b;
    }
  }
}

} // namespace neuron_gate
