#pragma once
// Statistics -> verdicts, run on one side against itself: A/A calibration. The side's runs (or, with
// fewer than 4 runs, its traces) are split into two random halves many times, and each split is
// compared exactly as the gate would compare base and head (same rules, correction and thresholds).
// Any REGRESSED that would fail the gate is a false alarm; the spread of the ratios is the noise floor.

#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"
#include "stats/proportion.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Fixed default seed, so `calibrate` prints the same numbers on every run.
inline constexpr std::uint64_t k_calibration_seed = 20240601;

// How to calibrate.
struct CalibrationOptions {
  std::size_t splits = 200;                  // random halvings
  std::uint64_t seed = k_calibration_seed;   // std::mt19937_64 seed; the shuffle is our own Fisher–Yates
};

// What was split into halves.
enum class SplitBy {
  runs,    // folders of traces (side_runs), when the side has at least 4
  traces,  // single traces, when the side has fewer than 4 runs (and at least 4 traces)
};

// The noise of one metric across the A/A splits. Ratios are half B / half A, as head / base.
struct NoiseFloor {
  MetricClass metric_class = MetricClass::self_cpu;
  MetricScope scope = MetricScope::op;  // per-op classes: an op, the replacement group or the class total
  std::string name;           // op key, "step time", "replaced ops", "all ops", or the end-to-end metric's name
  std::string unit;           // "us" (per step) or the end-to-end unit
  bool gating = false;        // its class decides the gate under the rules
  double threshold = 0.05;    // the rules' threshold for this metric
  std::size_t splits = 0;     // splits in which both halves had the metric and a ratio
  std::size_t regressed = 0;  // splits in which it was REGRESSED
  // Splits in which its halves could not reach the corrected alpha at all: the smallest attainable
  // one-sided p for their sizes exceeds alpha / family size (stats/power.hpp).
  std::size_t unreachable = 0;
  std::optional<double> median_abs_log_ratio;  // median over splits of |ln ratio|
  std::optional<double> noise_floor;           // 95th percentile (type 7) over splits of |ratio - 1|
  std::optional<double> p95_abs_shift;         // 95th percentile of |Hodges–Lehmann shift|, in `unit`
  // The threshold sits below the noise floor, and (per op) the noise also reaches rules.floor_us, so
  // the threshold alone does not keep noise from being called a change.
  bool threshold_below_noise = false;
  // End-to-end samples of fewer than 4 runs (processes) are split at random within a process: their
  // spread is not run-to-run noise, so noise_floor is then unset and threshold_below_noise false.
  bool within_process = false;
  bool operator==(const NoiseFloor&) const = default;
};

// The result of calibrate().
struct Calibration {
  std::string spec;                 // the profile as given
  SampleUnit unit = SampleUnit::step;
  SplitBy split_by = SplitBy::runs;
  std::size_t runs = 0, traces = 0;
  std::size_t half_a = 0, half_b = 0;  // runs (or traces) per half; half_a <= half_b
  std::size_t end_to_end_samples = 0;  // e2e samples: split by their runs when a metric has 4 or more, else
                                       // at random within one process (NoiseFloor::within_process)
  std::size_t splits = 0;
  std::uint64_t seed = 0;
  double alpha = 0.05;
  std::vector<MetricClass> gating_classes;  // as decide() found them on the first split
  std::size_t failing_splits = 0;           // splits with a gating REGRESSED: the gate would fail
  Proportion false_alarm_rate;              // failing_splits / splits, Clopper–Pearson 95% CI
  // Per metric class: splits with at least one REGRESSED of that class, gating or not.
  std::map<MetricClass, std::size_t> regressed_splits_by_class;
  // Gating metrics `unreachable` in every split: the false-alarm rate says nothing about them (e.g.
  // per run, 5 vs 5 runs reach p = 1/252 at best, above 0.05 / 17 metrics).
  std::size_t gating_never_decidable = 0;
  std::vector<NoiseFloor> metrics;  // order of compare_metrics (end-to-end, step time, ops by name)
  bool operator==(const Calibration&) const = default;
};

// Splits `side` into two random halves options.splits times and runs compare_metrics + decide on
// each (conditions are not checked: both halves are one side; waivers do not apply). Deterministic for
// a given seed, whatever the thread count: the splits are drawn in order from one std::mt19937_64 and
// judged on worker_threads() threads (util/parallel.hpp). Cost: options.splits comparisons of half-size
// sides, most of it exact Mann–Whitney p values (stats/mann_whitney.hpp). Throws UsageError (naming
// side.inventory.spec) when the side cannot be split: fewer than 4 runs and fewer than 4 traces, no
// trace and fewer than 4 end-to-end samples, options.splits == 0, or unit run with fewer than
// 2 * k_min_runs_for_run_unit runs.
Calibration calibrate(const SideSamples& side, const RuleSet& rules, const CalibrationOptions& options);

} // namespace neuron_gate
