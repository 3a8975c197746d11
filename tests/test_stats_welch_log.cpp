// Welch's t on log values beyond the reference values (test_stats_reference.cpp): degenerate samples.
#include "stats/welch_log.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace neuron_gate {

TEST_SUITE_BEGIN("stats::welch_log");

TEST_CASE("fewer than 2 values on a side, or a value <= 0, gives nullopt") {
  const std::vector<double> empty;
  const std::vector<double> one = {5};
  const std::vector<double> three = {4, 5, 6};
  CHECK_FALSE(welch_t_log(empty, three).has_value());
  CHECK_FALSE(welch_t_log(three, empty).has_value());
  CHECK_FALSE(welch_t_log(one, three).has_value());
  CHECK_FALSE(welch_t_log(three, one).has_value());
  CHECK_FALSE(welch_t_log(std::vector<double>{0, 1, 2}, three).has_value());
  CHECK_FALSE(welch_t_log(three, std::vector<double>{3, -1, 2}).has_value());
  CHECK(welch_t_log(three, three).has_value());
}

TEST_CASE("two constant sides have a ratio but no t, df, p or interval, and nothing is NaN") {
  const std::vector<double> base(6, 2.0);
  const std::vector<double> head(4, 3.0);
  const auto result = welch_t_log(base, head);
  REQUIRE(result.has_value());
  CHECK(result->ratio_of_geometric_means == doctest::Approx(1.5).epsilon(1e-14));
  CHECK_FALSE(result->t.has_value());
  CHECK_FALSE(result->df.has_value());
  CHECK_FALSE(result->p_two_sided.has_value());
  CHECK_FALSE(result->ratio_low.has_value());
  CHECK_FALSE(result->ratio_high.has_value());
}

TEST_CASE("one constant side leaves the other's n - 1 as the Welch-Satterthwaite df") {
  const std::vector<double> base(6, 2.0);
  const std::vector<double> head = {2.9, 3.0, 3.1, 3.05};
  const auto result = welch_t_log(base, head);
  REQUIRE(result.has_value());
  REQUIRE(result->df.has_value());
  CHECK(*result->df == doctest::Approx(3.0).epsilon(1e-12));
  REQUIRE(result->p_two_sided.has_value());
  CHECK(std::isfinite(*result->p_two_sided));
  CHECK(*result->t > 0);
}

TEST_CASE("a higher confidence gives a wider ratio interval around the same ratio") {
  const std::vector<double> base = {10.1, 10.4, 9.8, 10.0, 10.3};
  const std::vector<double> head = {11.2, 11.0, 11.5, 10.9, 10.7};
  const auto at_95 = welch_t_log(base, head, 0.95);
  const auto at_99 = welch_t_log(base, head, 0.99);
  REQUIRE(at_95.has_value());
  REQUIRE(at_99.has_value());
  CHECK(*at_99->ratio_low < *at_95->ratio_low);
  CHECK(*at_99->ratio_high > *at_95->ratio_high);
  CHECK(at_99->ratio_of_geometric_means == at_95->ratio_of_geometric_means);
  CHECK(at_99->p_two_sided == at_95->p_two_sided);
  const auto no_interval = welch_t_log(base, head, 1.0);
  CHECK_FALSE(no_interval->ratio_low.has_value());
  CHECK(no_interval->t == at_95->t);
}

TEST_SUITE_END();

}  // namespace neuron_gate
