#pragma once
// `history` (issue 20 item 5): the deciding metrics of stored baselines along first-parent history, and
// where one shifted. Each baseline (a digest, store/digest.hpp) is reduced to one median per metric, as
// `compare` measures it; a shift is Pettitt's change point (stats/change_point.hpp) over those medians,
// Holm-adjusted over the metrics tested, and reported only when its size reaches min_shift. One value per
// baseline is the honest unit: steps of one profiled process are not independent (docs/user-guide.md "Statistics
// and verdicts"), so pooling them would find "shifts" that are run-to-run noise.

#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// One deciding metric along history: its median per baseline, oldest first (nullopt where a baseline
// lacks the metric).
struct HistorySeries {
  MetricClass metric_class = MetricClass::step_time;
  std::string name;  // "latency", "step time", "all ops" (with rank and point suffixes as compare names them)
  MetricScope scope = MetricScope::op;
  std::string unit;  // "us" for step time and class totals (µs per step), else the end-to-end unit
  Better better = Better::lower;
  std::vector<std::optional<double>> medians;
  bool operator==(const HistorySeries&) const = default;
};

// A change point found in one series.
struct HistoryShift {
  std::size_t series = 0;             // index into History::series
  std::size_t baseline = 0;           // first baseline after the change (index into the baselines, oldest first)
  std::size_t before = 0, after = 0;  // baselines with a value on each side of it, within the segment tested
  // Size: Hodges–Lehmann ratio after/before of the medians (all > 0), else the HL shift over the median
  // before; ratio - 1 is the relative change (+0.03 = 3% higher).
  double ratio = 1.0;
  bool worse = false;     // in the direction the metric's `better` calls worse
  double statistic = 0;   // Pettitt's K
  double p_value = 1;     // permutation p of K (exact up to 10 baselines)
  double adjusted_p = 1;  // Holm over the metrics' first tests; a split segment's own p is not adjusted
  bool exact = true;
  bool operator==(const HistoryShift&) const = default;
};

struct History {
  std::vector<HistorySeries> series;
  std::vector<HistoryShift> shifts;  // by baseline, then series
  double alpha = 0.05;               // rules.alpha
  double min_shift = 0.01;           // smallest |ratio - 1| marked
  std::size_t tests = 0;             // metrics with a change point candidate (Holm's family size)
  bool operator==(const History&) const = default;
};

// Default smallest relative shift `history` marks: 1%, below the gate's thresholds, so that a creep no
// single pull request crosses shows.
inline constexpr double k_history_min_shift = 0.01;

// The deciding metrics of `baselines` (oldest first): every end-to-end metric that is not explanatory,
// step time, and the class totals (`all ops` self CPU and device time), measured per baseline as
// compare_metrics() measures a side (its medians under rules.unit and rules.drop_first_steps). A series
// with a change point (p <= alpha after Holm, |ratio - 1| >= min_shift) is split there and each part with
// at least 8 values searched again (binary segmentation; fewer than 8 values cannot reach p < 0.05).
// Throws nothing on its own; compare_metrics() may throw UsageError for a side that cannot be sampled.
History analyse_history(const std::vector<SideSamples>& baselines, const RuleSet& rules,
                        double min_shift = k_history_min_shift);

}  // namespace neuron_gate
