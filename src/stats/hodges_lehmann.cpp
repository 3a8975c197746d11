#include "stats/hodges_lehmann.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <vector>

namespace neuron_gate {

namespace {

// Number of pairs (i, j) with fl(y_j - x_i) <= t. Rounding is monotone, so for fixed i the qualifying j
// form a prefix of y, and that prefix only grows as x_i grows: one pass with two pointers.
std::size_t count_at_most(std::span<const double> x, std::span<const double> y, double t) {
  std::size_t count = 0;
  std::size_t j = 0;
  for (const double xi : x) {
    while (j < y.size() && y[j] - xi <= t) {
      ++j;
    }
    count += j;
  }
  return count;
}

// The pairwise differences d with low < d <= high, in no particular order.
std::vector<double> differences_between(std::span<const double> x, std::span<const double> y, double low,
                                        double high) {
  std::vector<double> found;
  std::size_t j_low = 0;
  std::size_t j_high = 0;
  for (const double xi : x) {
    while (j_low < y.size() && y[j_low] - xi <= low) {
      ++j_low;
    }
    while (j_high < y.size() && y[j_high] - xi <= high) {
      ++j_high;
    }
    for (std::size_t j = j_low; j < j_high; ++j) {
      found.push_back(y[j] - xi);
    }
  }
  return found;
}

std::optional<HodgesLehmannEstimate> estimate_sorted(std::vector<double> x, std::vector<double> y,
                                                     double confidence) {
  if (x.empty() || y.empty()) {
    return std::nullopt;
  }
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  const std::size_t pairs = x.size() * y.size();
  HodgesLehmannEstimate result;
  if (pairs % 2 == 1) {
    result.estimate = kth_pairwise_difference(x, y, pairs / 2);
  } else {
    result.estimate = (kth_pairwise_difference(x, y, pairs / 2 - 1) + kth_pairwise_difference(x, y, pairs / 2)) / 2.0;
  }
  if (const std::optional<std::size_t> rank = moses_rank(x.size(), y.size(), confidence)) {
    result.ci_low = kth_pairwise_difference(x, y, *rank - 1);
    result.ci_high = kth_pairwise_difference(x, y, pairs - *rank);
  }
  return result;
}

bool all_finite(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

} // namespace

std::optional<std::size_t> moses_rank(std::size_t m, std::size_t n, double confidence) {
  if (m == 0 || n == 0 || !(confidence > 0.0 && confidence < 1.0)) {
    return std::nullopt;
  }
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  const boost::math::normal_distribution<double> standard_normal;
  const double z = boost::math::quantile(standard_normal, (1.0 + confidence) / 2.0);
  const double c = std::floor(mn / 2.0 - z * std::sqrt(mn * static_cast<double>(m + n + 1) / 12.0));
  if (c < 1.0) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(c);
}

double kth_pairwise_difference(std::span<const double> x_sorted, std::span<const double> y_sorted, std::size_t k) {
  assert(!x_sorted.empty() && !y_sorted.empty() && k < x_sorted.size() * y_sorted.size());
  assert(std::is_sorted(x_sorted.begin(), x_sorted.end()) && std::is_sorted(y_sorted.begin(), y_sorted.end()));
  // Enumerating a bracket this small costs no more than a few counting passes.
  const std::size_t enumerate_limit = std::max<std::size_t>(4 * (x_sorted.size() + y_sorted.size()), 4096);

  // Invariant: the answer d satisfies low < d <= high, with count_low = #(<= low) <= k < #(<= high).
  double low = y_sorted.front() - x_sorted.back();  // the smallest difference
  std::size_t count_low = count_at_most(x_sorted, y_sorted, low);
  if (count_low > k) {
    return low;
  }
  double high = y_sorted.back() - x_sorted.front();  // the largest difference
  std::size_t count_high = x_sorted.size() * y_sorted.size();
  while (count_high - count_low > enumerate_limit) {
    const double middle = std::midpoint(low, high);
    if (!(middle > low && middle < high)) {
      return high;  // no double strictly between: the answer, in (low, high], is high
    }
    const std::size_t count_middle = count_at_most(x_sorted, y_sorted, middle);
    if (count_middle > k) {
      high = middle;
      count_high = count_middle;
    } else {
      low = middle;
      count_low = count_middle;
    }
  }
  std::vector<double> bracket = differences_between(x_sorted, y_sorted, low, high);
  assert(bracket.size() == count_high - count_low);
  const auto nth = bracket.begin() + static_cast<std::ptrdiff_t>(k - count_low);
  std::nth_element(bracket.begin(), nth, bracket.end());
  return *nth;
}

std::optional<HodgesLehmannEstimate> hodges_lehmann_shift(std::span<const double> x, std::span<const double> y,
                                                          double confidence) {
  if (!all_finite(x) || !all_finite(y)) {
    return std::nullopt;
  }
  return estimate_sorted({x.begin(), x.end()}, {y.begin(), y.end()}, confidence);
}

std::optional<HodgesLehmannEstimate> hodges_lehmann_ratio(std::span<const double> x, std::span<const double> y,
                                                          double confidence) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!std::all_of(x.begin(), x.end(), positive) || !std::all_of(y.begin(), y.end(), positive)) {
    return std::nullopt;
  }
  std::vector<double> log_x(x.size());
  std::vector<double> log_y(y.size());
  std::transform(x.begin(), x.end(), log_x.begin(), [](double v) { return std::log(v); });
  std::transform(y.begin(), y.end(), log_y.begin(), [](double v) { return std::log(v); });
  std::optional<HodgesLehmannEstimate> result = estimate_sorted(std::move(log_x), std::move(log_y), confidence);
  if (result) {
    result->estimate = std::exp(result->estimate);
    if (result->ci_low) {
      result->ci_low = std::exp(*result->ci_low);
      result->ci_high = std::exp(*result->ci_high);
    }
  }
  return result;
}

} // namespace neuron_gate
