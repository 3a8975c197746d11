#include "stats/descriptive.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace neuron_gate {

bool all_finite(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

namespace {

std::vector<double> sorted_copy(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// NumPy's _lerp: a + (b - a) t, evaluated from the nearer end so that t = 1 gives b exactly.
double lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

}  // namespace

std::optional<double> median(std::span<const double> values) {
  if (values.empty() || !all_finite(values)) {
    return std::nullopt;
  }
  const std::vector<double> sorted = sorted_copy(values);
  const std::size_t n = sorted.size();
  if (n % 2 == 1) {
    return sorted[n / 2];
  }
  return (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

std::optional<double> mean(std::span<const double> values) {
  if (values.empty() || !all_finite(values)) {
    return std::nullopt;
  }
  // Summing deviations from the first value keeps a constant sample exact (and loses less precision
  // when the values share a large offset, as durations of one op do).
  const double origin = values.front();
  double sum = 0;
  for (const double v : values) {
    sum += v - origin;
  }
  return origin + sum / static_cast<double>(values.size());
}

std::optional<double> sample_stddev(std::span<const double> values) {
  if (values.size() < 2) {
    return std::nullopt;
  }
  const std::optional<double> centre = mean(values);
  if (!centre) {
    return std::nullopt;
  }
  double sum_squares = 0;
  for (const double v : values) {
    sum_squares += (v - *centre) * (v - *centre);
  }
  return std::sqrt(sum_squares / static_cast<double>(values.size() - 1));
}

std::optional<double> quantile(std::span<const double> values, double q) {
  if (values.empty() || !all_finite(values) || !(q >= 0.0 && q <= 1.0)) {
    return std::nullopt;
  }
  const std::vector<double> sorted = sorted_copy(values);
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto below = static_cast<std::size_t>(std::floor(h));
  if (below + 1 >= sorted.size()) {
    return sorted.back();
  }
  return lerp(sorted[below], sorted[below + 1], h - static_cast<double>(below));
}

}  // namespace neuron_gate
