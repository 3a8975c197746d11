#pragma once
// Wilcoxon signed-rank test of paired differences (Wilcoxon 1945) and the Hodges–Lehmann estimate of
// their centre, the median of the Walsh averages, with its distribution-free confidence interval
// (Hollander & Wolfe, Nonparametric Statistical Methods, 2nd ed., 3.1–3.3). The test matches SciPy's
// scipy.stats.wilcoxon (1.10) with zero_method="wilcox" and correction=False.

#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"

#include <cstddef>
#include <optional>
#include <span>

namespace neuron_gate {

// Largest number of non-zero differences for which the exact null distribution is used (SciPy's "auto").
inline constexpr std::size_t k_signed_rank_exact_max = 50;

// One signed-rank test.
struct SignedRankResult {
  double r_plus = 0;        // sum of the ranks of |d| over the positive differences (zeros dropped;
                            // tied |d| share their average rank)
  std::size_t n = 0;        // non-zero differences
  std::optional<double> p;  // nullopt when there is no non-zero difference or a value is not finite
  bool exact = false;       // exact null distribution of r_plus (no zero, no tie in |d|, n <= 50);
                            // else the normal approximation with SciPy's tie correction of the variance
                            // (SciPy 1.10's "exact" with ties truncates r_plus; it is not reproduced)

  bool operator==(const SignedRankResult&) const = default;
};

// Signed-rank test of the differences d (head - base, e.g. log ratios of paired runs). Alternative as in
// mann_whitney.hpp but for one sample: greater = the differences tend to be positive (head larger). Two-
// sided exact p: twice the smaller tail at r_plus (1 at the centre), capped at 1; approximate: SciPy's
// z = (T - n(n+1)/4) / se with T = min(r_plus, r_minus) two-sided and r_plus one-sided.
SignedRankResult wilcoxon_signed_rank(std::span<const double> d, Alternative alternative);

// The Hodges–Lehmann estimate of the centre of d: the median of the n(n+1)/2 Walsh averages (d_i + d_j)/2,
// i <= j (zeros kept), with the interval [W_(C), W_(M+1-C)] over the sorted averages (1-based, M = n(n+1)/2),
// C the largest integer with P(T+ <= C - 1) <= (1 - confidence) / 2 under the exact null distribution of
// T+ for n <= k_signed_rank_exact_max, else C = floor(M/2 - z_{(1+confidence)/2} sqrt(n(n+1)(2n+1)/24))
// (H&W 3.3). The interval is nullopt when C < 1 (too few pairs: n < 6 at 95%). nullopt when d is empty
// or holds a value that is not finite. Lists the averages: n up to a few thousand.
std::optional<HodgesLehmannEstimate> walsh_hodges_lehmann(std::span<const double> d, double confidence = 0.95);

}  // namespace neuron_gate
