#pragma once
// Step 5: the judgement. Groups measured metrics into families, corrects for multiple comparisons,
// gives each metric its verdict with a typed reason, and the comparison its outcome and exit code under
// the rules (DESIGN.md section 4). The outcome is always computed from the per-metric verdicts, never
// written separately. Nothing here is prose: report/prose.hpp turns reasons and outcomes into text.

#include "compare/conditions.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"

#include "util/heap_optional.hpp"

#include <array>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Per-metric verdicts (DESIGN.md section 4).
enum class Verdict { regressed, improved, equivalent, inconclusive, insufficient, structural };

// "REGRESSED", "IMPROVED", "EQUIVALENT", "INCONCLUSIVE", "INSUFFICIENT", "STRUCTURAL".
const char* verdict_name(Verdict verdict);

// INCONCLUSIVE or INSUFFICIENT: the evidence decided neither a change nor its absence.
bool undecided(Verdict verdict);

// The families corrected for multiple comparisons on their own.
enum class Family {
  end_to_end,           // application end-to-end metrics (and device total_time where it decides)
  device_summary,       // explanatory Neuron device summary measures
  end_to_end_explains,  // end-to-end metrics whose e2e.json says "gates": false
                        // (MetricMeasurement::declared_explanatory)
  per_op,               // self CPU and device time of every material op together (MetricJudgement::material)
  per_op_minor,         // the per-op metrics below rules.material_share: reported, corrected on their own, never gating
  step_time,            // profiled step time (per rank)
  replaced,             // ops of a replacement group (replacement_groups.hpp): judged through the group's summed
                        // time, which is in per_op; STRUCTURAL themselves, never gating
  runtime_calls,        // self CPU of host-side runtime calls (cudaLaunchKernel, nrt_execute, ...): corrected on
                        // their own, gating only under rules gate_runtime_calls
  unattributed,         // device time no op accounts for (unattributed.hpp): the rows per event category and the
                        // device replacement groups that hold such time; measured, never REGRESSED/IMPROVED, never
                        // gating: the device class total `all ops` (in per_op) holds that time and gates
};

// Every family, in the order they are corrected and read back from a JSON report.
inline constexpr std::initializer_list<Family> k_families{
    Family::end_to_end, Family::device_summary, Family::end_to_end_explains, Family::per_op,      Family::per_op_minor,
    Family::step_time,  Family::replaced,       Family::runtime_calls,       Family::unattributed};

// "end-to-end", "device summary", "end-to-end (explains)", "per-op", "per-op (not material)", "step time",
// "per-op (replaced)", "runtime calls", "per-op (not attributed)".
const char* family_name(Family family);

// Why a metric got its verdict. The numbers each reason rests on are in the MetricComparison
// (ratio, CI, shift, adjusted p, threshold, floor_us, needed_p, samples_needed, calls).
enum class VerdictReason {
  op_disappears,            // STRUCTURAL: present in base only
  op_appears,               // STRUCTURAL: present in head only
  calls_changed,            // STRUCTURAL: median calls per step differ (base_calls -> head_calls)
  in_replacement_group,     // STRUCTURAL: on both sides, a member of its class's replacement group (calls per step
                            // changed, or its device time appeared or vanished); judged through the group
  worse_beyond_threshold,   // REGRESSED: adjusted p_worse <= alpha, worse ratio >= 1 + t, |shift| >= floor
  better_beyond_threshold,  // IMPROVED: the same in the better direction
  ci_within_threshold,      // EQUIVALENT: ratio CI inside [1 - t, 1 + t]
  ci_within_floor,          // EQUIVALENT: shift CI inside ±floor_us (per op)
  too_few_samples,          // INSUFFICIENT: the smallest attainable p exceeds needed_p (alpha / family size)
  single_run,               // INCONCLUSIVE: step time where a side has one run (trace)
  threshold_straddled,      // INCONCLUSIVE: ratio CI straddles the threshold, adjusted p not within alpha
  significant_size_open,    // INCONCLUSIVE: adjusted p within alpha, but the ratio CI straddles the threshold
  adjusted_p_not_reached,   // INCONCLUSIVE: ratio CI wholly beyond the threshold, adjusted p above alpha
  below_floor,              // INCONCLUSIVE: beyond the threshold with adjusted p within alpha, |shift| < floor
  no_interval,              // INCONCLUSIVE: a ratio but no 90% CI of it at these sample sizes
  no_ratio,                 // INCONCLUSIVE: no ratio (base median 0) and the change not within the floor
  within_noise,             // INCONCLUSIVE (per op): significant and beyond threshold and floor, but the ratio CI
                            // (widened by the timer resolution) does not clear base's own A/A noise (base_noise)
  within_resolution,        // INCONCLUSIVE (per op): quantised data whose change lies within one timer quantum
  not_across_runs,          // INCONCLUSIVE (self CPU): significant and beyond the threshold, but a side's samples come
                            // from one process, so the change is not established across runs
  within_run_allowance,   // INCONCLUSIVE (end-to-end): significant and beyond the threshold, but a side's samples come
                          // from too few processes and the change is within the between-run allowance
  runs_disagree,          // INCONCLUSIVE: significant and beyond the threshold over the pooled samples, but the
                          // runs' medians do not establish it: the between-run interval (runs_ratio_low/high)
                          // does not clear no change
  ci_includes_no_change,  // INCONCLUSIVE: significant and beyond the threshold, but the ratio's 90% CI does not
                          // clear no change (a verdict its own interval would contradict)
  data_incomplete,        // INCONCLUSIVE: the metric holds events the screen excluded on a side (base/head_screened)
                          // and they carry more than max_excluded_share of that side's time of the metric's kind
                          // (MetricMeasurement::base/head_excluded_share), whatever the numbers say
  not_attributed,         // INCONCLUSIVE: device time no op accounts for (MetricJudgement::unattributed) that would
                          // be REGRESSED or IMPROVED on its own (capped_from); the device `all ops` total gates it
};

