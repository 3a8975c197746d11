// Binomial proportion: Clopper–Pearson interval.
#include "stats/proportion.hpp"

#include <doctest/doctest.h>

namespace neuron_gate {

TEST_SUITE_BEGIN("stats::proportion");

// Reference bounds: bisection on the exact binomial CDF in Python (math.comb), to 1e-15:
// the upper bound solves P(X <= k) = 0.025, the lower bound P(X >= k) = 0.025.
TEST_CASE("Clopper-Pearson bounds match the binomial CDF inverted by bisection") {
  const auto none = clopper_pearson(0, 200);
  REQUIRE(none);
  CHECK(none->estimate == 0.0);
  CHECK(none->low == 0.0);
  CHECK(none->high == doctest::Approx(0.018275340355136283).epsilon(1e-9));

  const auto three = clopper_pearson(3, 200);
  REQUIRE(three);
  CHECK(three->estimate == doctest::Approx(0.015));
  CHECK(three->low == doctest::Approx(0.003104107621553498).epsilon(1e-9));
  CHECK(three->high == doctest::Approx(0.04320828191771259).epsilon(1e-9));

  const auto ten = clopper_pearson(10, 100);
  REQUIRE(ten);
  CHECK(ten->low == doctest::Approx(0.049004689221485875).epsilon(1e-9));
  CHECK(ten->high == doctest::Approx(0.17622259774002264).epsilon(1e-9));

  const auto all = clopper_pearson(200, 200);
  REQUIRE(all);
  CHECK(all->low == doctest::Approx(0.9817246596448637).epsilon(1e-9));
  CHECK(all->high == 1.0);
}

TEST_CASE("a proportion of no trials or more successes than trials is undefined") {
  CHECK_FALSE(clopper_pearson(0, 0));
  CHECK_FALSE(clopper_pearson(3, 2));
  CHECK_FALSE(clopper_pearson(1, 10, 1.0));
  CHECK_FALSE(clopper_pearson(1, 10, 0.0));
}

TEST_SUITE_END();

}  // namespace neuron_gate
