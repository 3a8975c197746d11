#include "stats/mann_whitney.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

namespace neuron_gate {

namespace {

// The pooled sample reduced to what every method needs. Ranks are doubled mid-ranks, so U is exact in
// integers: a tie group at 0-based sorted positions [s, s + t) has doubled mid-rank 2s + t + 1.
struct RankedSample {
  std::int64_t u1_doubled = 0;         // 2 * U1
  std::vector<std::size_t> tie_sizes;  // sizes of the groups of equal values, ascending by value
  bool has_ties = false;
};

RankedSample rank_pooled(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> pooled;  // (value, belongs to x)
  pooled.reserve(x.size() + y.size());
  for (const double v : x) {
    pooled.emplace_back(v, true);
  }
  for (const double v : y) {
    pooled.emplace_back(v, false);
  }
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  RankedSample ranked;
  std::int64_t rank_sum_x_doubled = 0;
  std::size_t start = 0;
  while (start < pooled.size()) {
    std::size_t end = start + 1;
    while (end < pooled.size() && pooled[end].first == pooled[start].first) {
      ++end;
    }
    const std::size_t size = end - start;
    const auto in_x = static_cast<std::int64_t>(std::count_if(pooled.begin() + static_cast<std::ptrdiff_t>(start),
                                                              pooled.begin() + static_cast<std::ptrdiff_t>(end),
                                                              [](const auto& e) { return e.second; }));
    rank_sum_x_doubled += in_x * static_cast<std::int64_t>(2 * start + size + 1);
    ranked.tie_sizes.push_back(size);
    ranked.has_ties = ranked.has_ties || size > 1;
    start = end;
  }
  const auto m = static_cast<std::int64_t>(x.size());
  ranked.u1_doubled = rank_sum_x_doubled - m * (m + 1);
  return ranked;
}

// Counts of U = 0..up_to (up_to <= mn/2) over all C(m+n, m) tie-free arrangements: the low coefficients
// of the Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) (Harding 1984,
// Applied Statistics 33:1-6), one factor pair at a time so every intermediate is itself a Gaussian
// binomial. Index k is computed from lower indices only, so stopping at up_to changes nothing below it,
// and its error stays within about k log(m) epsilon of its value (the coefficients rise towards the
// middle). Agrees with the subtraction-free conditional DP to ~1e-15 at m = n = 50.
std::vector<double> low_u_counts(std::size_t m, std::size_t n, std::size_t up_to) {
  const std::size_t a = std::min(m, n);
  const std::size_t b = std::max(m, n);
  std::vector<double> counts{1.0};  // the polynomial 1
  counts.resize(up_to + 1, 0.0);
  double* c = counts.data();  // the hot loops below; unchecked indexing keeps Debug builds usable
  std::size_t degree = 0;
  for (std::size_t i = 1; i <= a; ++i) {
    const std::size_t factor = b + i;
    const std::size_t product_degree = std::min(degree + factor, up_to);
    for (std::size_t k = product_degree; k >= factor; --k) {
      c[k] -= c[k - factor];
    }
    const std::size_t new_degree = degree + b;
    const std::size_t last = std::min(new_degree, up_to);
    for (std::size_t k = i; k <= last; ++k) {
      c[k] += c[k - i];
    }
    for (std::size_t k = new_degree + 1; k <= product_degree; ++k) {
      c[k] = 0.0;  // exactly zero in exact arithmetic
    }
    degree = new_degree;
  }
  return counts;
}

// C(m+n, m) = prod_{i=1..a} (b + i) / i.
double arrangements(std::size_t m, std::size_t n) {
  const std::size_t a = std::min(m, n);
  const std::size_t b = std::max(m, n);
  double total = 1;
  for (std::size_t i = 1; i <= a; ++i) {
    total = total * static_cast<double>(b + i) / static_cast<double>(i);
  }
  return total;
}

// target[u] += source[u] * weight for u < count.
void add_scaled(double* target, const double* source, std::size_t count, double weight) {
  for (std::size_t u = 0; u < count; ++u) {
    target[u] += source[u] * weight;
  }
}

// Weights of each doubled U of the first side (0..2*m*n) over all C(m+n, m) ways to choose which m of the
// pooled values belong to it, ties kept (the permutation distribution; Streitberg & Röhmel 1986 "shift
// algorithm" style): dynamic programming over the tie groups in ascending order, with state (values of
// the first side so far i, doubled U so far). Choosing k of a group of t values, with below - i
// second-side values under it, adds k * (2 (below - i) + (t - k)) and weight C(t, k). Updated in place,
// rows from the highest i down, as in a 0/1 knapsack: row i feeds rows i + k, which are already final.
// A row left with more than n second-side values is stale but never read again: feasibility only shrinks,
// and every row written to is feasible.
std::vector<double> conditional_u_weights(const std::vector<std::size_t>& tie_sizes, std::size_t m, std::size_t n) {
  const std::size_t width = 2 * m * n + 1;
  std::vector<double> table{1.0};  // row i holds the weights of doubled U = 0..width-1 with i chosen
  table.resize((m + 1) * width, 0.0);
  std::size_t below = 0;  // pooled values in earlier groups
  std::vector<double> choose;
  for (const std::size_t t : tie_sizes) {
    choose.assign(t + 1, 1.0);
    for (std::size_t k = 1; k <= t; ++k) {
      choose[k] = choose[k - 1] * static_cast<double>(t - k + 1) / static_cast<double>(k);
    }
    // Feasible rows: at most n second-side values below, and at most m first-side ones.
    const std::size_t i_low = below > n ? below - n : 0;
    const std::size_t i_high = std::min(m, below);
    for (std::size_t i = i_high + 1; i-- > i_low;) {
      const double* row = &table[i * width];
      const std::size_t used = 2 * i * (below - i) + 1;  // largest doubled U so far: every x above every y
      // k = 0 leaves row i as it is; the group's remaining values must fit in the n second-side values.
      const std::size_t k_low = std::max<std::size_t>(1, below + t > n + i ? below + t - n - i : 0);
      for (std::size_t k = k_low; k <= std::min(t, m - i); ++k) {
        add_scaled(&table[(i + k) * width + k * (2 * (below - i) + (t - k))], row, used, choose[k]);
      }
    }
    below += t;
  }
  return {table.begin() + static_cast<std::ptrdiff_t>(m * width), table.end()};
}

// Memo of conditional_u_weights, process-wide: the weights are a pure function of (tie sizes, m, n), and
// one comparison asks for the same ones up to three times (worse, better, two-sided), while the A/A
// splits of calibration (compare's noise check) pool the same values split after split. A hit returns
// the very vector an earlier call computed, so results are bit-identical with or without it. Guarded
// by a mutex (calibration's worker threads); computed outside the lock (two threads may both compute
// an entry: the same numbers). Bounded: past k_weights_memo_max_doubles the memo is emptied.
using WeightsKey = std::tuple<std::size_t, std::size_t, std::vector<std::size_t>>;
constexpr std::size_t k_weights_memo_max_doubles = std::size_t{8} << 20;  // 64 MiB of doubles

struct WeightsMemo {
  std::mutex mutex;
  std::map<WeightsKey, std::shared_ptr<const std::vector<double>>> entries;
  std::size_t doubles = 0;
};

WeightsMemo& weights_memo() {
  static WeightsMemo memo;
  return memo;
}

std::shared_ptr<const std::vector<double>> memoised_u_weights(const std::vector<std::size_t>& tie_sizes, std::size_t m,
                                                              std::size_t n) {
  WeightsMemo& memo = weights_memo();
  WeightsKey key{m, n, tie_sizes};
  {
    const std::lock_guard<std::mutex> lock(memo.mutex);
    const auto found = memo.entries.find(key);
    if (found != memo.entries.end()) {
      return found->second;
    }
  }
  auto weights = std::make_shared<const std::vector<double>>(conditional_u_weights(tie_sizes, m, n));
  const std::lock_guard<std::mutex> lock(memo.mutex);
  if (memo.doubles + weights->size() > k_weights_memo_max_doubles) {
    memo.entries.clear();
    memo.doubles = 0;
  }
  if (memo.entries.emplace(std::move(key), weights).second) {
    memo.doubles += weights->size();
  }
  return weights;
}

double clamp_p(double p) {
  return std::clamp(p, 0.0, 1.0);
}

// The p of each alternative, computed together (one distribution serves all three).
struct TailPs {
  double greater = 0, less = 0, two_sided = 0;
  double of(Alternative alternative) const {
    switch (alternative) {
    case Alternative::greater:
      return greater;
    case Alternative::less:
      return less;
    case Alternative::two_sided:
      break;
    }
    return two_sided;
  }
};

// SciPy's exact p. Only the smaller tail, U <= min(U1, U2), is counted (the distribution is symmetric
// about mn/2); the other tail is 1 minus it plus the mass at its end.
TailPs exact_ps(std::size_t m, std::size_t n, std::int64_t u1_doubled) {
  const auto mn = static_cast<std::int64_t>(m * n);
  const std::int64_t u1 = u1_doubled / 2;
  const std::int64_t nearer = std::min(u1, mn - u1);  // the observed U's distance from the nearer end
  const std::vector<double> counts = low_u_counts(m, n, static_cast<std::size_t>(nearer));
  const double total = arrangements(m, n);
  double tail_sum = 0;
  for (const double c : counts) {
    tail_sum += c;
  }
  const double small_tail = tail_sum / total;                          // P(U <= nearer) = P(U >= mn - nearer)
  const double large_tail = 1.0 - small_tail + counts.back() / total;  // P(U >= nearer) = P(U <= mn - nearer)
  TailPs ps;
  ps.greater = clamp_p(u1 == nearer ? large_tail : small_tail);  // P(U >= u1)
  ps.less = clamp_p(u1 == nearer ? small_tail : large_tail);     // P(U <= u1)
  ps.two_sided = clamp_p(2.0 * small_tail);                      // 2 P(U >= max(U1, U2))
  return ps;
}

TailPs exact_conditional_ps(const RankedSample& ranked, std::size_t m, std::size_t n) {
  // The DP's cost grows with the size of the chosen side, so choose the smaller one and mirror.
  const bool swap_sides = m > n;
  const std::shared_ptr<const std::vector<double>> memoised =
      swap_sides ? memoised_u_weights(ranked.tie_sizes, n, m) : memoised_u_weights(ranked.tie_sizes, m, n);
  const std::vector<double>& weights = *memoised;
  const auto mn2 = static_cast<std::int64_t>(2 * m * n);
  const auto weight_of_u1 = [&](std::int64_t u1_doubled) {
    return weights[static_cast<std::size_t>(swap_sides ? mn2 - u1_doubled : u1_doubled)];
  };
  double total = 0;
  double at_least = 0;
  double at_most = 0;
  double as_far = 0;
  const std::int64_t observed = ranked.u1_doubled;
  const std::int64_t observed_distance = std::abs(2 * observed - mn2);
  for (std::int64_t u = 0; u <= mn2; ++u) {
    const double w = weight_of_u1(u);
    total += w;
    if (u >= observed) {
      at_least += w;
    }
    if (u <= observed) {
      at_most += w;
    }
    if (std::abs(2 * u - mn2) >= observed_distance) {
      as_far += w;
    }
  }
  return TailPs{clamp_p(at_least / total), clamp_p(at_most / total), clamp_p(as_far / total)};
}

// SciPy's _get_mwu_z and norm.sf: z = (U - mn/2 [- 0.5]) / sigma with
// sigma^2 = mn/12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))), U = U1, U2 or max(U1, U2) by alternative.
std::optional<double> asymptotic_p(const RankedSample& ranked, std::size_t m, std::size_t n, Alternative alternative,
                                   bool continuity) {
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  const double u1 = static_cast<double>(ranked.u1_doubled) / 2.0;
  const double u2 = mn - u1;
  const double u = alternative == Alternative::greater ? u1 : alternative == Alternative::less ? u2 : std::max(u1, u2);
  const double factor = alternative == Alternative::two_sided ? 2.0 : 1.0;
  const double numerator = u - mn / 2.0 - (continuity ? 0.5 : 0.0);
  if (ranked.tie_sizes.size() <= 1) {
    // All values equal: zero variance. U is then mn/2, so with the correction z = -0.5/0 = -inf and
    // SciPy's p is 1; without it z = 0/0 is undefined.
    if (!continuity) {
      return std::nullopt;
    }
    return 1.0;
  }
  const double total = static_cast<double>(m + n);
  double tie_term = 0;
  for (const std::size_t t : ranked.tie_sizes) {
    const double td = static_cast<double>(t);
    tie_term += td * td * td - td;
  }
  const double sigma = std::sqrt(mn / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0))));
  const boost::math::normal_distribution<double> standard_normal;
  return clamp_p(factor * boost::math::cdf(boost::math::complement(standard_normal, numerator / sigma)));
}

