#include "stats/welch_log.hpp"

#include "stats/descriptive.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace neuron_gate {

namespace {

// Boost computes a double distribution in long double by default (x87 on x86-64, several times slower);
// in double its cdf and quantile stay within a few ulps, far inside the 1e-9 of the SciPy reference test.
using DoublePrecision = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

std::vector<double> logs(std::span<const double> values) {
  std::vector<double> result(values.size());
  std::transform(values.begin(), values.end(), result.begin(), [](double v) { return std::log(v); });
  return result;
}

}  // namespace

std::optional<WelchLogResult> welch_t_log(std::span<const double> x, std::span<const double> y, double confidence) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (x.size() < 2 || y.size() < 2 || !std::all_of(x.begin(), x.end(), positive) ||
      !std::all_of(y.begin(), y.end(), positive)) {
    return std::nullopt;
  }
  const std::vector<double> log_x = logs(x);
  const std::vector<double> log_y = logs(y);
  // Both sides have >= 2 finite values, so every descriptive statistic below is defined.
  const double difference = *mean(log_y) - *mean(log_x);
  const double sd_x = *sample_stddev(log_x);
  const double sd_y = *sample_stddev(log_y);
  const double var_mean_x = sd_x * sd_x / static_cast<double>(x.size());
  const double var_mean_y = sd_y * sd_y / static_cast<double>(y.size());

  WelchLogResult result;
  result.ratio_of_geometric_means = std::exp(difference);
  const double se_squared = var_mean_x + var_mean_y;
  if (!(se_squared > 0.0)) {
    return result;
  }
  const double se = std::sqrt(se_squared);
  const double df = se_squared * se_squared /
                    (var_mean_x * var_mean_x / static_cast<double>(x.size() - 1) +
                     var_mean_y * var_mean_y / static_cast<double>(y.size() - 1));
  const double t = difference / se;
  if (!std::isfinite(df) || !std::isfinite(t)) {
    return result;  // variances so small that their squares underflow: treat as zero variance
  }
  const boost::math::students_t_distribution<double, DoublePrecision> student(df);
  result.t = t;
  result.df = df;
  result.p_two_sided = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(student, std::abs(t))));
  if (confidence > 0.0 && confidence < 1.0) {
    const double half_width = boost::math::quantile(student, (1.0 + confidence) / 2.0) * se;
    result.ratio_low = std::exp(difference - half_width);
    result.ratio_high = std::exp(difference + half_width);
  }
  return result;
}

}  // namespace neuron_gate
