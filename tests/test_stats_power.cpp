// Feasibility and power: smallest attainable p, samples needed, minimum detectable ratio.
#include "stats/power.hpp"

#include "stats/mann_whitney.hpp"
#include "stats/wilcoxon.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace neuron_gate {

TEST_SUITE_BEGIN("stats::power");

TEST_CASE("smallest attainable p is 1 / C(m+n, m) one-sided and twice that two-sided, capped at 1") {
  CHECK(smallest_attainable_p(4, 4) == doctest::Approx(1.0 / 70.0).epsilon(1e-14));
  CHECK(smallest_attainable_p(4, 4, false) == doctest::Approx(2.0 / 70.0).epsilon(1e-14));
  CHECK(smallest_attainable_p(3, 7) == doctest::Approx(1.0 / 120.0).epsilon(1e-14));
  CHECK(smallest_attainable_p(7, 3) == smallest_attainable_p(3, 7));
  CHECK(smallest_attainable_p(1, 1) == 0.5);
  CHECK(smallest_attainable_p(1, 1, false) == 1.0);
  CHECK(smallest_attainable_p(0, 5) == 1.0);
  CHECK(smallest_attainable_p(50, 50) == doctest::Approx(1.0 / 100891344545564193334812497256.0).epsilon(1e-12));
}

TEST_CASE("smallest attainable p is what the exact U test gives for completely separated samples") {
  const std::vector<double> base = {1, 2, 3, 4, 5, 6};
  const std::vector<double> head = {10, 11, 12, 13};
  const MannWhitneyResult one_sided = mann_whitney_u(base, head, Alternative::less);
  const MannWhitneyResult two_sided = mann_whitney_u(base, head, Alternative::two_sided);
  REQUIRE(one_sided.method == UMethod::exact);
  CHECK(*one_sided.p == doctest::Approx(smallest_attainable_p(6, 4)).epsilon(1e-12));
  CHECK(*two_sided.p == doctest::Approx(smallest_attainable_p(6, 4, false)).epsilon(1e-12));
}

TEST_CASE("signed-rank: smallest attainable p is 2^-pairs, the exact test's p when every difference is positive") {
  CHECK(smallest_attainable_signed_rank_p(0) == 1.0);
  CHECK(smallest_attainable_signed_rank_p(4) == 0.0625);
  CHECK(smallest_attainable_signed_rank_p(5) == 0.03125);
  const std::vector<double> four = {0.1, 0.2, 0.3, 0.4};
  CHECK(wilcoxon_signed_rank(four, Alternative::greater).p == smallest_attainable_signed_rank_p(4));
  CHECK(pairs_needed(0.05) == 5);
  CHECK(pairs_needed(0.0625) == 4);
  CHECK(pairs_needed(0.05 / 20) == 9);  // 2^-9 = 0.00195 <= 0.0025 < 2^-8
  CHECK(pairs_needed(1.0) == 0);
}

TEST_CASE("samples needed per side is the smallest n with 1 / C(2n, n) <= alpha") {
  CHECK(samples_needed_per_side(0.05) == 3);       // 1/20
  CHECK(samples_needed_per_side(0.05 / 50) == 7);  // 1/924 > 0.001 >= 1/3432
  CHECK(samples_needed_per_side(1.0) == 1);
  CHECK(samples_needed_per_side(0.5) == 1);
  CHECK(samples_needed_per_side(0.4) == 2);
  for (const double alpha : {0.1, 0.01, 1e-3, 1e-6, 1e-12, 1e-100}) {
    CAPTURE(alpha);
    const std::size_t n = samples_needed_per_side(alpha);
    CHECK(smallest_attainable_p(n, n) <= alpha);
    CHECK(smallest_attainable_p(n - 1, n - 1) > alpha);
  }
}

TEST_CASE("minimum detectable ratio is exp((z_(1-alpha) + z_power) * se) of the log values") {
  // log values -1, +1 on each side: sample sd sqrt(2), se = sqrt(2/2 + 2/2) = sqrt(2).
  const std::vector<double> side = {std::exp(-1.0), std::exp(1.0)};
  const double z_95 = 1.6448536269514722;  // scipy.stats.norm.ppf(0.95)
  const double z_80 = 0.8416212335729143;  // scipy.stats.norm.ppf(0.80)
  const auto ratio = minimum_detectable_ratio(side, side, 0.05, 0.8);
  REQUIRE(ratio.has_value());
  CHECK(*ratio == doctest::Approx(std::exp((z_95 + z_80) * std::sqrt(2.0))).epsilon(1e-12));
}

TEST_CASE("minimum detectable ratio shrinks with more samples and grows with noise") {
  std::vector<double> quiet;
  std::vector<double> noisy;
  for (int i = 0; i < 10; ++i) {
    quiet.push_back(100.0 + (i % 2 == 0 ? 1.0 : -1.0));
    noisy.push_back(100.0 + (i % 2 == 0 ? 5.0 : -5.0));
  }
  std::vector<double> quiet_more = quiet;
  quiet_more.insert(quiet_more.end(), quiet.begin(), quiet.end());
  const double from_quiet = *minimum_detectable_ratio(quiet, quiet, 0.001);
  CHECK(from_quiet > 1.0);
  CHECK(*minimum_detectable_ratio(noisy, noisy, 0.001) > from_quiet);
  CHECK(*minimum_detectable_ratio(quiet_more, quiet_more, 0.001) < from_quiet);
  CHECK(*minimum_detectable_ratio(quiet, quiet, 0.01) < from_quiet);
}

TEST_CASE("minimum detectable ratio is nullopt without noise, with values <= 0, n < 2 or bad levels") {
  const std::vector<double> constant(8, 40.0);
  const std::vector<double> varied = {38, 40, 41, 39, 40, 42};
  CHECK_FALSE(minimum_detectable_ratio(constant, constant, 0.05).has_value());
  CHECK(minimum_detectable_ratio(constant, varied, 0.05).has_value());
  CHECK_FALSE(minimum_detectable_ratio(std::vector<double>{40}, varied, 0.05).has_value());
  CHECK_FALSE(minimum_detectable_ratio(varied, std::vector<double>{}, 0.05).has_value());
  CHECK_FALSE(minimum_detectable_ratio(std::vector<double>{0, 1, 2}, varied, 0.05).has_value());
  CHECK_FALSE(minimum_detectable_ratio(varied, varied, 0.0).has_value());
  CHECK_FALSE(minimum_detectable_ratio(varied, varied, 0.05, 1.0).has_value());
}

TEST_SUITE_END();

}  // namespace neuron_gate
