#pragma once
// Hodges–Lehmann two-sample shift estimate (Hodges & Lehmann 1963) with Moses' distribution-free
// confidence interval (Moses 1965; Hollander & Wolfe, Nonparametric Statistical Methods, 2nd ed., 4.3).

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace neuron_gate {

// A point estimate with its confidence interval; the interval is nullopt when the samples are too small
// for the requested confidence (rank C < 1) or the confidence is outside (0, 1).
struct HodgesLehmannEstimate {
  double estimate = 0;
  std::optional<double> ci_low, ci_high;

  bool operator==(const HodgesLehmannEstimate&) const = default;
};

// Moses' rank C for sizes m, n: floor(mn/2 - z_{(1+confidence)/2} * sqrt(mn (m+n+1) / 12)), the normal
// approximation to the U distribution without tie correction (as the SciPy reference values, stats.json
// "rank_C"). The interval is [D_(C), D_(mn+1-C)] over the sorted pairwise differences D (1-based).
// nullopt when C < 1 (too few samples for this confidence) or confidence is outside (0, 1).
std::optional<std::size_t> moses_rank(std::size_t m, std::size_t n, double confidence = 0.95);

// Ratio head/base: exp(median of all m*n pairwise log(y_j) - log(x_i)), interval exp(D_(C)), exp(D_(mn+1-C))
// on the same log differences. x is the baseline, y the candidate. nullopt when a side is empty or any
// value is <= 0 or not finite. Never builds the m*n differences: see pairwise_difference_ranks.
std::optional<HodgesLehmannEstimate> hodges_lehmann_ratio(std::span<const double> x, std::span<const double> y,
                                                          double confidence = 0.95);

// Shift head - base: median of all pairwise y_j - x_i, in the data's units, with the same interval
// construction; for data that may be zero or negative. nullopt when a side is empty or a value is not finite.
std::optional<HodgesLehmannEstimate> hodges_lehmann_shift(std::span<const double> x, std::span<const double> y,
                                                          double confidence = 0.95);

// The ranks[r]-th smallest (0-based) of the m*n pairwise differences D(i, j) = y_j - x_i (each rounded as
// computed in double), for every r, given x and y sorted ascending; returns one value per rank, in the
// order given. Never lists the m*n differences. Selection in index space after Johnson & Mizoguchi,
// "Selecting the Kth element in X + Y and X1 + X2 + ... + Xm", SIAM J. Comput. 7(2), 1978, 147-153 (and
// Monahan, "Algorithm 616: fast computation of the Hodges-Lehmann location estimator", ACM TOMS 10(3),
// 1984, 265-270): each rank keeps, per row i, the positions [lo_i, hi_i) of y that still hold candidates;
// a pivot (the weighted median of the candidate rows' middle elements) cuts every row with two pointers in
// O(m + n) and drops at least a quarter of that rank's candidates, or is the answer. All ranks share every
// cut (the estimate's middle ranks and both Moses bounds cost about one selection); at most
// max(2(m + n), 4096) candidates left are listed and nth_element picks the answer. Measured for the
// estimate and both 95% bounds on lognormal samples: 1000 x 1000, 18 cuts (0.7 ms); 100000 x 100000,
// 35 cuts (0.12 s); values rounded to whole units (heavy ties), 1-4 cuts.
// Requires non-empty sides and every rank < m*n (asserts).
std::vector<double> pairwise_difference_ranks(std::span<const double> x_sorted, std::span<const double> y_sorted,
                                              std::span<const std::size_t> ranks);

// The k-th smallest (0-based) of the pairwise differences y_j - x_i: pairwise_difference_ranks with one rank.
double kth_pairwise_difference(std::span<const double> x_sorted, std::span<const double> y_sorted, std::size_t k);

}  // namespace neuron_gate