// The one per-test level of a family: the p a single metric must reach when it is tested alone against
// the whole family, alpha / family_size (Holm's first step, and Bonferroni's every step; a family of
// 0 counts as 1). Used for INSUFFICIENT (can the sample sizes reach it at all?), the minimum detectable
// effect, the samples needed and calibration's "unreachable".
double family_alpha(double alpha, std::size_t family_size);

// What the judgement adds to a measurement. Held once per metric (50,000 with 50,000 ops): members are
// ordered so that small ones share padding.
struct MetricJudgement {
  std::size_t family_size = 0;  // members of its family (below) with both sides present
  bool gating = false;          // the metric's class decides pass/fail, and (per op) it is material
  // Per op, gate "auto", with end-to-end metrics present: gates as well when a gating end-to-end metric is
  // undecided (docs/decision-rule.md "Who gates"); decide() sets `gating` from it.
  bool gates_under_undecided_end_to_end = false;
  // Self CPU op REGRESSED or undecided, grown by less than the opposite change of its class's replacement group
  // (same point and rank): shown with its verdict, never gating (time moved out of the group's ops lands partly
  // here).
  bool offset_by_replacement = false;
  // Per op: base's or head's median per step >= rules.material_share x base's reference (median step time for
  // self CPU, base's device time per step for device time; same rank), chosen before any test. Always
  // true for other metrics, and for every op when no reference exists.
  bool material = true;
  // Device time no op accounts for (unattributed.hpp): an unattributed row, or a device replacement group
  // holding such time. In Family::unattributed; never gating; its verdict is capped (never REGRESSED or
  // IMPROVED: issue 13 item 2).
  bool unattributed = false;
  std::optional<double> base_share;                           // per op: base median / reference, when both exist
  std::optional<double> p_worse_adjusted, p_better_adjusted;  // Holm (or the rules' correction)
  std::optional<double> q_value;                              // Benjamini–Hochberg of p_two_sided
  double threshold = 0.05;                                    // relative threshold t of the rules for this metric
  double floor_us = 0.0;   // absolute floor in µs per step (per-op metrics; 0 otherwise)
  double alpha = 0.05;     // the rules' alpha
  double needed_p = 0.05;  // family_alpha(alpha, family_size)
  // Adjusted one-sided p within alpha, in the worse / better direction. Renderers and findings read
  // these, never alpha.
  bool significant_worse = false, significant_better = false;
  // Not REGRESSED/IMPROVED, not end-to-end, q <= alpha and |ratio - 1| >= threshold, and undecided for a reason
  // the q does not answer (not: steps of fewer than 3 processes, a change within one timer quantum).
  bool worth_a_look = false;
  Verdict verdict = Verdict::inconclusive;
  VerdictReason why = VerdictReason::threshold_straddled;
  Family family = Family::per_op;                  // the family its p is corrected in (after `why`: no padding)
  std::optional<double> minimum_detectable_ratio;  // at the observed noise, needed_p, power 0.8
  std::optional<std::size_t> samples_needed;       // per side, when INSUFFICIENT or undecided for lack of samples
  HeapOptional<std::string> waiver;                // reason of a waiver that covers a regression
  HeapOptional<std::string> waiver_until;          // that waiver's expiry date, YYYY-MM-DD
  // Per op: base's own A/A noise, the 95th percentile of |ratio - 1| over random halvings of base's runs
  // (calibration.hpp), when compare estimated it (DecideOptions::base_noise). A REGRESSED or IMPROVED op's
  // ratio CI must clear it.
  std::optional<double> base_noise;
  // End-to-end: the between-run allowance applied (rules.between_run_allowance) because a side has fewer
  // than k_min_runs_for_e2e_run_unit runs; 0 when the samples are per run.
  double run_allowance = 0.0;
  double max_excluded_share = 0.01;  // rules.max_excluded_share, against base/head_excluded_share
  // The verdict the capped metric had before the cap (REGRESSED or IMPROVED), when it was capped.
  std::optional<Verdict> capped_from;
};

