#pragma once
// Feasibility and power of the rank test: whether a sample size can reach a threshold at all, and the
// smallest effect it can be expected to detect at the observed noise.

#include <cstddef>
#include <optional>
#include <span>

namespace neuron_gate {

// Smallest p any outcome of the exact Mann–Whitney U test can reach for sizes m, n: complete separation,
// one-sided 1/C(m+n, m); two-sided twice that, capped at 1. 1 when a side is empty. Underflows to 0 only
// beyond about m = n = 540, where no threshold is out of reach.
double smallest_attainable_p(std::size_t m, std::size_t n, bool one_sided = true);

// Smallest equal per-side size n >= 1 whose smallest attainable one-sided p, 1/C(2n, n), is <= alpha
// (e.g. 3 for 0.05, 7 for 0.05/50). alpha must be in (0, 1] (asserts); pass the corrected threshold.
std::size_t samples_needed_per_side(double alpha);

// Smallest p any outcome of the exact one-sided Wilcoxon signed-rank test of `pairs` nonzero paired
// differences can reach: all of one sign, 2^-pairs (0.0625 for 4 pairs, 0.03125 for 5). 1 for no pair.
double smallest_attainable_signed_rank_p(std::size_t pairs);

// Smallest number of pairs whose smallest attainable one-sided signed-rank p, 2^-n, is <= alpha (e.g. 5 for
// 0.05, 9 for 0.05/20). alpha must be in (0, 1] (asserts).
std::size_t pairs_needed(double alpha);

// Minimum detectable ratio head/base of a one-sided test at level alpha with the given power, at the
// observed noise of both sides: exp((z_{1-alpha} + z_{power}) * sqrt(s_x^2/m + s_y^2/n)), s the sample
// standard deviations of the log values; > 1 whenever alpha < 0.5 <= power. This is the normal-
// approximation (z-test) power formula (e.g. Chow, Shao & Wang, Sample Size Calculations in Clinical
// Research, 2nd ed., 3.2), not the U test's own power, which is a little lower (relative efficiency 3/pi
// for normal data) and lower still for small samples, where p is discrete. nullopt if any value is <= 0
// or not finite, a side has fewer than 2 samples, both sides are constant (no noise to scale by), or
// alpha or power is outside (0, 1).
std::optional<double> minimum_detectable_ratio(std::span<const double> x, std::span<const double> y, double alpha,
                                               double power = 0.8);

// Equal per-side size n at which a one-sided test at level alpha detects the ratio head/base `ratio` with
// the given power at the observed noise: the same normal-approximation formula as
// minimum_detectable_ratio solved for n, n = ceil((z_{1-alpha} + z_{power})^2 (s_x^2 + s_y^2) / ln(ratio)^2),
// and at least samples_needed_per_side(alpha) (below that no outcome reaches alpha). nullopt under the
// conditions where minimum_detectable_ratio is nullopt, or when ratio is 1, <= 0 or not finite.
std::optional<std::size_t> samples_to_detect(std::span<const double> x, std::span<const double> y, double ratio,
                                             double alpha, double power = 0.8);

}  // namespace neuron_gate
