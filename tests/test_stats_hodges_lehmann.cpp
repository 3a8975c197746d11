// Hodges–Lehmann estimates beyond the reference values (test_stats_reference.cpp): the selection of the
// k-th pairwise difference against brute force, hand-worked values, and undefined inputs.
#include "stats/hodges_lehmann.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace neuron_gate {
namespace {

std::vector<double> all_differences(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> differences;
  differences.reserve(x.size() * y.size());
  for (const double xi : x) {
    for (const double yj : y) {
      differences.push_back(yj - xi);
    }
  }
  std::sort(differences.begin(), differences.end());
  return differences;
}

}  // namespace

TEST_SUITE_BEGIN("stats::hodges_lehmann");

TEST_CASE("the k-th pairwise difference equals the k-th of all m*n differences sorted") {
  std::mt19937_64 generator(7);
  std::lognormal_distribution<double> durations(3.0, 0.2);
  struct Shape {
    std::size_t m, n;
    double quantum;  // 0: continuous values; otherwise rounded to this step, so many differences tie
  };
  for (const Shape shape : {Shape{1, 1, 0}, Shape{1, 7, 0}, Shape{5, 3, 0}, Shape{13, 11, 1.0}, Shape{40, 60, 0},
                            Shape{300, 200, 0}, Shape{300, 200, 1.0}, Shape{250, 250, 0.001}, Shape{2, 3000, 0}}) {
    CAPTURE(shape.m);
    CAPTURE(shape.n);
    CAPTURE(shape.quantum);
    std::vector<double> x(shape.m);
    std::vector<double> y(shape.n);
    for (auto* side : {&x, &y}) {
      for (double& v : *side) {
        v = durations(generator);
        if (shape.quantum > 0) {
          v = std::round(v / shape.quantum) * shape.quantum;
        }
      }
      std::sort(side->begin(), side->end());
    }
    const std::vector<double> expected = all_differences(x, y);
    const std::size_t step = std::max<std::size_t>(1, expected.size() / 97);
    for (std::size_t k = 0; k < expected.size(); k += step) {
      CAPTURE(k);
      CHECK(kth_pairwise_difference(x, y, k) == expected[k]);
    }
    CHECK(kth_pairwise_difference(x, y, expected.size() - 1) == expected.back());
    CHECK(kth_pairwise_difference(x, y, expected.size() / 2) == expected[expected.size() / 2]);
  }
}

TEST_CASE("several ranks selected together equal brute force on random sizes, ties and skewed shapes") {
  std::mt19937_64 generator(21);
  std::lognormal_distribution<double> durations(3.0, 0.3);
  std::uniform_int_distribution<std::size_t> size(1, 90);
  std::uniform_int_distribution<int> shape(0, 3);
  for (int trial = 0; trial < 400; ++trial) {
    // Shape 0: continuous; 1: rounded to 1 (heavy ties); 2: few distinct values; 3: one side tiny.
    const int kind = shape(generator);
    std::size_t m = size(generator);
    std::size_t n = kind == 3 ? 1 + size(generator) % 3 : size(generator);
    if (trial % 2 == 1) {
      std::swap(m, n);
    }
    if (trial % 50 == 0) {
      m *= 8;  // a few larger ones, past the listing limit
      n *= 8;
    }
    std::vector<double> x(m);
    std::vector<double> y(n);
    for (auto* side : {&x, &y}) {
      for (double& v : *side) {
        v = durations(generator);
        if (kind == 1) {
          v = std::round(v);
        } else if (kind == 2) {
          v = 20.0 + std::floor(v / 10.0);
        }
      }
      std::sort(side->begin(), side->end());
    }
    CAPTURE(trial);
    CAPTURE(m);
    CAPTURE(n);
    const std::vector<double> expected = all_differences(x, y);
    std::uniform_int_distribution<std::size_t> rank(0, expected.size() - 1);
    std::vector<std::size_t> ranks = {0, expected.size() - 1, expected.size() / 2, rank(generator), rank(generator)};
    ranks.push_back(ranks[3]);  // the same rank twice
    const std::vector<double> values = pairwise_difference_ranks(x, y, ranks);
    REQUIRE(values.size() == ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      CAPTURE(ranks[r]);
      CHECK(values[r] == expected[ranks[r]]);
    }
    // The estimate and interval are the brute-force median and Moses order statistics, exactly.
    const auto shift = hodges_lehmann_shift(x, y, 0.9);
    REQUIRE(shift.has_value());
    const std::size_t pairs = expected.size();
    const double median = pairs % 2 == 1 ? expected[pairs / 2] : (expected[pairs / 2 - 1] + expected[pairs / 2]) / 2.0;
    CHECK(shift->estimate == median);
    if (const auto c = moses_rank(m, n, 0.9)) {
      REQUIRE(shift->ci_low.has_value());
      CHECK(*shift->ci_low == expected[*c - 1]);
      CHECK(*shift->ci_high == expected[pairs - *c]);
    } else {
      CHECK_FALSE(shift->ci_low.has_value());
    }
  }
}