// A small side against any other, exact while the work stays bounded (issue 14: exact where it matters).
bool small_side_exact(bool has_ties, std::size_t m, std::size_t n) {
  return std::min(m, n) <= k_exact_small_side_max && exact_work(m, n, has_ties) <= k_exact_max_work;
}

UMethod resolve_method(UMethod requested, bool has_ties, std::size_t m, std::size_t n) {
  switch (requested) {
  case UMethod::automatic:
    if (!has_ties) {
      return (m <= k_exact_max_per_side && n <= k_exact_max_per_side) || small_side_exact(false, m, n)
                 ? UMethod::exact
                 : UMethod::asymptotic_continuity;
    }
    return m + n <= k_exact_conditional_max_total || small_side_exact(true, m, n) ? UMethod::exact_conditional
                                                                                  : UMethod::asymptotic_continuity;
  case UMethod::exact:
    if (has_ties) {
      return resolve_method(UMethod::exact_conditional, has_ties, m, n);
    }
    return m + n <= k_exact_limit_total || small_side_exact(false, m, n) ? UMethod::exact
                                                                         : UMethod::asymptotic_continuity;
  case UMethod::exact_conditional:
    return m + n <= k_exact_conditional_limit_total || small_side_exact(true, m, n) ? UMethod::exact_conditional
                                                                                    : UMethod::asymptotic_continuity;
  case UMethod::asymptotic:
  case UMethod::asymptotic_continuity:
    return requested;
  }
  return UMethod::asymptotic_continuity;
}

}  // namespace

