// Mann–Whitney U beyond the SciPy reference values (those are in test_stats_reference.cpp): the automatic
// method policy, agreement of the two exact algorithms, degenerate samples and symmetry.
#include "stats/mann_whitney.hpp"

#include "stats/power.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <vector>

namespace neuron_gate {
namespace {

// n distinct values 0, 1, ..., n-1 scaled and shifted.
std::vector<double> distinct(std::size_t n, double offset, double step = 1.0) {
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = offset + step * static_cast<double>(i);
  }
  return values;
}

bool relative_close(double a, double b, double tolerance) {
  return std::abs(a - b) <= tolerance * std::abs(b);
}

constexpr Alternative k_alternatives[] = {Alternative::two_sided, Alternative::greater, Alternative::less};

}  // namespace

TEST_SUITE_BEGIN("stats::mann_whitney");

TEST_CASE("automatic uses the exact distribution without ties up to 50 per side, then the normal approximation") {
  const auto x50 = distinct(50, 0.25);
  const auto y50 = distinct(50, 0.75);
  CHECK(mann_whitney_u(x50, y50, Alternative::less).method == UMethod::exact);
  const auto y51 = distinct(51, 0.75);
  CHECK(mann_whitney_u(x50, y51, Alternative::less).method == UMethod::asymptotic_continuity);
  CHECK(mann_whitney_u(distinct(1, 0), distinct(50, 0.5), Alternative::less).method == UMethod::exact);
}

TEST_CASE("automatic uses the exact conditional distribution with ties up to m + n = 100") {
  const auto x = distinct(50, 0);
  const auto y = distinct(50, 0);  // every value tied across the sides
  const MannWhitneyResult tied = mann_whitney_u(x, y, Alternative::less);
  CHECK(tied.has_ties);
  CHECK(tied.method == UMethod::exact_conditional);
  REQUIRE(tied.p.has_value());
  CHECK(*tied.p > 0.5);
  const MannWhitneyResult larger = mann_whitney_u(x, distinct(51, 0), Alternative::less);
  CHECK(larger.method == UMethod::asymptotic_continuity);
}

TEST_CASE("explicit exact methods fall back to the corrected normal approximation beyond their hard limits") {
  const auto x = distinct(101, 0);
  const auto y = distinct(100, 0);
  CHECK(mann_whitney_u(x, y, Alternative::less, UMethod::exact_conditional).method == UMethod::asymptotic_continuity);
  CHECK(mann_whitney_u(x, y, Alternative::less, UMethod::exact).method == UMethod::asymptotic_continuity);
  CHECK(mann_whitney_u(distinct(21, 0.5), distinct(1000, 0), Alternative::less, UMethod::exact).method ==
        UMethod::asymptotic_continuity);
  CHECK(mann_whitney_u(distinct(21, 0.5), distinct(979, 0), Alternative::less, UMethod::exact).method ==
        UMethod::exact);
}

TEST_CASE("a small side stays exact against a large one while the work is bounded") {
  // No ties: any larger side within the work cap.
  CHECK(mann_whitney_u(distinct(1, 0.5), distinct(1000, 0), Alternative::less).method == UMethod::exact);
  CHECK(mann_whitney_u(distinct(20, 0.5), distinct(5000, 0), Alternative::less).method == UMethod::exact);
  CHECK(mann_whitney_u(distinct(21, 0.5), distinct(5000, 0), Alternative::less).method ==
        UMethod::asymptotic_continuity);
  // Ties: 3 vs 2,000 is within the cap, 3 vs 2,100 is not; 20 vs 300 is, 20 vs 400 is not.
  const auto tied = [](std::size_t n) {
    std::vector<double> values;
    for (std::size_t i = 0; i < n; ++i) {
      values.push_back(static_cast<double>(i % 7));
    }
    return values;
  };
  CHECK(exact_work(3, 2000, true) <= k_exact_max_work);
  CHECK(exact_work(3, 2100, true) > k_exact_max_work);
  CHECK(mann_whitney_u(tied(3), tied(2000), Alternative::less).method == UMethod::exact_conditional);
  CHECK(mann_whitney_u(tied(3), tied(2100), Alternative::less).method == UMethod::asymptotic_continuity);
  CHECK(mann_whitney_u(tied(20), tied(300), Alternative::less).method == UMethod::exact_conditional);
  CHECK(mann_whitney_u(tied(400), tied(20), Alternative::less).method == UMethod::asymptotic_continuity);
}

