#include "compare/history.hpp"

#include "stats/change_point.hpp"
#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/multiple_testing.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace neuron_gate {
namespace {

// Segments shorter than this cannot reach p < 0.05 under Pettitt's permutation test (2 / C(7, 3) = 0.057).
constexpr std::size_t k_min_segment = 8;

bool deciding(const MetricMeasurement& metric) {
  if (metric.metric_class == MetricClass::end_to_end) {
    return !metric.explanatory;
  }
  return metric.metric_class == MetricClass::step_time || metric.scope == MetricScope::class_total;
}

// One change-point test of a segment of a series' present values.
struct Candidate {
  std::size_t series = 0;
  std::size_t begin = 0, end = 0;  // the segment, in indices of the present values
  ChangePoint point;
};

// Relative size after/before: Hodges–Lehmann ratio where every value is > 0, else HL shift over the
// median before (1 when that median is 0).
double shift_ratio(const std::vector<double>& before, const std::vector<double>& after) {
  const bool positive = std::all_of(before.begin(), before.end(), [](double v) { return v > 0; }) &&
                        std::all_of(after.begin(), after.end(), [](double v) { return v > 0; });
  if (positive) {
    if (const auto ratio = hodges_lehmann_ratio(before, after)) {
      return ratio->estimate;
    }
  }
  const auto shift = hodges_lehmann_shift(before, after);
  const auto base = median(before);
  if (!shift || !base || *base == 0) {
    return 1.0;
  }
  return 1.0 + shift->estimate / std::abs(*base);
}

class Analysis {
 public:
  Analysis(History& history, double alpha) : m_history(history), m_alpha(alpha) {}

  // Present values of series s and the baselines they belong to.
  void load(std::size_t s) {
    m_values.clear();
    m_baselines.clear();
    const auto& medians = m_history.series[s].medians;
    for (std::size_t i = 0; i < medians.size(); ++i) {
      if (medians[i]) {
        m_values.push_back(*medians[i]);
        m_baselines.push_back(i);
      }
    }
  }

  std::optional<Candidate> test(std::size_t s, std::size_t begin, std::size_t end) const {
    if (end - begin < 3) {
      return std::nullopt;
    }
    const std::span<const double> segment(m_values.data() + begin, end - begin);
    const auto point = pettitt_change_point(segment);
    if (!point) {
      return std::nullopt;
    }
    return Candidate{s, begin, end, *point};
  }

  // Records the shift of `candidate` when it is large enough; true when recorded.
  bool record(const Candidate& candidate, double adjusted_p, double min_shift) {
    const std::size_t split = candidate.begin + candidate.point.index;
    const std::vector<double> before(m_values.begin() + static_cast<std::ptrdiff_t>(candidate.begin),
                                     m_values.begin() + static_cast<std::ptrdiff_t>(split));
    const std::vector<double> after(m_values.begin() + static_cast<std::ptrdiff_t>(split),
                                    m_values.begin() + static_cast<std::ptrdiff_t>(candidate.end));
    const double ratio = shift_ratio(before, after);
    if (adjusted_p > m_alpha || std::abs(ratio - 1.0) < min_shift) {
      return false;
    }
    HistoryShift shift;
    shift.series = candidate.series;
    shift.baseline = m_baselines[split];
    shift.before = before.size();
    shift.after = after.size();
    shift.ratio = ratio;
    shift.worse = m_history.series[candidate.series].better == Better::lower ? ratio > 1.0 : ratio < 1.0;
    shift.statistic = candidate.point.statistic;
    shift.p_value = candidate.point.p_value;
    shift.adjusted_p = adjusted_p;
    shift.exact = candidate.point.exact;
    m_history.shifts.push_back(shift);
    return true;
  }

  // Binary segmentation below a recorded split: each part long enough is tested at alpha on its own.
  void split(const Candidate& parent, double min_shift) {
    const std::size_t middle = parent.begin + parent.point.index;
    for (const auto& [begin, end] : {std::pair{parent.begin, middle}, std::pair{middle, parent.end}}) {
      if (end - begin < k_min_segment) {
        continue;
      }
      if (const auto child = test(parent.series, begin, end);
          child && record(*child, child->point.p_value, min_shift)) {
        split(*child, min_shift);
      }
    }
  }

 private:
  History& m_history;
  double m_alpha;
  std::vector<double> m_values;
  std::vector<std::size_t> m_baselines;
};

// The deciding metrics' medians per baseline, measured against the newest baseline as compare would.
std::vector<HistorySeries> measure_series(const std::vector<SideSamples>& baselines, const RuleSet& rules) {
  std::vector<HistorySeries> series;
  for (std::size_t i = 0; i < baselines.size(); ++i) {
    for (const auto& metric : compare_metrics(baselines.back(), baselines[i], rules)) {
      if (!deciding(metric) || !metric.present_in_head) {
        continue;
      }
      auto found = std::find_if(series.begin(), series.end(), [&](const HistorySeries& s) {
        return s.metric_class == metric.metric_class && s.scope == metric.scope && s.name == metric.name;
      });
      if (found == series.end()) {
        series.push_back({metric.metric_class, metric.name, metric.scope, metric.unit, metric.better,
                          std::vector<std::optional<double>>(baselines.size())});
        found = series.end() - 1;
      }
      found->medians[i] = metric.head_median;
    }
  }
  return series;
}

}  // namespace

History analyse_history(const std::vector<SideSamples>& baselines, const RuleSet& rules, double min_shift) {
  History history;
  history.alpha = rules.alpha;
  history.min_shift = min_shift;
  if (baselines.empty()) {
    return history;
  }
  history.series = measure_series(baselines, rules);
  Analysis analysis(history, rules.alpha);
  std::vector<Candidate> first;
  for (std::size_t s = 0; s < history.series.size(); ++s) {
    analysis.load(s);
    std::size_t present = 0;
    for (const auto& value : history.series[s].medians) {
      present += value ? 1U : 0U;
    }
    if (auto candidate = analysis.test(s, 0, present)) {
      first.push_back(*candidate);
    }
  }
  history.tests = first.size();
  std::vector<double> p;
  for (const auto& candidate : first) {
    p.push_back(candidate.point.p_value);
  }
  const auto adjusted = adjust_p_values(p, Correction::holm);
  for (std::size_t c = 0; c < first.size(); ++c) {
    analysis.load(first[c].series);
    if (analysis.record(first[c], adjusted[c], min_shift)) {
      analysis.split(first[c], min_shift);
    }
  }
  std::sort(history.shifts.begin(), history.shifts.end(), [](const HistoryShift& a, const HistoryShift& b) {
    return std::tie(a.baseline, a.series) < std::tie(b.baseline, b.series);
  });
  return history;
}

}  // namespace neuron_gate