// A measured and judged metric: what every renderer draws from.
struct MetricComparison : MetricMeasurement, MetricJudgement {
  // `why` as one line of report text, written by build_report (report/prose.hpp); empty before.
  std::string reason;
};

// Outcome of a comparison (DESIGN.md section 4; docs/reference.md "Exit codes").
enum class Outcome {
  pass,            // no gating metric regressed, and the gate could decide
  regression,      // a gating metric regressed (not waived)
  not_comparable,  // the conditions held fixed differ
  no_decision,     // see no_decision() in judgement.cpp: a likely regression the evidence cannot decide, or
                   // too few samples to decide anything
};

// Every exit code of `neuron-gate compare` and what it means (docs/decision-rule.md): the one table,
// written into the JSON report as `exit_codes` for the GitHub Action. `verdict` is the report's
// `verdict` key for that code (exit 0 is also a NO DECISION without --strict: the report's verdict says).
struct ExitCodeMeaning {
  int code;
  const char* verdict;
  const char* meaning;
};
inline constexpr std::array<ExitCodeMeaning, 5> k_exit_codes{{
    {0, "pass", "pass, or no decision without --strict"},
    {1, "regression", "a gating metric regressed"},
    {2, "error", "usage or input error (no report is written)"},
    {3, "not-comparable", "the conditions held fixed differ, or head's data are incomplete"},
    {4, "no-decision", "no decision under --strict"},
}};

// The process exit code of an outcome (k_exit_codes): pass 0, regression 1, not_comparable 3,
// no_decision 0 (4 under --strict).
int exit_code(Outcome outcome, bool strict);

// Base's A/A noise of one metric (calibration.hpp NoiseFloor::noise_floor), by class and name.
struct BaseNoise {
  MetricClass metric_class = MetricClass::self_cpu;
  std::string name;
  double noise_floor = 0.0;             // 95th percentile of |ratio - 1| between random halves of base
  MetricScope scope = MetricScope::op;  // an op, or a replacement group / class total of that name
};

// The sides whose device time is unknown (profile/device_capture.hpp device_time_unknown), and why.
struct DeviceTimeMissing {
  std::string sides;  // "base", "head", "base and head"; "" for none
  // device_capture_sign of the first such side when it holds no device time although device activity was
  // captured; "" when its launches lost their device events (ScreenedTime::device_time_lost)
  std::string captured;
  bool operator==(const DeviceTimeMissing&) const = default;
};

// Options of judge() that come from the command line.
struct DecideOptions {
  bool strict = false;                // NO DECISION gives exit code 4
  std::string today;                  // YYYY-MM-DD, for waiver expiry ("" = no waiver applies)
  std::vector<BaseNoise> base_noise;  // per-op noise of base, when estimated (empty: none)
  // The sides whose device time is unknown. With no device metric left to judge, the outcome is at best
  // NO DECISION (NoDecisionCause::device_time_missing), never a pass.
  DeviceTimeMissing device_time_missing;
  // The operating point device_time_missing is of ("" for the whole comparison): only that point's device
  // metrics count as left to judge (operating_points.hpp judge_points).
  std::string device_time_missing_point;
};

