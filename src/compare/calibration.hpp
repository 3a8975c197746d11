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
  std::size_t splits = 200;                 // random halvings
  std::uint64_t seed = k_calibration_seed;  // std::mt19937_64 seed; the shuffle is our own Fisher–Yates
  // A cap on the sample values compared over all splits (sum over splits and metrics of the two halves'
  // sample counts), none when unset. When the first split compares v values, only the first
  // max(min_splits, floor(value_budget / v)) of the `splits` splits are run (the same draws: a prefix),
  // so the cost is deterministic in the data and never depends on the clock or the thread count.
  std::optional<std::size_t> value_budget;
  std::size_t min_splits = 1;  // the fewest splits a value_budget may leave (at most `splits`)
};

// compare's automatic A/A noise check of base (compare/gate_policy.cpp base_calibration, docs/user-guide.md "Noise
// floor in compare"): k_noise_check_splits splits, reduced to fit k_noise_check_value_budget sample values, never below
// k_noise_check_min_splits. A split compares every sample step of the side once per metric: on the bundled examples
// 1,720 values (20 splits: 34,400); with 1,000 ops in 320 steps about 640,000 (self CPU and device), so 3 splits would
// fit and the minimum, 10, is run.
inline constexpr std::size_t k_noise_check_splits = 20;
inline constexpr std::size_t k_noise_check_min_splits = 10;
inline constexpr std::size_t k_noise_check_value_budget = 2'000'000;

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
  std::string spec;  // the profile as given
  SampleUnit unit = SampleUnit::step;
  SplitBy split_by = SplitBy::runs;
  std::size_t runs = 0, traces = 0;
  std::size_t half_a = 0, half_b = 0;       // runs (or traces) per half; half_a <= half_b
  std::size_t end_to_end_samples = 0;       // e2e samples: split by their runs when a metric has 4 or more, else
                                            // at random within one process (NoiseFloor::within_process)
  std::size_t splits = 0;                   // splits run (below requested_splits when a value budget reduced them)
  std::size_t requested_splits = 0;         // CalibrationOptions::splits
  std::optional<std::size_t> value_budget;  // CalibrationOptions::value_budget
  std::size_t min_splits = 1;               // CalibrationOptions::min_splits
  std::size_t comparisons = 0;              // metrics compared, summed over the splits run
  std::size_t sample_values = 0;            // the halves' sample counts, summed over those metrics
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

// What compare's A/A noise check of base rested on (shown in the report's Provenance): all counts, so
// the report states the check's cost reproducibly (no clock).
struct NoiseCheck {
  SplitBy split_by = SplitBy::runs;
  std::size_t runs = 0, traces = 0;         // of base
  std::size_t half_a = 0, half_b = 0;       // runs (or traces) per half
  std::size_t splits = 0;                   // splits run
  std::size_t requested_splits = 0;         // splits asked for; more than `splits` when the budget reduced them
  std::size_t min_splits = 0;               // the fewest the budget may leave
  std::optional<std::size_t> value_budget;  // sample values the splits may compare in all
  std::size_t comparisons = 0;              // metrics compared over the splits
  std::size_t sample_values = 0;            // the halves' sample counts over those comparisons
  std::uint64_t seed = 0;
  bool operator==(const NoiseCheck&) const = default;
};

// The counts of `calibration` as the report states them.
NoiseCheck noise_check_of(const Calibration& calibration);

// Splits `side` into two random halves options.splits times and runs compare_metrics + decide on
// each (conditions are not checked: both halves are one side; waivers do not apply). Deterministic for
// a given seed, whatever the thread count: the splits are drawn in order from one std::mt19937_64 and
// judged one split per task on worker_threads() threads (util/parallel.hpp), then accumulated in order.
// Cost: options.splits comparisons of half-size sides (fewer under options.value_budget: the first split
// is judged alone to count its values), most of it exact Mann–Whitney p values (stats/mann_whitney.hpp,
// memoised: the halves of one side pool the same values split after split). Throws UsageError (naming
// side.inventory.spec) when the side cannot be split: fewer than 4 runs and fewer than 4 traces, no
// trace and fewer than 4 end-to-end samples, options.splits == 0, or unit run with fewer than
// 2 * k_min_runs_for_run_unit runs.
Calibration calibrate(const SideSamples& side, const RuleSet& rules, const CalibrationOptions& options);

}  // namespace neuron_gate