TEST_CASE("3 vs 200 heavily tied values: the exact conditional p equals complete enumeration of the splits") {
  // Integer-µs-like durations: base 3 steps, head 200 steps over 6 distinct values.
  const std::vector<double> base = {3, 3, 4};
  std::vector<double> head;
  for (std::size_t i = 0; i < 200; ++i) {
    head.push_back(static_cast<double>(4 + (i * 7) % 6));  // 4..9, 33 or 34 of each
  }
  std::vector<double> pooled = base;
  pooled.insert(pooled.end(), head.begin(), head.end());
  // A split's U is the sum over its 3 chosen values of their comparisons with all 203 values (1 per
  // smaller value, 1/2 per equal one), minus the comparisons among the chosen (3 pairs of 1, 3 selves of 1/2).
  std::vector<double> score(pooled.size(), 0.0);
  for (std::size_t r = 0; r < pooled.size(); ++r) {
    for (const double value : pooled) {
      score[r] += pooled[r] > value ? 1.0 : (pooled[r] == value ? 0.5 : 0.0);
    }
  }
  const double observed = score[0] + score[1] + score[2] - 4.5;
  // Every choice of 3 of the 203 values: 1,373,701 splits.
  std::map<double, double> weight_of_u;
  double splits = 0;
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    for (std::size_t j = i + 1; j < pooled.size(); ++j) {
      for (std::size_t k = j + 1; k < pooled.size(); ++k) {
        weight_of_u[score[i] + score[j] + score[k] - 4.5] += 1.0;
        splits += 1.0;
      }
    }
  }
  double at_most = 0;
  for (const auto& [u, weight] : weight_of_u) {
    at_most += u <= observed ? weight : 0.0;
  }
  const MannWhitneyResult result = mann_whitney_u(base, head, Alternative::greater);
  CHECK(result.method == UMethod::exact_conditional);
  CHECK(result.u1 == observed);
  const MannWhitneyResult less = mann_whitney_u(base, head, Alternative::less);
  REQUIRE(less.p.has_value());
  CHECK(relative_close(*less.p, at_most / splits, 1e-9));
  // SciPy permutation_test, exact (tests/tools/reference_mwu_exact.py): 35 of 1,373,701 splits.
  CHECK(relative_close(*less.p, 2.547861579776094e-05, 1e-9));
  // The normal approximation is off by orders of magnitude here.
  const MannWhitneyResult approximate = mann_whitney_u(base, head, Alternative::less, UMethod::asymptotic_continuity);
  REQUIRE(approximate.p.has_value());
  CHECK(std::fabs(std::log10(*approximate.p / *less.p)) >
        1.0);  // 2.3e-3 vs 2.5e-5 (SciPy permutation_test, n_resamples=inf: 2.547861579776094e-05)
}

TEST_CASE("3 equal values against 200 equal larger values: exact conditional p is 1 / C(203, 3), not 5e-46") {
  const std::vector<double> base(3, 2.0);
  const std::vector<double> head(200, 3.0);
  const MannWhitneyResult exact = mann_whitney_u(base, head, Alternative::less);
  CHECK(exact.method == UMethod::exact_conditional);
  REQUIRE(exact.p.has_value());
  CHECK(relative_close(*exact.p, 1.0 / 1373701.0, 1e-9));  // C(203, 3) = 1,373,701: 7.3e-7
  const MannWhitneyResult approximate = mann_whitney_u(base, head, Alternative::less, UMethod::asymptotic_continuity);
  REQUIRE(approximate.p.has_value());
  CHECK(*approximate.p < 1e-40);  // the tie-corrected variance is tiny: the approximation claims far too much
}

TEST_CASE("exact conditional p equals the exact p on tie-free samples, for both algorithms at m = n = 50") {
  std::mt19937_64 generator(20240601);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (const double shift : {0.0, 0.3, 1.0, 3.0, 10.0}) {
    CAPTURE(shift);
    std::vector<double> x(50);
    std::vector<double> y(40);
    for (double& v : x) {
      v = noise(generator);
    }
    for (double& v : y) {
      v = noise(generator) + shift;
    }
    for (const Alternative alternative : k_alternatives) {
      CAPTURE(static_cast<int>(alternative));
      const MannWhitneyResult exact = mann_whitney_u(x, y, alternative, UMethod::exact);
      const MannWhitneyResult conditional = mann_whitney_u(x, y, alternative, UMethod::exact_conditional);
      REQUIRE(!exact.has_ties);
      REQUIRE(exact.p.has_value());
      REQUIRE(conditional.p.has_value());
      CAPTURE(*exact.p);
      CAPTURE(*conditional.p);
      CHECK(relative_close(*exact.p, *conditional.p, 1e-9));
      CHECK(exact.u1 == conditional.u1);
    }
  }
}

