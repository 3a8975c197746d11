#pragma once
// Step 4: one metric, base vs head, measured. Builds the per-step samples of every op (self CPU,
// device), of step time and of each end-to-end metric, and runs the statistics on each (DESIGN.md
// sections 2, 4). A MetricMeasurement is read-only once built: nothing here applies alpha, thresholds
// or families; the judgement (stage 5, judgement.hpp) does, across families.

#include "compare/replacement_groups.hpp"
#include "compare/rule_set.hpp"
#include "compare/sampling_plan.hpp"
#include "compare/side_view.hpp"
#include "formats/end_to_end_metric.hpp"
#include "profile/read_side.hpp"

#include "util/heap_optional.hpp"

#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// How a metric class is named: in prose ("end-to-end", "device time", "self CPU", "step time"), in a JUnit
// test name ("device" for device time), or as a table's heading ("self CPU time", "profiled step time").
enum class ClassLabel { prose, junit, heading };

// The one name of a metric class for each use (ClassLabel).
std::string metric_class_label(MetricClass metric_class, ClassLabel style = ClassLabel::prose);

// Base vs head of one metric with every statistic the report shows. Op and step-time values are in
// µs per step; end-to-end values in the metric's own unit. Ratios are head/base. No p value here is
// adjusted and no verdict is given: see MetricJudgement (judgement.hpp).
struct MetricMeasurement {
  MetricClass metric_class = MetricClass::self_cpu;
  std::string name;  // op key, "step time", or the end-to-end metric's name; when the sides
                     // are compared rank to rank, op and step-time names end in
                     // rank_suffix(rank): "aten::mm [rank 1]", "step time [rank 0]"
  // The rank whose samples these are, set only when compared rank to rank (compare_per_rank() in
  // ranks.hpp); `ranked` tells that case apart from a rank-less single-rank comparison.
  std::optional<unsigned> rank;
  bool ranked = false;
  // The operating point (profile/operating_points.hpp) whose samples these are, "" unless the sides are
  // compared point by point; then every name ends in point_suffix(point), after any rank suffix:
  // "latency [at 16x2048-float32]", "aten::mm [rank 1] [at 4x512-bfloat16]".
  std::string point;
  std::string unit;  // "us" for op and step metrics, else the e2e unit
  Better better = Better::lower;
  // An end-to-end metric that explains rather than decides: a Neuron device summary measure other than
  // "device total_time", or "device total_time" when the profiles also carry the application's own
  // end-to-end numbers. Its own family ("device summary"); gates only under metrics.end_to_end.gate "always".
  // Also a metric its e2e.json marks "gates": false on either side (EndToEndMetric::gates):
  bool explanatory = false;
  // ... that one sets declared_explanatory, and its family is "end-to-end (explains)" (e.g. the capture
  // helper's thread_cpu_time beside the latency that gates).
  bool declared_explanatory = false;
  // A self CPU metric of a runtime call (TraceSamples::runtime_calls): its own family, outside the class
  // sums, gating only under rules gate_runtime_calls (issue 38 item 6).
  bool runtime_call = false;
  std::size_t base_runs = 0, head_runs = 0;  // traces (runs) the samples come from; 0 for end-to-end
  // Processes the samples come from: runs (folders of traces, side_runs) for ops and step time; for an
  // end-to-end metric its runs (EndToEndMetric::runs, at least 1). Samples of one process are not
  // independent (docs/user-guide.md "Statistics and verdicts", issue 14 item 4).
  std::size_t base_processes = 0, head_processes = 0;
  // The timer's resolution in `unit` when the data are quantised: 1 µs when every duration of a side's
  // traces is a multiple of 1000 ns (integer-µs timers, e.g. legacy traces). The shift and ratio CIs
  // below are then already widened by one quantum on each side (widen_for_resolution).
  std::optional<double> resolution;
  std::vector<double> base_samples;  // one per step (ops absent from a step count 0), per run (median
                                     // of its steps, under SampleUnit::run) or per e2e measurement
  std::vector<double> head_samples;
  std::optional<double> base_median, head_median;

  // Effect: Hodges–Lehmann ratio on log values where all values are > 0, else the Hodges–Lehmann
  // shift divided by the base median. CI at k_interval_confidence (90%).
  std::optional<double> ratio, ratio_low, ratio_high;
  std::optional<double> shift, shift_low, shift_high;  // Hodges–Lehmann head - base, in `unit`
  bool ratio_from_logs = false;