double exact_work(std::size_t m, std::size_t n, bool has_ties) {
  const double a = static_cast<double>(std::min(m, n));
  const double b = static_cast<double>(std::max(m, n));
  return has_ties ? (a + b) * (a + 1.0) * (2.0 * a * b + 1.0) : a * (a * b / 2.0 + 1.0);
}

namespace {

// One ranking of x and y, then the p of each alternative in `alternatives` (results in that order).
template <std::size_t N>
std::array<MannWhitneyResult, N> test_alternatives(std::span<const double> x, std::span<const double> y,
                                                   const std::array<Alternative, N>& alternatives, UMethod method) {
  MannWhitneyResult common;
  std::array<MannWhitneyResult, N> results;
  const auto is_nan = [](double v) { return std::isnan(v); };
  if (std::any_of(x.begin(), x.end(), is_nan) || std::any_of(y.begin(), y.end(), is_nan)) {
    common.method = resolve_method(method, false, x.size(), y.size());
    results.fill(common);
    return results;
  }
  const RankedSample ranked = rank_pooled(x, y);
  common.u1 = static_cast<double>(ranked.u1_doubled) / 2.0;
  common.has_ties = ranked.has_ties;
  common.method = resolve_method(method, ranked.has_ties, x.size(), y.size());
  results.fill(common);
  if (x.empty() || y.empty()) {
    return results;
  }
  const bool exact = common.method == UMethod::exact || common.method == UMethod::exact_conditional;
  if (exact) {  // one distribution for every alternative
    const TailPs ps = common.method == UMethod::exact ? exact_ps(x.size(), y.size(), ranked.u1_doubled)
                                                      : exact_conditional_ps(ranked, x.size(), y.size());
    for (std::size_t i = 0; i < N; ++i) {
      results[i].p = ps.of(alternatives[i]);
    }
    return results;
  }
  assert(common.method != UMethod::automatic && "resolve_method never returns automatic");
  const bool continuity = common.method == UMethod::asymptotic_continuity;
  for (std::size_t i = 0; i < N; ++i) {
    results[i].p = asymptotic_p(ranked, x.size(), y.size(), alternatives[i], continuity);
  }
  return results;
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y, Alternative alternative,
                                 UMethod method) {
  return test_alternatives<1>(x, y, {alternative}, method)[0];
}

MannWhitneyTests mann_whitney_u_tests(std::span<const double> x, std::span<const double> y, UMethod method) {
  const auto results =
      test_alternatives<3>(x, y, {Alternative::two_sided, Alternative::greater, Alternative::less}, method);
  return {results[0], results[1], results[2]};
}

}  // namespace neuron_gate