TEST_CASE("exact conditional p equals brute-force enumeration of all C(m+n, m) splits on tied samples") {
  std::mt19937_64 generator(99);
  struct Shape {
    std::size_t m, n;
    int levels;  // values drawn from 1..levels, so ties are common
  };
  for (const Shape shape : {Shape{3, 4, 3}, Shape{5, 9, 4}, Shape{8, 8, 5}, Shape{11, 6, 7}, Shape{7, 11, 2},
                            Shape{1, 12, 3}, Shape{9, 9, 30}}) {
    std::uniform_int_distribution<int> level(1, shape.levels);
    std::vector<double> pooled(shape.m + shape.n);
    for (double& v : pooled) {
      v = level(generator);
    }
    const std::vector<double> x(pooled.begin(), pooled.begin() + static_cast<std::ptrdiff_t>(shape.m));
    const std::vector<double> y(pooled.begin() + static_cast<std::ptrdiff_t>(shape.m), pooled.end());
    // Doubled U1 of a split: 2 per pair (x > y), 1 per tied pair.
    const auto doubled_u1 = [&](const std::vector<bool>& in_x) {
      long long u = 0;
      for (std::size_t i = 0; i < pooled.size(); ++i) {
        for (std::size_t j = 0; j < pooled.size(); ++j) {
          if (in_x[i] && !in_x[j]) {
            u += pooled[i] > pooled[j] ? 2 : pooled[i] == pooled[j] ? 1 : 0;
          }
        }
      }
      return u;
    };
    std::vector<bool> in_x(pooled.size(), false);
    std::fill(in_x.begin(), in_x.begin() + static_cast<std::ptrdiff_t>(shape.m), true);
    const long long observed = doubled_u1(in_x);
    const long long mn = static_cast<long long>(shape.m * shape.n);
    double splits = 0;
    double at_least = 0;
    double at_most = 0;
    double as_far = 0;
    // std::prev_permutation walks every arrangement of m trues among m + n positions once.
    do {
      const long long u = doubled_u1(in_x);
      splits += 1;
      at_least += u >= observed ? 1 : 0;
      at_most += u <= observed ? 1 : 0;
      as_far += std::llabs(u - mn) >= std::llabs(observed - mn) ? 1 : 0;
    } while (std::prev_permutation(in_x.begin(), in_x.end()));
    CAPTURE(shape.m);
    CAPTURE(shape.n);
    CAPTURE(shape.levels);
    CAPTURE(observed);
    const auto p = [&](Alternative alternative) {
      return *mann_whitney_u(x, y, alternative, UMethod::exact_conditional).p;
    };
    CHECK(relative_close(p(Alternative::greater), at_least / splits, 1e-12));
    CHECK(relative_close(p(Alternative::less), at_most / splits, 1e-12));
    CHECK(relative_close(p(Alternative::two_sided), as_far / splits, 1e-12));
  }
}

TEST_CASE("exact p of complete separation is 1 / C(m+n, m), tiny but never 0") {
  const auto low = distinct(50, 0);
  const auto high = distinct(50, 100);
  const MannWhitneyResult separated = mann_whitney_u(low, high, Alternative::less, UMethod::exact);
  CHECK(separated.u1 == 0);
  REQUIRE(separated.p.has_value());
  CHECK(*separated.p > 0);
  // 1 / C(100, 50) = 1 / 100891344545564193334812497256
  CHECK(relative_close(*separated.p, 1.0 / 100891344545564193334812497256.0, 1e-12));
  CHECK(relative_close(*separated.p, smallest_attainable_p(50, 50), 1e-12));
  const MannWhitneyResult conditional = mann_whitney_u(low, high, Alternative::less, UMethod::exact_conditional);
  REQUIRE(conditional.p.has_value());
  CHECK(relative_close(*conditional.p, *separated.p, 1e-9));
  const MannWhitneyResult other_way = mann_whitney_u(low, high, Alternative::greater, UMethod::exact);
  CHECK(*other_way.p == doctest::Approx(1.0));
}

TEST_CASE("swapping x and y swaps greater and less and keeps two-sided, for every method") {
  // Unequal sizes with ties, so the conditional distribution is not symmetric and the DP runs mirrored.
  const std::vector<double> x = {3, 1, 4, 1, 5, 9, 2, 6};
  const std::vector<double> y = {2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5};
  for (const UMethod method : {UMethod::exact_conditional, UMethod::asymptotic, UMethod::asymptotic_continuity}) {
    CAPTURE(static_cast<int>(method));
    const MannWhitneyResult xy_greater = mann_whitney_u(x, y, Alternative::greater, method);
    const MannWhitneyResult yx_less = mann_whitney_u(y, x, Alternative::less, method);
    const MannWhitneyResult xy_two = mann_whitney_u(x, y, Alternative::two_sided, method);
    const MannWhitneyResult yx_two = mann_whitney_u(y, x, Alternative::two_sided, method);
    CHECK(xy_greater.u1 + mann_whitney_u(y, x, Alternative::less, method).u1 == doctest::Approx(96.0));
    REQUIRE(xy_greater.p.has_value());
    REQUIRE(yx_less.p.has_value());
    CHECK(relative_close(*xy_greater.p, *yx_less.p, 1e-12));
    CHECK(relative_close(*xy_two.p, *yx_two.p, 1e-12));
  }
}

