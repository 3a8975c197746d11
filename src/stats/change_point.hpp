#pragma once
// One change point in a series: Pettitt's rank test (Pettitt 1979, "A non-parametric approach to the
// change-point problem", Applied Statistics 28(2):126-135), with the p-value of its statistic taken from
// the permutation distribution (exact up to k_exact_permutation_limit values, else Monte Carlo with a fixed
// seed) instead of Pettitt's asymptotic bound, which is far off for the ten-odd points of a history.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace neuron_gate {

// Series of up to this many values get the exact permutation p-value (every distinct arrangement of the
// values: 10! = 3,628,800 at most, ~0.1 s); longer ones get k_monte_carlo_permutations random ones.
inline constexpr std::size_t k_exact_permutation_limit = 10;
inline constexpr std::size_t k_monte_carlo_permutations = 100000;

// The most likely single change point of a series and how surprising it is under "no change".
struct ChangePoint {
  // Index of the first value after the change (1 .. n-1): values [0, index) are before, [index, n) after.
  std::size_t index = 0;
  // Pettitt's K = max over t of |U_t|, U_t = sum_{i<=t} sum_{j>t} sgn(x_j - x_i) (ties count 0).
  double statistic = 0;
  // P(K >= observed) over permutations of the values (two-sided: a shift either way). Exact, or the
  // Monte Carlo estimate (b + 1) / (B + 1) (Davison & Hinkley 1997, eq. 4.11), which is never 0.
  double p_value = 1;
  bool exact = true;
  bool operator==(const ChangePoint&) const = default;
};

// Pettitt's test on `series` (in time order). nullopt for fewer than 3 values or a constant series (no
// split is better than another). The index of the maximum |U_t| is the first one where it is reached. The
// Monte Carlo draws come from a std::mt19937_64 seeded with `seed` through our own Fisher-Yates shuffle,
// so the p-value is the same on every platform and library. Values must be finite (asserts).
std::optional<ChangePoint> pettitt_change_point(std::span<const double> series, std::uint64_t seed = 20261202);

}  // namespace neuron_gate
