#include "stats/hodges_lehmann.hpp"
#include "stats/descriptive.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <vector>

namespace neuron_gate {

namespace {

// Where a trial value t cuts each row i of the difference matrix D(i, j) = fl(y_j - x_i): below[i] =
// #{j : D(i, j) < t}, through[i] = #{j : D(i, j) <= t}. Rounding is monotone, so within a row the
// qualifying j form a prefix of y, and that prefix only grows as x_i grows: two pointers, O(m + n).
struct Cut {
  std::vector<std::size_t> below, through;
  std::size_t count_below = 0, count_through = 0;
};

void cut_at(std::span<const double> x, std::span<const double> y, double t, Cut& cut) {
  cut.below.resize(x.size());
  cut.through.resize(x.size());
  cut.count_below = cut.count_through = 0;
  std::size_t j_below = 0;
  std::size_t j_through = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    while (j_below < y.size() && y[j_below] - x[i] < t) {
      ++j_below;
    }
    if (j_through < j_below) {
      j_through = j_below;
    }
    while (j_through < y.size() && y[j_through] - x[i] <= t) {
      ++j_through;
    }
    cut.below[i] = j_below;
    cut.through[i] = j_through;
    cut.count_below += j_below;
    cut.count_through += j_through;
  }
}

// One rank being selected: in row i its candidates are y[lo[i]], ..., y[hi[i] - 1] (index space: the
// bracket is a pair of positions per row, never a value); `before` differences lie below every candidate.
struct Target {
  std::size_t k = 0;
  std::vector<std::size_t> lo, hi;
  std::size_t before = 0, candidates = 0;
  std::optional<double> answer;
};

void recount(Target& target) {
  target.before = target.candidates = 0;
  for (std::size_t i = 0; i < target.lo.size(); ++i) {
    target.before += target.lo[i];
    target.candidates += target.hi[i] - target.lo[i];
  }
}

// Applies one cut to a target: the answer is the trial value, or lies above or below it.
void narrow(Target& target, const Cut& cut, double t) {
  if (cut.count_below <= target.k && target.k < cut.count_through) {
    target.answer = t;
  } else if (cut.count_through <= target.k) {  // the answer is above t: drop every difference <= t
    for (std::size_t i = 0; i < target.lo.size(); ++i) {
      target.lo[i] = std::min(std::max(target.lo[i], cut.through[i]), target.hi[i]);
    }
  } else {  // the answer is below t: drop every difference >= t
    for (std::size_t i = 0; i < target.lo.size(); ++i) {
      target.hi[i] = std::max(std::min(target.hi[i], cut.below[i]), target.lo[i]);
    }
  }
  recount(target);
}

// The weighted median of the candidate rows' middle elements (Johnson & Mizoguchi): at least a quarter
// of the target's candidates are <= it and a quarter >= it. Linear expected time (nth_element).
double pivot_of(std::span<const double> x, std::span<const double> y, const Target& target,
                std::vector<std::pair<double, std::size_t>>& rows) {
  rows.clear();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (target.hi[i] > target.lo[i]) {
      rows.emplace_back(y[target.lo[i] + (target.hi[i] - target.lo[i]) / 2] - x[i], target.hi[i] - target.lo[i]);
    }
  }
  std::size_t need = (target.candidates + 1) / 2;
  auto first = rows.begin();
  auto last = rows.end();
  const auto by_value = [](const auto& a, const auto& b) { return a.first < b.first; };
  while (true) {
    const auto middle = first + (last - first) / 2;
    std::nth_element(first, middle, last, by_value);
    std::size_t left = 0;
    for (auto it = first; it != middle; ++it) {
      left += it->second;
    }
    if (left >= need) {
      last = middle;
      continue;
    }
    if (left + middle->second >= need) {
      return middle->first;
    }
    need -= left + middle->second;
    first = middle + 1;
  }
}

// Lists a target's candidates and picks its answer among them.
double enumerate(std::span<const double> x, std::span<const double> y, const Target& target) {
  std::vector<double> found;
  found.reserve(target.candidates);
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = target.lo[i]; j < target.hi[i]; ++j) {
      found.push_back(y[j] - x[i]);
    }
  }
  assert(target.k >= target.before && target.k - target.before < found.size());
  const auto nth = found.begin() + static_cast<std::ptrdiff_t>(target.k - target.before);
  std::nth_element(found.begin(), nth, found.end());
  return *nth;
}

