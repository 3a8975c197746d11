#include "stats/power.hpp"

#include "stats/descriptive.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>
#include <vector>

namespace neuron_gate {

double smallest_attainable_p(std::size_t m, std::size_t n, bool one_sided) {
  // 1/C(m+n, m) = prod_{i=1..a} i / (b + i) with a = min(m, n): every factor is < 1, so no overflow.
  const std::size_t a = std::min(m, n);
  const std::size_t b = std::max(m, n);
  double p = 1;
  for (std::size_t i = 1; i <= a; ++i) {
    p *= static_cast<double>(i) / static_cast<double>(b + i);
  }
  return one_sided ? p : std::min(1.0, 2.0 * p);
}

std::size_t samples_needed_per_side(double alpha) {
  assert(alpha > 0.0 && alpha <= 1.0);
  // 1/C(2n, n) falls by a factor of about 4 per step and underflows near n = 540, so the cap is only
  // reached for alpha below the smallest double.
  constexpr std::size_t k_limit = 600;
  std::size_t n = 1;
  while (n < k_limit && smallest_attainable_p(n, n) > alpha) {
    ++n;
  }
  return n;
}

double smallest_attainable_signed_rank_p(std::size_t pairs) {
  return std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(pairs, 1100)));
}

std::size_t pairs_needed(double alpha) {
  assert(alpha > 0.0 && alpha <= 1.0);
  std::size_t n = 0;
  while (n < 1100 && smallest_attainable_signed_rank_p(n) > alpha) {
    ++n;
  }
  return n;
}

namespace {

// Sample standard deviations of the log values of x and y; nullopt under minimum_detectable_ratio's
// conditions (too few values, a value <= 0 or not finite, alpha or power outside (0, 1)).
std::optional<std::pair<double, double>> log_stddevs(std::span<const double> x, std::span<const double> y, double alpha,
                                                     double power) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (x.size() < 2 || y.size() < 2 || !std::all_of(x.begin(), x.end(), positive) ||
      !std::all_of(y.begin(), y.end(), positive) || !(alpha > 0.0 && alpha < 1.0) || !(power > 0.0 && power < 1.0)) {
    return std::nullopt;
  }
  std::vector<double> log_x(x.size());
  std::vector<double> log_y(y.size());
  std::transform(x.begin(), x.end(), log_x.begin(), [](double v) { return std::log(v); });
  std::transform(y.begin(), y.end(), log_y.begin(), [](double v) { return std::log(v); });
  return std::make_pair(*sample_stddev(log_x), *sample_stddev(log_y));
}

// z_{1-alpha} + z_{power} of the standard normal.
double z_sum(double alpha, double power) {
  const boost::math::normal_distribution<double> standard_normal;
  return boost::math::quantile(boost::math::complement(standard_normal, alpha)) +
         boost::math::quantile(standard_normal, power);
}

}  // namespace

std::optional<double> minimum_detectable_ratio(std::span<const double> x, std::span<const double> y, double alpha,
                                               double power) {
  const auto sd = log_stddevs(x, y, alpha, power);
  if (!sd) {
    return std::nullopt;
  }
  const auto [sd_x, sd_y] = *sd;
  const double se =
      std::sqrt(sd_x * sd_x / static_cast<double>(x.size()) + sd_y * sd_y / static_cast<double>(y.size()));
  if (!(se > 0.0)) {
    return std::nullopt;
  }
  return std::exp(z_sum(alpha, power) * se);
}

std::optional<std::size_t> samples_to_detect(std::span<const double> x, std::span<const double> y, double ratio,
                                             double alpha, double power) {
  const auto sd = log_stddevs(x, y, alpha, power);
  if (!sd || !std::isfinite(ratio) || !(ratio > 0.0) || ratio == 1.0) {
    return std::nullopt;
  }
  const auto [sd_x, sd_y] = *sd;
  const double effect = std::log(ratio);
  const double z = z_sum(alpha, power);
  const double n = std::ceil(z * z * (sd_x * sd_x + sd_y * sd_y) / (effect * effect));
  if (!std::isfinite(n) || n > 1e9) {
    return std::nullopt;
  }
  return std::max(samples_needed_per_side(alpha), static_cast<std::size_t>(std::max(1.0, n)));
}

}  // namespace neuron_gate
