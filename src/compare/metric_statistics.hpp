#pragma once
// The statistics of one measured metric (DESIGN.md section 4): Mann–Whitney U (worse, better, two-sided),
// the Hodges–Lehmann shift and ratio with their 90% CIs (k_interval_confidence), Welch's t on logs, the medians.

#include "compare/metric_comparison.hpp"

#include <span>

namespace neuron_gate {

// Fills the medians, p values, test method, shift, ratio and Welch fields of `metric` from its
// base_samples and head_samples (the rest are left as they are). Without samples on a side only the
// medians are set. The ratio is from logs where every sample is > 0, else the shift over the base median.
void run_statistics(MetricMeasurement& metric);

// The sample count of every run of an end-to-end metric is known (files that list runs, or one run each).
bool e2e_runs_known(const EndToEndMetric& m);

// One sample per run of an end-to-end metric: the median of that run's samples (0 for an empty run).
std::vector<double> e2e_run_medians(const EndToEndMetric& m);

// MetricMeasurement::runs_ratio_low/high: the 90% Welch interval of log head run medians over log base
// run medians (stats/welch_log.hpp; both sides equal within a side give the point ratio), and
// runs_p_two_sided its two-sided p. Left unset with fewer than 2 runs a side or a median <= 0.
void set_between_runs_interval(MetricMeasurement& metric, std::span<const double> base_run_medians,
                               std::span<const double> head_run_medians);

// Whether two sides' manifests name a capture `pairing` session (RunManifest::pairing_session), and the same;
// where they give the capture order (RunManifest::pairing_order), it must be the same on both sides and pair
// base/RUN with head/RUN as neighbours (captured one right after the other), else not_alternating.
enum class Pairing { none, same_session, different_sessions, one_side, not_alternating };
Pairing pairing_of(const SideView& base, const SideView& head);

// Tests an end-to-end metric unpaired, `b` and `h` its base and head numbers: samples are the per-run
// medians when `by_run` (k_min_runs_for_e2e_run_unit runs a side), else the pooled measurements, with the
// between-runs interval of the runs' medians (set_between_runs_interval) when `runs_known`.
void measure_unpaired(MetricMeasurement& metric, const EndToEndMetric& b, const EndToEndMetric& h, bool by_run,
                      bool runs_known);

// Tests an end-to-end metric of one capture session paired (run_paired_statistics on the per-run medians)
// and keeps the unpaired test of the same runs (measure_unpaired; its `pairing` k_too_few_pairs_note) in
// `metric.unpaired` for judge_in_place; without it where the paired test fell back to unpaired.
void measure_paired(MetricMeasurement& metric, const EndToEndMetric& b, const EndToEndMetric& h, bool by_run,
                    bool runs_known);

// Why an end-to-end metric was tested unpaired (MetricMeasurement::pairing, static text); "" for
// Pairing::none. `runs_known`: the samples' runs are known on both sides (e2e.json `runs`).
const char* pairing_note(Pairing pairing, bool runs_known);

// Why a paired end-to-end metric was decided by its unpaired test instead (MetricMeasurement::unpaired):
// its pairs cannot reach the p its family needs and the unpaired test of the same runs finds a regression.
inline constexpr const char* k_too_few_pairs_note =
    "unpaired: too few pairs for the paired test to reach the p it needs, and the same runs tested unpaired "
    "show a regression";

// The paired design (docs/decision-rule.md "Paired runs"): base_samples[i] and head_samples[i] are the
// medians of run i of each side, captured in one session, base and head alternating. Tests the per-run
// log ratios log(head_i / base_i) with the Wilcoxon signed-rank test (worse, better, two-sided; exact for
// up to 50 pairs without zeros or ties, stats/wilcoxon.hpp) and takes the ratio as exp of their
// Walsh-average Hodges–Lehmann estimate with its 90% CI; the shift from the per-run differences. Sets
// `paired`. Falls back to run_statistics (unpaired) when the sizes differ, a side has under 2 runs, or a
// sample is not > 0; `pairing` then says why.
void run_paired_statistics(MetricMeasurement& metric);

}  // namespace neuron_gate
