#pragma once
// Mann–Whitney U test of two independent samples, matching SciPy's scipy.stats.mannwhitneyu (1.10) for
// U, the exact p (no ties) and the normal approximation, plus the exact conditional (permutation)
// distribution given the ties, which SciPy 1.10 does not offer.

#include <cstddef>
#include <optional>
#include <span>

namespace neuron_gate {

// Direction of the alternative hypothesis, SciPy's meaning: greater = x tends to be larger than y.
// With x the baseline and y the candidate, "the candidate is slower" is less.
enum class Alternative { two_sided, greater, less };

// How the p-value is computed.
//   exact: null distribution of U without ties (Mann & Whitney 1947; counted as a Gaussian binomial
//     coefficient, Harding 1984). With ties it does not apply, and exact_conditional is used instead.
//   exact_conditional: distribution of U over all C(m+n, m) splits of the observed values, ties kept
//     (permutation test; Hollander & Wolfe, Nonparametric Statistical Methods, 2nd ed., ch. 4).
//   asymptotic: normal approximation with tie-corrected variance (SciPy use_continuity=False).
//   asymptotic_continuity: the same with a 0.5 continuity correction (SciPy's default).
//   automatic: see mann_whitney_u.
enum class UMethod { automatic, exact, exact_conditional, asymptotic, asymptotic_continuity };

// Largest per-side size for which the automatic method uses the exact distribution when there are no ties.
inline constexpr std::size_t k_exact_max_per_side = 50;

// Largest m + n for which the automatic method uses the exact conditional distribution when there are
// ties. Its cost grows like (m+n) * min(m,n)^2 * max(m,n) and is highest when nearly all values are
// distinct: at m = n = 50 one test takes up to ~20 ms and 2 MB (a few ms for µs-rounded durations).
inline constexpr std::size_t k_exact_conditional_max_total = 100;

// Largest smaller side for which the automatic method stays exact (exact without ties, exact conditional
// with them) whatever the larger side's size, while the work stays within k_exact_max_work: with 3 vs 200
// heavily tied values the normal approximation is off by orders of magnitude (p 5e-46 where the exact
// conditional p is 7e-7).
inline constexpr std::size_t k_exact_small_side_max = 20;

// Cap on the estimated inner-loop steps of one exact computation chosen automatically for a small side
// (exact_work): about 0.1 s and (min+1) * (2 min max + 1) doubles. With ties it admits 3 vs 2,000,
// 10 vs ~700 and 20 vs ~340 values; without ties any larger side up to millions.
inline constexpr double k_exact_max_work = 1e8;

// Estimated inner-loop steps of the exact (has_ties false: min * (min max / 2 + 1)) or exact conditional
// (has_ties true: (m + n) * (min + 1) * (2 min max + 1)) p for sides of m and n values.
double exact_work(std::size_t m, std::size_t n, bool has_ties);

// Hard limits on m + n for an explicitly requested exact (1000: ~0.1 s) or exact_conditional (200: ~0.2 s,
// 16 MB) p; beyond them the result falls back to asymptotic_continuity and says so in its method. A
// smaller side of at most k_exact_small_side_max values is exact beyond them while exact_work stays
// within k_exact_max_work.
inline constexpr std::size_t k_exact_limit_total = 1000;
inline constexpr std::size_t k_exact_conditional_limit_total = 200;

// One test's outcome.
struct MannWhitneyResult {
  double u1 = 0;                        // U statistic of x: pairs (x_i, y_j) with x_i > y_j, ties counting 1/2 (SciPy);
                                        // 0 with an empty side; meaningless (0) when a value is NaN, see p
  std::optional<double> p;              // nullopt when undefined: an empty side, a NaN value, or all values equal
                                        // under method asymptotic (zero variance without continuity correction)
  UMethod method = UMethod::automatic;  // the method actually used; never automatic
  bool has_ties = false;                // any two values of x and y together are equal

  bool operator==(const MannWhitneyResult&) const = default;
};

// Mann–Whitney U test of x (baseline) against y (candidate). Two-sided p is twice the smaller one-sided
// tail, capped at 1, except exact_conditional, where it is P(|U - mn/2| >= |u1 - mn/2|) (the
// distribution given ties need not be symmetric). automatic: exact when there are no ties and both sides
// have <= k_exact_max_per_side values; exact_conditional when there are ties and m + n <=
// k_exact_conditional_max_total; either one, by ties, when the smaller side has <= k_exact_small_side_max
// values and exact_work <= k_exact_max_work; asymptotic_continuity otherwise. Infinities rank as values.
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y, Alternative alternative,
                                 UMethod method = UMethod::automatic);

// The three tests of x against y (each as mann_whitney_u with that alternative, bit for bit), ranking
// the values once.
struct MannWhitneyTests {
  MannWhitneyResult two_sided, greater, less;
};
MannWhitneyTests mann_whitney_u_tests(std::span<const double> x, std::span<const double> y,
                                      UMethod method = UMethod::automatic);

}  // namespace neuron_gate