TEST_CASE("the k-th difference is found when all differences are equal or a few values are extreme") {
  const std::vector<double> ones(400, 1.0);
  const std::vector<double> twos(300, 2.0);
  CHECK(kth_pairwise_difference(ones, twos, 0) == 1.0);
  CHECK(kth_pairwise_difference(ones, twos, 60'000) == 1.0);
  CHECK(kth_pairwise_difference(ones, twos, 119'999) == 1.0);
  std::vector<double> x(500);
  std::vector<double> y(500);
  for (std::size_t i = 0; i < 500; ++i) {
    x[i] = 10.0 + 1e-9 * static_cast<double>(i);
    y[i] = 10.0 + 2e-9 * static_cast<double>(i);
  }
  y.back() = 1e300;
  x.front() = -1e300;
  std::sort(x.begin(), x.end());
  const std::vector<double> expected = all_differences(x, y);
  for (const std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{124'999}, std::size_t{125'000},
                              std::size_t{249'998}, std::size_t{249'999}}) {
    CAPTURE(k);
    CHECK(kth_pairwise_difference(x, y, k) == expected[k]);
  }
}

TEST_CASE("shift estimate and interval are the median and order statistics of the pairwise differences") {
  // Differences y - x: {1,0,-1, 2,1,0, 3,2,1} -> sorted -1 0 0 1 1 1 2 2 3, median 1.
  const std::vector<double> x = {1, 2, 3};
  const std::vector<double> y = {2, 3, 4};
  const auto shift = hodges_lehmann_shift(x, y);
  REQUIRE(shift.has_value());
  CHECK(shift->estimate == 1.0);
  CHECK_FALSE(shift->ci_low.has_value());  // 3 x 3 is too small for a 95% interval: C < 1
  // With C = 2 (confidence ~ 0.5): D_(2) = 0, D_(8) = 2.
  REQUIRE(moses_rank(3, 3, 0.5) == std::optional<std::size_t>(2));
  const auto wide = hodges_lehmann_shift(x, y, 0.5);
  REQUIRE(wide->ci_low.has_value());
  CHECK(*wide->ci_low == 0.0);
  CHECK(*wide->ci_high == 2.0);
  // An even number of differences: the mean of the two middle ones. y - x = {1, 3, -1, 1} -> (1 + 1) / 2.
  CHECK(hodges_lehmann_shift(std::vector<double>{1, 3}, std::vector<double>{2, 4})->estimate == 1.0);
  CHECK(hodges_lehmann_shift(std::vector<double>{0, 10}, std::vector<double>{1, 2})->estimate == -3.5);
}

TEST_CASE("ratio estimate of y = 1.25 x is 1.25, with the interval collapsed on it") {
  const std::vector<double> x = {8, 8, 8, 8, 8, 8, 8, 8};
  const std::vector<double> y = {10, 10, 10, 10, 10, 10, 10, 10};
  const auto ratio = hodges_lehmann_ratio(x, y);
  REQUIRE(ratio.has_value());
  CHECK(ratio->estimate == doctest::Approx(1.25).epsilon(1e-14));
  REQUIRE(ratio->ci_low.has_value());
  CHECK(*ratio->ci_low == ratio->estimate);
  CHECK(*ratio->ci_high == ratio->estimate);
}

TEST_CASE("a wider confidence gives a smaller Moses rank and a wider interval") {
  CHECK(*moses_rank(20, 20, 0.99) < *moses_rank(20, 20, 0.95));
  CHECK(*moses_rank(20, 20, 0.95) < *moses_rank(20, 20, 0.80));
  std::vector<double> x(20);
  std::vector<double> y(20);
  for (std::size_t i = 0; i < 20; ++i) {
    x[i] = 10.0 + 0.37 * static_cast<double>((i * 7) % 20);
    y[i] = 11.0 + 0.41 * static_cast<double>((i * 3) % 20);
  }
  const auto narrow = hodges_lehmann_ratio(x, y, 0.80);
  const auto wide = hodges_lehmann_ratio(x, y, 0.99);
  CHECK(*wide->ci_low < *narrow->ci_low);
  CHECK(*wide->ci_high > *narrow->ci_high);
  CHECK(narrow->estimate == wide->estimate);
}

TEST_CASE("ratio is nullopt for an empty side or a value <= 0, while shift accepts zeros and negatives") {
  const std::vector<double> empty;
  const std::vector<double> some = {1, 2, 3};
  const std::vector<double> with_zero = {0, 2, 3};
  const std::vector<double> with_negative = {-1, 2, 3};
  CHECK_FALSE(hodges_lehmann_ratio(empty, some).has_value());
  CHECK_FALSE(hodges_lehmann_ratio(some, empty).has_value());
  CHECK_FALSE(hodges_lehmann_ratio(with_zero, some).has_value());
  CHECK_FALSE(hodges_lehmann_ratio(some, with_negative).has_value());
  CHECK_FALSE(hodges_lehmann_shift(empty, some).has_value());
  CHECK_FALSE(hodges_lehmann_shift(empty, empty).has_value());
  CHECK(hodges_lehmann_shift(with_zero, with_negative)->estimate == 0.0);
  const std::vector<double> with_nan = {1, std::numeric_limits<double>::quiet_NaN()};
  CHECK_FALSE(hodges_lehmann_shift(with_nan, some).has_value());
  CHECK_FALSE(hodges_lehmann_ratio(some, with_nan).has_value());
  CHECK_FALSE(moses_rank(0, 5).has_value());
}

TEST_CASE("confidence outside (0, 1) keeps the estimate and leaves the interval nullopt") {
  const std::vector<double> x = {10, 11, 12, 13, 14, 15, 16, 17};
  const std::vector<double> y = {12, 13, 14, 15, 16, 17, 18, 19};
  for (const double confidence : {0.0, 1.0, -0.5, 95.0, std::numeric_limits<double>::quiet_NaN()}) {
    CAPTURE(confidence);
    const auto shift = hodges_lehmann_shift(x, y, confidence);
    REQUIRE(shift.has_value());
    CHECK(shift->estimate == 2.0);
    CHECK_FALSE(shift->ci_low.has_value());
    CHECK_FALSE(shift->ci_high.has_value());
  }
}

TEST_SUITE_END();

}  // namespace neuron_gate