  // Mann–Whitney U, one-sided in the direction that hurts (p_worse) and the other (p_better).
  std::optional<double> p_worse, p_better, p_two_sided;
  const char* test_method = "";  // "exact", "exact conditional (ties)", "normal approximation" (static text)
  // End-to-end: the per-run pairs of one capture session were tested (run_paired_statistics), and why or
  // why not (static text, "" where pairing does not apply: both sides without a pairing session).
  bool paired = false;
  const char* pairing = "";
  // End-to-end, paired: the same runs tested unpaired (empty otherwise), for judge_in_place when the pairs
  // are too few to reach the p the metric's family needs (docs/decision-rule.md "Paired runs").
  HeapOptional<MetricMeasurement> unpaired;
  // Welch's t on log values: ratio of geometric means with its CI, and two-sided p (reported, not gated).
  std::optional<double> welch_ratio, welch_low, welch_high, welch_p;
  // Between runs: the 90% Welch interval (the one-sided 5% test) of the ratio of the runs' medians, head
  // over base, where samples pooled from several processes a side stand for the runs (per-step op and
  // step-time samples from k_processes_to_establish or more processes a side; end-to-end measurements
  // pooled from 2 to 4 runs a side). A change must hold across runs too (judgement.hpp); nullopt otherwise.
  // runs_p_two_sided: that Welch test's two-sided p (nullopt when the runs' medians are constant per side);
  // its one-sided half must reach the family's corrected level (MetricComparison::needed_p).
  std::optional<double> runs_ratio_low, runs_ratio_high, runs_p_two_sided;

  // Structure: median calls per step on each side (ops only); an op on one side only has nullopt on the other.
  std::optional<double> base_calls, head_calls;
  bool calls_changed = false;
  bool present_in_base = true, present_in_head = true;

  // Share of each side's time of this metric's kind carried by events the event screen excluded
  // (profile/event_screen.hpp; SideSamples::screened): device time for device metrics (1 when a side's
  // device time was lost), self CPU time for self CPU, the larger of the two for step time; 0 end to end.
  double base_excluded_share = 0.0, head_excluded_share = 0.0;
  // The metric holds events the screen excluded on that side (screened_metrics.hpp): its op's own events
  // (device: events attributed to it), for a class total or replacement group any of its ops', for step
  // time a step cut off or screened. Only these metrics can be INCONCLUSIVE for incomplete data.
  bool base_screened = false, head_screened = false;
  // Of those, a device metric holding launches whose device events are missing on that side
  // (DataProblemKind::device_events_missing; its ops' CPU calls remain, their device time does not): the
  // first such op key of the metric (its own for an op), "" for none.
  std::string base_device_missing, head_device_missing;
  // A device metric of a side whose device time was lost (ScreenedTime::device_time_lost).
  bool base_device_lost = false, head_device_lost = false;
  // Self CPU and device metrics: one op, or a sum per step (replacement_groups.hpp): the replacement
  // group of the class (named k_replacement_group_name, `replaced` lists its ops) or the class total
  // (k_class_total_name). Sums are on both sides with calls unset; other classes keep MetricScope::op.
  MetricScope scope = MetricScope::op;
  HeapOptional<ReplacementMembers> replaced;  // empty (reads as no members) but for replacement groups
};

// Widens the CIs of a measured metric by one timer quantum `resolution` on each side: the shift CI by
// the quantum, the ratio CI by the quantum over the base median (base median > 0; the low end stays
// >= 0). A quantised measurement can show a collapsed interval ([1.000, 1.000]) that says nothing about
// changes smaller than a quantum (issue 14 item 3). Sets metric.resolution.
void widen_for_resolution(MetricMeasurement& metric, double resolution);

// Quanta of base's median below which an op is quantum-sized (issue 36 item 9: "1-µs-quantised ops" are
// those under 3 µs per step): there one timer quantum is a third of the value or more.
inline constexpr double k_quantum_sized_quanta = 3.0;

// True when `metric`'s data are quantised (resolution set) and base's median is under
// k_quantum_sized_quanta quanta: a change of one quantum there cannot be told from the rounding of one
// sample, so an insignificant one may pass (docs/decision-rule.md "NO DECISION").
bool quantum_sized(const MetricMeasurement& metric);