// Why NO DECISION, and the metric a headline names.
enum class NoDecisionCause {
  too_few_samples,          // no gating metric decided; at least one is INSUFFICIENT (or a single run)
  undecided_regression,     // an undecided gating metric (samples from >= k_processes_to_establish processes a
                            // side) whose estimate is worse than its threshold
  regression_not_excluded,  // an undecided gating metric whose estimate is within its bound but whose 90% CI
                            // reaches beyond it (the CI straddles the threshold): never a pass; samples_needed 0
  one_process,              // an undecided gating metric whose samples come from fewer processes a side, with an
                            // estimate worse than (1 + threshold)(1 + between-run allowance); samples_needed is
                            // then runs per side (k_processes_to_establish; k_min_runs_for_e2e_run_unit end to end)
  data_incomplete,          // a gating metric is INCONCLUSIVE because screened events carry too much of a side's
                            // time (VerdictReason::data_incomplete); samples_needed is 0
  head_data_incomplete,     // as data_incomplete, but only head's data are beyond the limit: evidence the PR controls
                            // fails closed, so the outcome is NOT COMPARABLE (exit 3, "re-profile head")
  device_time_missing,      // a side's device time is unknown (launches without device events, or device activity
                            // captured but no device time in the profiles) and no device metric is left to judge
                            // (DecideOptions::device_time_missing); `metric` is unused
};

// Relative tolerance of every comparison of a CI end against a bound (noise, threshold): an end must clear
// the bound by more than this, so no decision hinges on rounding (1.0000000000000002 does not clear 1).
inline constexpr double k_bound_tolerance = 1e-9;

struct NoDecision {
  NoDecisionCause cause = NoDecisionCause::too_few_samples;
  std::size_t metric = 0;          // index into Judgement::metrics of the metric named
  std::size_t samples_needed = 0;  // per side, from stats/power.hpp (samples_needed_per_side)
  std::string point;               // device_time_missing: the operating point ("" for the whole comparison)
  DeviceTimeMissing device;        // device_time_missing: which sides and why
};

// How the per-op family was chosen (issue 14 item 1): the material ops gate, the others do not.
struct MaterialSelection {
  double share = 0.01;              // rules.material_share
  std::size_t material = 0;         // per-op metrics (both sides present) in Family::per_op
  std::size_t not_material = 0;     // per-op metrics (both sides present) in Family::per_op_minor
  std::size_t sums = 0;             // replacement groups and class totals, in Family::per_op (always material)
  std::size_t replaced = 0;         // ops of a replacement group with both sides present, in Family::replaced
  std::size_t unattributed = 0;     // metrics of Family::unattributed with both sides present (not in the counts above)
  std::optional<double> step_us;    // base's median step time (rank-less or rank 0), the self CPU reference
  std::optional<double> device_us;  // base's device time per step (sum of the ops' base medians)
};

// The decision and what it rests on.
struct Decision {
  Outcome outcome = Outcome::pass;
  int exit_code = 0;                             // exit_code(outcome, strict)
  std::vector<MetricClass> gating_classes;       // the classes that decided
  std::map<Verdict, std::size_t> counts;         // per verdict, over all metrics shown
  std::map<Verdict, std::size_t> gating_counts;  // per verdict, over gating metrics only
  std::vector<std::string> regressed;            // names of gating metrics that regressed (not waived)
  // Set when outcome is no_decision, and when it is not_comparable because of head's data
  // (NoDecisionCause::head_data_incomplete) rather than differing conditions.
  std::optional<NoDecision> no_decision;
  MaterialSelection material;  // how the per-op family was chosen
};

// Every metric judged, and the decision.
struct Judgement {
  std::vector<MetricComparison> metrics;  // in the order of the measurements
  Decision decision;
};

