#include "stats/power.hpp"

#include "stats/descriptive.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>
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

std::optional<double> minimum_detectable_ratio(std::span<const double> x, std::span<const double> y, double alpha,
                                               double power) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (x.size() < 2 || y.size() < 2 || !std::all_of(x.begin(), x.end(), positive) ||
      !std::all_of(y.begin(), y.end(), positive) || !(alpha > 0.0 && alpha < 1.0) ||
      !(power > 0.0 && power < 1.0)) {
    return std::nullopt;
  }
  std::vector<double> log_x(x.size());
  std::vector<double> log_y(y.size());
  std::transform(x.begin(), x.end(), log_x.begin(), [](double v) { return std::log(v); });
  std::transform(y.begin(), y.end(), log_y.begin(), [](double v) { return std::log(v); });
  const double sd_x = *sample_stddev(log_x);
  const double sd_y = *sample_stddev(log_y);
  const double se =
      std::sqrt(sd_x * sd_x / static_cast<double>(x.size()) + sd_y * sd_y / static_cast<double>(y.size()));
  if (!(se > 0.0)) {
    return std::nullopt;
  }
  const boost::math::normal_distribution<double> standard_normal;
  const double z_alpha = boost::math::quantile(boost::math::complement(standard_normal, alpha));
  const double z_power = boost::math::quantile(standard_normal, power);
  return std::exp((z_alpha + z_power) * se);
}

} // namespace neuron_gate
