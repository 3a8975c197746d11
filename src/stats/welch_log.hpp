#pragma once
// Welch's unequal-variance t-test on log durations (Welch 1947; SciPy ttest_ind(log y, log x,
// equal_var=False)): a parametric cross-check of the rank test, reported but not gating by default.

#include <optional>
#include <span>

namespace neuron_gate {

// t = (mean(log y) - mean(log x)) / se with se^2 = s_x^2/m + s_y^2/n, Welch–Satterthwaite df, two-sided
// p from Student's t. t, df, p and the interval are nullopt when se is 0 (both sides constant).
struct WelchLogResult {
  std::optional<double> t, df, p_two_sided;
  double ratio_of_geometric_means = 1;          // exp(mean(log y) - mean(log x)): head/base
  std::optional<double> ratio_low, ratio_high;  // exp(difference -/+ t_{(1+confidence)/2, df} * se)

  bool operator==(const WelchLogResult&) const = default;
};

// x is the baseline, y the candidate. nullopt when any value is <= 0 or not finite, or a side has fewer
// than 2 samples. The interval is also nullopt when confidence is outside (0, 1). Student's t from
// Boost.Math.
std::optional<WelchLogResult> welch_t_log(std::span<const double> x, std::span<const double> y,
                                          double confidence = 0.95);

}  // namespace neuron_gate
