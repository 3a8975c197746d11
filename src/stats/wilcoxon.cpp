#include "stats/wilcoxon.hpp"
#include "stats/descriptive.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace neuron_gate {
namespace {

// P(T+ = t) for t = 0 .. n(n+1)/2 under the null hypothesis: the number of subsets of {1..n} with sum t,
// over 2^n (counted by the subset-sum recurrence, in doubles: exact for n <= 50).
std::vector<double> signed_rank_pmf(std::size_t n) {
  const std::size_t total = n * (n + 1) / 2;
  std::vector<double> counts(total + 1, 0.0);
  counts[0] = 1.0;
  std::size_t reached = 0;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    reached += rank;
    for (std::size_t t = reached; t >= rank; --t) {
      counts[t] += counts[t - rank];
    }
  }
  const double subsets = std::ldexp(1.0, static_cast<int>(n));
  for (double& c : counts) {
    c /= subsets;
  }
  return counts;
}

double sum_range(const std::vector<double>& pmf, std::size_t from, std::size_t to) {  // [from, to)
  double sum = 0;
  for (std::size_t t = from; t < to && t < pmf.size(); ++t) {
    sum += pmf[t];
  }
  return sum;
}

struct SignedRanks {
  double r_plus = 0;    // sum of the average ranks of |d| over the positive d
  double tie_term = 0;  // sum of t^3 - t over tie groups of |d| (the variance correction)
  bool ties = false;
};

SignedRanks rank_absolute_values(const std::vector<double>& nonzero) {
  const std::size_t n = nonzero.size();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) {
    order[i] = i;
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return std::fabs(nonzero[a]) < std::fabs(nonzero[b]); });
  SignedRanks ranks;
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start + 1;
    while (end < n && std::fabs(nonzero[order[end]]) == std::fabs(nonzero[order[start]])) {
      ++end;
    }
    const double size = static_cast<double>(end - start);
    const double rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (std::size_t i = start; i < end; ++i) {
      if (nonzero[order[i]] > 0) {
        ranks.r_plus += rank;
      }
    }
    if (end - start > 1) {
      ranks.ties = true;
      ranks.tie_term += size * (size * size - 1.0);
    }
    start = end;
  }
  return ranks;
}

const boost::math::normal_distribution<double> k_standard_normal;

}  // namespace

SignedRankResult wilcoxon_signed_rank(std::span<const double> d, Alternative alternative) {
  SignedRankResult result;
  if (!all_finite(d)) {
    return result;
  }
  std::vector<double> nonzero;
  for (double v : d) {
    if (v != 0.0) {
      nonzero.push_back(v);
    }
  }
  const std::size_t n = nonzero.size();
  result.n = n;
  if (n == 0) {
    return result;
  }
  const SignedRanks ranks = rank_absolute_values(nonzero);
  const double r_plus = ranks.r_plus;
  result.r_plus = r_plus;
  const double dn = static_cast<double>(n);
  const double total = dn * (dn + 1.0) / 2.0;
  const bool had_zeros = n != d.size();
  result.exact = !had_zeros && !ranks.ties && n <= k_signed_rank_exact_max;
  double p = 1.0;
  if (result.exact) {
    const std::vector<double> pmf = signed_rank_pmf(n);
    const auto t = static_cast<std::size_t>(r_plus);
    const double p_less = sum_range(pmf, 0, t + 1), p_greater = sum_range(pmf, t, pmf.size());
    switch (alternative) {
    case Alternative::two_sided:
      p = t == (pmf.size() - 1) / 2 ? 1.0 : 2.0 * std::min(p_less, p_greater);
      break;
    case Alternative::greater:
      p = p_greater;
      break;
    case Alternative::less:
      p = p_less;
      break;
    }
  } else {
    const double statistic = alternative == Alternative::two_sided ? std::min(r_plus, total - r_plus) : r_plus;
    const double mean = dn * (dn + 1.0) * 0.25;
    const double se = std::sqrt((dn * (dn + 1.0) * (2.0 * dn + 1.0) - 0.5 * ranks.tie_term) / 24.0);
    if (se <= 0) {
      return result;
    }
    const double z = (statistic - mean) / se;
    switch (alternative) {
    case Alternative::two_sided:
      p = 2.0 * boost::math::cdf(boost::math::complement(k_standard_normal, std::fabs(z)));
      break;
    case Alternative::greater:
      p = boost::math::cdf(boost::math::complement(k_standard_normal, z));
      break;
    case Alternative::less:
      p = boost::math::cdf(k_standard_normal, z);
      break;
    }
  }
  result.p = std::clamp(p, 0.0, 1.0);
  return result;
}

std::optional<HodgesLehmannEstimate> walsh_hodges_lehmann(std::span<const double> d, double confidence) {
  if (d.empty() || !all_finite(d)) {
    return std::nullopt;
  }
  const std::size_t n = d.size();
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) {
      walsh.push_back((d[i] + d[j]) / 2.0);
    }
  }
  std::sort(walsh.begin(), walsh.end());
  const std::size_t m = walsh.size();
  HodgesLehmannEstimate estimate;
  estimate.estimate = m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2.0;
  if (!(confidence > 0 && confidence < 1)) {
    return estimate;
  }
  const double tail = (1.0 - confidence) / 2.0;
  std::size_t c = 0;  // the largest C with P(T+ <= C - 1) <= tail
  if (n <= k_signed_rank_exact_max) {
    const std::vector<double> pmf = signed_rank_pmf(n);
    double cumulative = 0;
    // Relative tolerance: a cumulative probability equal to the tail up to rounding counts as equal.
    while (c < pmf.size() && cumulative + pmf[c] <= tail * (1.0 + 1e-12)) {
      cumulative += pmf[c];
      ++c;
    }
  } else {
    const double dn = static_cast<double>(n);
    const double z = boost::math::quantile(k_standard_normal, 1.0 - tail);
    const double value = static_cast<double>(m) / 2.0 - z * std::sqrt(dn * (dn + 1.0) * (2.0 * dn + 1.0) / 24.0);
    c = value < 1 ? 0 : static_cast<std::size_t>(std::floor(value));
  }
  if (c >= 1 && c <= m) {
    estimate.ci_low = walsh[c - 1];
    estimate.ci_high = walsh[m - c];
  }
  return estimate;
}

}  // namespace neuron_gate