// The selected ranks from the list of all m * n differences (few: one list for every rank).
std::vector<double> ranks_of_all_differences(std::span<const double> x, std::span<const double> y,
                                             std::span<const std::size_t> ranks) {
  std::vector<double> all;
  all.reserve(x.size() * y.size());
  for (double xi : x) {
    for (double yj : y) {
      all.push_back(yj - xi);
    }
  }
  std::sort(all.begin(), all.end());  // one sort beats a selection per rank (an estimate and two bounds)
  std::vector<double> values(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    values[r] = all[ranks[r]];
  }
  return values;
}

std::optional<HodgesLehmannEstimate> estimate_sorted(std::vector<double> x, std::vector<double> y, double confidence) {
  if (x.empty() || y.empty()) {
    return std::nullopt;
  }
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  const std::size_t pairs = x.size() * y.size();
  // One shared selection: the middle rank(s), then both Moses bounds.
  std::vector<std::size_t> ranks = {pairs / 2};
  if (pairs % 2 == 0) {
    ranks.push_back(pairs / 2 - 1);
  }
  const std::optional<std::size_t> rank = moses_rank(x.size(), y.size(), confidence);
  if (rank) {
    ranks.push_back(*rank - 1);
    ranks.push_back(pairs - *rank);
  }
  const std::vector<double> values = pairwise_difference_ranks(x, y, ranks);
  HodgesLehmannEstimate result;
  result.estimate = pairs % 2 == 1 ? values[0] : (values[1] + values[0]) / 2.0;
  if (rank) {
    result.ci_low = values[values.size() - 2];
    result.ci_high = values[values.size() - 1];
  }
  return result;
}

}  // namespace

std::optional<std::size_t> moses_rank(std::size_t m, std::size_t n, double confidence) {
  if (m == 0 || n == 0 || !(confidence > 0.0 && confidence < 1.0)) {
    return std::nullopt;
  }
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  // The normal quantile of the last confidence seen on this thread (one confidence per run, in practice).
  thread_local double last_confidence = -1.0;
  thread_local double last_z = 0.0;
  if (confidence != last_confidence) {
    const boost::math::normal_distribution<double> standard_normal;
    last_z = boost::math::quantile(standard_normal, (1.0 + confidence) / 2.0);
    last_confidence = confidence;
  }
  const double z = last_z;
  const double c = std::floor(mn / 2.0 - z * std::sqrt(mn * static_cast<double>(m + n + 1) / 12.0));
  if (c < 1.0) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(c);
}

std::vector<double> pairwise_difference_ranks(std::span<const double> x_sorted, std::span<const double> y_sorted,
                                              std::span<const std::size_t> ranks) {
  assert(std::is_sorted(x_sorted.begin(), x_sorted.end()) && std::is_sorted(y_sorted.begin(), y_sorted.end()));
  const std::size_t m = x_sorted.size();
  const std::size_t n = y_sorted.size();
  // Listing this many candidates costs no more than a few cuts.
  const std::size_t enumerate_limit = std::max<std::size_t>(2 * (m + n), 4096);
  if (m * n <= enumerate_limit) {
    return ranks_of_all_differences(x_sorted, y_sorted, ranks);
  }
  std::vector<Target> targets(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    assert(m > 0 && n > 0 && ranks[r] < m * n);
    targets[r].k = ranks[r];
    targets[r].lo.assign(m, 0);
    targets[r].hi.assign(m, n);
    targets[r].candidates = m * n;
  }
  Cut cut;
  std::vector<std::pair<double, std::size_t>> rows;
  while (true) {
    // Cut at a pivot of the widest open target; every open target takes the same cut.
    Target* widest = nullptr;
    for (Target& target : targets) {
      if (!target.answer && target.candidates > enumerate_limit &&
          (widest == nullptr || target.candidates > widest->candidates)) {
        widest = &target;
      }
    }
    if (widest == nullptr) {
      break;
    }
    const double pivot = pivot_of(x_sorted, y_sorted, *widest, rows);
    cut_at(x_sorted, y_sorted, pivot, cut);
    for (Target& target : targets) {
      if (!target.answer) {
        narrow(target, cut, pivot);
      }
    }
  }
  std::vector<double> values(targets.size());
  for (std::size_t r = 0; r < targets.size(); ++r) {
    values[r] = targets[r].answer ? *targets[r].answer : enumerate(x_sorted, y_sorted, targets[r]);
  }
  return values;
}

double kth_pairwise_difference(std::span<const double> x_sorted, std::span<const double> y_sorted, std::size_t k) {
  const std::size_t ranks[] = {k};
  return pairwise_difference_ranks(x_sorted, y_sorted, ranks).front();
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

}  // namespace neuron_gate