// Judges every measurement, then decides. Families: "end-to-end", "device summary", "end-to-end (explains)"
// (metrics an e2e.json marks "gates": false), "per-op" (self CPU
// and device of the material ops together, with every replacement group and class total), "per-op (not
// material)", "per-op (replaced)" (the ops of a replacement group) and "step time", each corrected on
// its own with rules.correction (Holm by default); Benjamini–Hochberg q values are added for "worth a
// look". Only the per-op family's metrics gate among per-op classes (material ops, groups, totals).
// Verdict rules per metric, in order (t = threshold, f = floor for per-op metrics):
//   INCONCLUSIVE the metric holds events the screen excluded on a side whose excluded share of the metric's
//                kind is above rules.max_excluded_share (data_incomplete): never REGRESSED or IMPROVED from
//                incomplete data; other metrics keep their verdicts
//   STRUCTURAL   the op is on one side only, or (in_replacement_group) a member of a replacement group
//   INCONCLUSIVE step time where a side has a single run
//   REGRESSED    adjusted one-sided p <= alpha, ratio >= 1 + t (worse direction), |shift| >= f; per op, the
//                worse end of the ratio CI (widened by the timer resolution) beyond 1 + base's A/A noise (0
//                when not estimated; checked when either is known); self CPU only when both sides come from
//                more than one process; end-to-end ratio also >= 1 + between_run_allowance while a side has
//                fewer than k_min_runs_for_e2e_run_unit runs
//   STRUCTURAL   its median calls per step differ (and it did not regress)
//   IMPROVED     the same as REGRESSED in the better direction (ratio <= 1 - t)
//   EQUIVALENT   ratio CI inside [1 - t, 1 + t], or the shift CI inside ±f (strictly, for quantised data)
//   INCONCLUSIVE quantised data whose unwidened shift CI lies within one quantum (within_resolution)
//   INSUFFICIENT the smallest attainable p for (n_base, n_head) exceeds family_alpha(alpha, family size)
//   INCONCLUSIVE otherwise, with the reason that holds (VerdictReason)
//   then, for device time no op accounts for (MetricJudgement::unattributed): REGRESSED or IMPROVED becomes
//   INCONCLUSIVE (not_attributed, capped_from set); such metrics never gate (Family::unattributed)
// Outcome, in order: not_comparable (conditions differ), regression, no_decision (first for a gating
// metric with incomplete data: NoDecisionCause::data_incomplete), inconclusive
// (--strict and a gating metric undecided), pass. `measurements` is taken by value and moved into the
// judgement's metrics: pass it with std::move where it is not needed after (one copy of every metric less).
Judgement judge(std::vector<MetricMeasurement> measurements, const ConditionsDiff& conditions, const RuleSet& rules,
                const DecideOptions& options);

// compare_metrics (metric_comparison.hpp) built as MetricComparison values whose judgement fields are
// unset, for judge_in_place: every metric is made once, where the judgement keeps it (judge() moves each
// measurement into a comparison, so both vectors are held at once). Throws as compare_metrics does.
std::vector<MetricComparison> compare_metrics_in_place(const SideSamples& base, const SideSamples& head,
                                                       const RuleSet& rules);
std::vector<MetricComparison> compare_metrics_in_place(const SideView& base, const SideView& head,
                                                       const RuleSet& rules);

// judge() of metrics measured in place (compare_metrics_in_place): the same judgement, without a copy.
// Their judgement fields must be unset (as compare_metrics_in_place leaves them).
Judgement judge_in_place(std::vector<MetricComparison> measured, const ConditionsDiff& conditions, const RuleSet& rules,
                         const DecideOptions& options);

// DecideOptions::device_time_missing for two sides (profile/device_capture.hpp device_time_unknown of each).
DeviceTimeMissing device_time_missing(const SideSamples& base, const SideSamples& head);

// `ratio` (or one of its CI ends) as a worse ratio: > 1 means worse, whatever the metric's direction
// (Better); nullopt without a positive ratio.
std::optional<double> worse_ratio(const MetricComparison& m, std::optional<double> ratio);

// Samples per side (pairs, for a paired metric) at which `m`'s test can reach its needed p at all: the
// exact Mann–Whitney U's 1/C(2n, n), or the signed-rank test's 2^-n for paired runs (stats/power.hpp).
std::size_t samples_needed(const MetricComparison& m);

// `m`'s samples cannot reach its needed p, whatever their values: its test's smallest attainable p (paired
// runs: 2^-pairs; else 1/C(m+n, m)) is above m.needed_p.
bool needed_p_out_of_reach(const MetricComparison& m);

// The metric's samples come from at least k_processes_to_establish processes (runs) a side
// (docs/decision-rule.md): below that, steps of one process are not independent samples.
bool across_runs(const MetricComparison& m);

// The decision over metrics already judged (judge() ends with it; decision.cpp, docs/decision-rule.md):
// the replacement-group exception, who gates (the per-op family too when a gating end-to-end metric is
// undecided), the counts, the regressed gating metrics, the outcome in the order above and its exit code. Keeps
// decision.gating_classes and .material; `judgement.decision` must not hold counts yet. Used per operating point
// (operating_points.hpp), whose metrics were judged with every other point's.
void decide(Judgement& judgement, const ConditionsDiff& conditions, const DecideOptions& options);

}  // namespace neuron_gate
