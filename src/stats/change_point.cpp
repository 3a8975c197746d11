#include "stats/change_point.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace neuron_gate {
namespace {

// sum_j sgn(x_t - x_j) for every t, which is 2 r_t - (n + 1) with r_t the midrank of x_t: an integer.
std::vector<std::int64_t> sign_sums(std::span<const double> series) {
  const std::size_t n = series.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return series[a] < series[b]; });
  std::vector<std::int64_t> sums(n);
  for (std::size_t begin = 0; begin < n;) {
    std::size_t end = begin + 1;
    while (end < n && series[order[end]] == series[order[begin]]) {
      ++end;
    }
    // Values in [begin, end) tie: each has `begin` smaller and `n - end` larger values.
    for (std::size_t i = begin; i < end; ++i) {
      sums[order[i]] = static_cast<std::int64_t>(begin) - static_cast<std::int64_t>(n - end);
    }
    begin = end;
  }
  return sums;
}

// Pettitt's K of an arrangement of sign sums (U_t = U_{t-1} + V_t, Pettitt 1979 eq. 2.1), and the first
// t (1-based count of values before the change) where |U_t| reaches it.
std::pair<std::int64_t, std::size_t> max_abs_u(const std::vector<std::int64_t>& sums) {
  std::int64_t u = 0;
  std::int64_t best = -1;
  std::size_t best_t = 1;
  for (std::size_t t = 1; t < sums.size(); ++t) {
    u += sums[t - 1];
    if (std::llabs(u) > best) {
      best = std::llabs(u);
      best_t = t;
    }
  }
  return {best, best_t};
}

// Uniform integer in [0, bound) from the generator, without modulo bias (rejection).
std::uint64_t uniform_below(std::mt19937_64& generator, std::uint64_t bound) {
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
  std::uint64_t draw = generator();
  while (draw >= limit) {
    draw = generator();
  }
  return draw % bound;
}

}  // namespace

std::optional<ChangePoint> pettitt_change_point(std::span<const double> series, std::uint64_t seed) {
  for (const double value : series) {
    assert(std::isfinite(value));
    (void)value;
  }
  if (series.size() < 3) {
    return std::nullopt;
  }
  std::vector<std::int64_t> sums = sign_sums(series);
  const auto [observed, index] = max_abs_u(sums);
  if (observed == 0) {
    return std::nullopt;
  }
  ChangePoint point;
  point.index = index;
  point.statistic = static_cast<double>(observed);
  std::uint64_t at_least = 0;
  std::uint64_t total = 0;
  if (series.size() <= k_exact_permutation_limit) {
    // Every distinct arrangement of the multiset of sign sums is equally likely under no change.
    std::sort(sums.begin(), sums.end());
    do {
      ++total;
      at_least += max_abs_u(sums).first >= observed ? 1U : 0U;
    } while (std::next_permutation(sums.begin(), sums.end()));
    point.p_value = static_cast<double>(at_least) / static_cast<double>(total);
    point.exact = true;
    return point;
  }
  std::mt19937_64 generator(seed);
  for (std::size_t draw = 0; draw < k_monte_carlo_permutations; ++draw) {
    for (std::size_t i = sums.size() - 1; i > 0; --i) {
      std::swap(sums[i], sums[uniform_below(generator, i + 1)]);
    }
    at_least += max_abs_u(sums).first >= observed ? 1U : 0U;
  }
  point.p_value = static_cast<double>(at_least + 1) / static_cast<double>(k_monte_carlo_permutations + 1);
  point.exact = false;
  return point;
}

}  // namespace neuron_gate
