// Descriptive statistics: NumPy's values on small samples, and nullopt where NumPy would give NaN or 0.
#include "stats/descriptive.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace neuron_gate {

TEST_SUITE_BEGIN("stats::descriptive");

TEST_CASE("median, mean, sample standard deviation and quantiles match NumPy") {
  const std::vector<double> values = {9, 2, 4, 4, 5, 5, 7, 4};  // sorted: 2 4 4 4 5 5 7 9
  CHECK(median(values) == 4.5);
  CHECK(mean(values) == 5.0);
  CHECK(*sample_stddev(values) == doctest::Approx(std::sqrt(32.0 / 7.0)).epsilon(1e-15));  // np.std(ddof=1)
  CHECK(median(std::vector<double>{3, 1, 2}) == 2.0);
  // np.quantile(v, q) with the default method "linear": h = (n-1) q.
  CHECK(quantile(values, 0.0) == 2.0);
  CHECK(quantile(values, 1.0) == 9.0);
  CHECK(quantile(values, 0.5) == median(values));
  CHECK(*quantile(values, 0.9) == doctest::Approx(7.6).epsilon(1e-15));  // h = 6.3: 7 + 0.3 * 2
  CHECK(*quantile(std::vector<double>{1, 2, 3, 4}, 0.25) == 1.75);
  CHECK(quantile(std::vector<double>{42}, 0.3) == 42.0);
}

TEST_CASE("empty input gives nullopt for every statistic, and one value has no standard deviation") {
  const std::vector<double> empty;
  CHECK_FALSE(median(empty).has_value());
  CHECK_FALSE(mean(empty).has_value());
  CHECK_FALSE(sample_stddev(empty).has_value());
  CHECK_FALSE(quantile(empty, 0.5).has_value());
  const std::vector<double> one = {3.5};
  CHECK(median(one) == 3.5);
  CHECK(mean(one) == 3.5);
  CHECK_FALSE(sample_stddev(one).has_value());
}

TEST_CASE("a constant sample has its value as mean and exactly zero standard deviation") {
  // 0.1 summed ten times is not 1.0 in binary, so a naive mean would not give 0.1 back exactly.
  const std::vector<double> constant(10, 0.1);
  CHECK(mean(constant) == 0.1);
  CHECK(median(constant) == 0.1);
  CHECK(sample_stddev(constant) == 0.0);
  CHECK(quantile(constant, 0.37) == 0.1);
}

TEST_CASE("NaN or infinite values and q outside [0, 1] give nullopt, never NaN") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  for (const std::vector<double>& bad : {std::vector<double>{1, nan, 3}, std::vector<double>{1, infinity, -infinity}}) {
    CHECK_FALSE(median(bad).has_value());
    CHECK_FALSE(mean(bad).has_value());
    CHECK_FALSE(sample_stddev(bad).has_value());
    CHECK_FALSE(quantile(bad, 0.5).has_value());
  }
  const std::vector<double> values = {1, 2, 3};
  CHECK_FALSE(quantile(values, -0.01).has_value());
  CHECK_FALSE(quantile(values, 1.01).has_value());
  CHECK_FALSE(quantile(values, nan).has_value());
}

TEST_SUITE_END();

}  // namespace neuron_gate