// True when every step duration and every op's self CPU and device time in `side`'s traces is a
// multiple of 1000 ns (an integer-µs timer); false for a side without traces.
bool integer_microsecond_data(const SideSamples& side);

// True when every step duration and every op's self CPU and device time in the view's traces is a
// multiple of 1000 ns; false for a view without traces.
bool integer_microsecond_data(const SideView& view);

// compare_metrics below, of views: a half's metrics are exactly those of a SideSamples holding copies
// of its traces in path order (label, end-to-end metrics and screened time from the view).
std::vector<MetricMeasurement> compare_metrics(const SideView& base, const SideView& head, const RuleSet& rules);

// Builds every metric of base vs head and runs the statistics on each: end-to-end metrics (matched
// by name), step time, and per op (rules' ignores removed; the first rules.drop_first_steps steps of
// each trace dropped) self CPU time and, where any device time exists, device time. Ops present on
// one side only are single entries with present_in_base or present_in_head false. Per class (self
// CPU; device time where any exists) the class total and, when any op is gone, appeared or changed
// calls (replacement_of), the replacement group are summed per step (sum_class) and measured like an
// op. Order: end-to-end, step time, per class the total then the group, ops by name.
// When either side holds more than one rank, step time and every op metric are built per rank from
// that rank's steps only (base rank k vs head rank k; a rank on one side only gives no metric, the
// "ranks" condition names it), named with the rank suffix, ordered by name then rank.
// Under rules.unit == SampleUnit::run the op and step-time samples are one per run: the median of
// the run's per-step values (calls per step stay per step). Throws UsageError from check_sample_unit
// (commands call it before reading the traces' contents; this is the last line of defence).
std::vector<MetricMeasurement> compare_metrics(const SideSamples& base, const SideSamples& head, const RuleSet& rules);

// Order of the summed metrics among themselves (then by name): self CPU total 0, self CPU replacement
// group 1, device total 2, device replacement group 3; 0 for other metrics.
int sum_order(const MetricMeasurement& metric);

// One sample step of a side, viewed in place (valid while the side lives): the step, and the trace whose
// op_keys name its ops.
struct SampleStep {
  const TraceSamples* trace = nullptr;
  const StepSample* step = nullptr;
};

// The steps of a side that are samples: all steps of all traces, minus the first `drop_first` of each.
std::vector<SampleStep> sample_steps(const SideSamples& side, std::size_t drop_first);

// The name of a metric without its point and rank suffixes ("aten::mm [rank 1] [at 4x512]" -> "aten::mm");
// the name itself when the metric is neither per point nor per rank. Rules patterns (waivers) match either.
std::string unranked_name(const MetricMeasurement& metric);

// Confidence of every compared metric's ratio and shift interval: 90% two-sided, the interval of the
// one-sided 5% test that decides REGRESSED/IMPROVED, and TOST's for EQUIVALENT (Schuirmann 1987), so the
// interval shown never contradicts the verdict (issue 36 item 4). Reports call it "90% CI".
inline constexpr double k_interval_confidence = 0.90;

// Smallest number of runs a side needs for SampleUnit::run (SamplingPlan::run_unit).
inline constexpr std::size_t k_min_runs_for_run_unit = sampling_plan().run_unit;

// End-to-end samples are taken per run (the median of each run's samples) when both sides have at least
// this many runs (EndToEndMetric::runs); with fewer they are pooled and the judgement applies the rules'
// between-run allowance (SamplingPlan::e2e_run_unit).
inline constexpr std::size_t k_min_runs_for_e2e_run_unit = sampling_plan().e2e_run_unit;

// Processes (runs) a side needs before self CPU time can be REGRESSED or IMPROVED and before an undecided
// metric is held to its threshold (SamplingPlan::to_establish).
inline constexpr std::size_t k_processes_to_establish = sampling_plan().to_establish;

// Checks that `side` can be sampled per `unit`: under SampleUnit::run a side with traces needs at
// least k_min_runs_for_run_unit runs. Throws UsageError naming the side, its profile and its run count.
void check_sample_unit(const SideSamples& side, SampleUnit unit);

}  // namespace neuron_gate