TEST_CASE("constant samples give U = mn/2 and p 1 or nullopt, never NaN") {
  const std::vector<double> same(5, 5.0);
  for (const Alternative alternative : k_alternatives) {
    CAPTURE(static_cast<int>(alternative));
    for (const UMethod method :
         {UMethod::automatic, UMethod::exact, UMethod::exact_conditional, UMethod::asymptotic_continuity}) {
      CAPTURE(static_cast<int>(method));
      const MannWhitneyResult result = mann_whitney_u(same, same, alternative, method);
      CHECK(result.u1 == 12.5);
      CHECK(result.has_ties);
      CHECK(result.method != UMethod::automatic);
      REQUIRE(result.p.has_value());
      CHECK(*result.p == 1.0);
    }
    // Zero variance without continuity correction: z = 0/0 is undefined.
    CHECK_FALSE(mann_whitney_u(same, same, alternative, UMethod::asymptotic).p.has_value());
  }
}

TEST_CASE("two different constant samples are completely separated and every p is finite") {
  const std::vector<double> base(5, 1.0);
  const std::vector<double> head(5, 2.0);
  for (const UMethod method : {UMethod::automatic, UMethod::asymptotic, UMethod::asymptotic_continuity}) {
    CAPTURE(static_cast<int>(method));
    const MannWhitneyResult result = mann_whitney_u(base, head, Alternative::less, method);
    CHECK(result.u1 == 0);
    REQUIRE(result.p.has_value());
    CHECK(std::isfinite(*result.p));
  }
  const MannWhitneyResult exact = mann_whitney_u(base, head, Alternative::less);
  CHECK(exact.method == UMethod::exact_conditional);
  CHECK(*exact.p == doctest::Approx(1.0 / 252.0));
}

TEST_CASE("an empty side gives p nullopt under every method") {
  const std::vector<double> empty;
  const std::vector<double> some = {1, 2, 3};
  for (const UMethod method : {UMethod::automatic, UMethod::exact, UMethod::exact_conditional, UMethod::asymptotic,
                               UMethod::asymptotic_continuity}) {
    CAPTURE(static_cast<int>(method));
    for (const Alternative alternative : k_alternatives) {
      const MannWhitneyResult left = mann_whitney_u(empty, some, alternative, method);
      CHECK_FALSE(left.p.has_value());
      CHECK(left.u1 == 0);
      CHECK(left.method != UMethod::automatic);
      CHECK_FALSE(mann_whitney_u(some, empty, alternative, method).p.has_value());
      CHECK_FALSE(mann_whitney_u(empty, empty, alternative, method).p.has_value());
    }
  }
}

TEST_CASE("a NaN value gives p nullopt, while infinities rank as the extremes") {
  const std::vector<double> with_nan = {1, std::numeric_limits<double>::quiet_NaN(), 3};
  const std::vector<double> some = {1.5, 2.5, 3.5};
  CHECK_FALSE(mann_whitney_u(with_nan, some, Alternative::less).p.has_value());
  CHECK_FALSE(mann_whitney_u(some, with_nan, Alternative::less).p.has_value());
  const double infinity = std::numeric_limits<double>::infinity();
  const std::vector<double> with_infinity = {1, 2, infinity};
  const MannWhitneyResult ranked = mann_whitney_u(with_infinity, some, Alternative::greater);
  CHECK(ranked.u1 == 4);  // 1 beats nothing, 2 beats 1.5, infinity beats all three
  REQUIRE(ranked.p.has_value());
  CHECK(std::isfinite(*ranked.p));
}

TEST_CASE("the exact p at n = 15 per side is the fraction of the C(30, 15) splits at least as extreme") {
  // y = x + 0.5 with x = 0..14: U1 counts pairs with x_i > y_j, i.e. i > j, so U1 = 105.
  const auto x = distinct(15, 0);
  const auto y = distinct(15, 0.5);
  const MannWhitneyResult result = mann_whitney_u(x, y, Alternative::less);
  CHECK(result.method == UMethod::exact);
  CHECK(result.u1 == 105);
  const MannWhitneyResult asymptotic = mann_whitney_u(x, y, Alternative::less, UMethod::asymptotic_continuity);
  REQUIRE(result.p.has_value());
  REQUIRE(asymptotic.p.has_value());
  // U1 = 105 of mean 112.5: a weak effect, the exact and corrected normal p agree to a few percent.
  CHECK(*result.p == doctest::Approx(*asymptotic.p).epsilon(0.05));
  CHECK(*result.p > 0.3);
}

TEST_SUITE_END();

}  // namespace neuron_gate
