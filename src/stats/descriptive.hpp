#pragma once
// Descriptive statistics of one sample (durations in any one unit). Undefined results are std::nullopt,
// never NaN or 0.0: an empty sample has no median, and a sample with a NaN or an infinity has no mean.

#include <optional>
#include <span>

namespace neuron_gate {

// True when every value is finite (no NaN, no infinity); true for no values.
bool all_finite(std::span<const double> values);

// Median of `values` (the mean of the two middle values when the count is even, as NumPy median).
// nullopt if empty or any value is not finite.
std::optional<double> median(std::span<const double> values);

// Arithmetic mean, computed around the first value so a constant sample gives that value exactly.
// nullopt if empty or any value is not finite.
std::optional<double> mean(std::span<const double> values);

// Sample standard deviation with the n-1 denominator (NumPy std with ddof=1); exactly 0 for a
// constant sample. nullopt if n < 2 or any value is not finite.
std::optional<double> sample_stddev(std::span<const double> values);

// The q-quantile, q in [0, 1], by linear interpolation between order statistics at h = (n-1)q (NumPy
// quantile's default method "linear", Hyndman & Fan 1996 type 7). nullopt if empty, any value is not
// finite, or q is outside [0, 1] or NaN.
std::optional<double> quantile(std::span<const double> values, double q);

}  // namespace neuron_gate
