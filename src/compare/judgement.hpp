#pragma once
// Step 5: the judgement. Groups measured metrics into families, corrects for multiple comparisons,
// gives each metric its verdict with a typed reason, and the comparison its outcome and exit code under
// the rules (DESIGN.md section 4). The outcome is always computed from the per-metric verdicts, never
// written separately. Nothing here is prose: report/prose.hpp turns reasons and outcomes into text.

#include "compare/conditions.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Per-metric verdicts (DESIGN.md section 4).
enum class Verdict { regressed, improved, equivalent, inconclusive, insufficient, structural };

// "REGRESSED", "IMPROVED", "EQUIVALENT", "INCONCLUSIVE", "INSUFFICIENT", "STRUCTURAL".
const char* verdict_name(Verdict verdict);

// The families corrected for multiple comparisons on their own.
enum class Family {
  end_to_end,      // application end-to-end metrics (and device total_time where it decides)
  device_summary,  // explanatory Neuron device summary measures
  per_op,          // self CPU and device time of every op together
  step_time,       // profiled step time (per rank)
};

// "end-to-end", "device summary", "per-op", "step time".
const char* family_name(Family family);

// Why a metric got its verdict. The numbers each reason rests on are in the MetricComparison
// (ratio, CI, shift, adjusted p, threshold, floor_us, needed_p, samples_needed, calls).
enum class VerdictReason {
  op_disappears,           // STRUCTURAL: present in base only
  op_appears,              // STRUCTURAL: present in head only
  calls_changed,           // STRUCTURAL: median calls per step differ (base_calls -> head_calls)
  worse_beyond_threshold,  // REGRESSED: adjusted p_worse <= alpha, worse ratio >= 1 + t, |shift| >= floor
  better_beyond_threshold, // IMPROVED: the same in the better direction
  ci_within_threshold,     // EQUIVALENT: ratio CI inside [1 - t, 1 + t]
  ci_within_floor,         // EQUIVALENT: shift CI inside ±floor_us (per op)
  too_few_samples,         // INSUFFICIENT: the smallest attainable p exceeds needed_p (alpha / family size)
  single_run,              // INCONCLUSIVE: step time where a side has one run (trace)
  threshold_straddled,     // INCONCLUSIVE: ratio CI straddles the threshold, adjusted p not within alpha
  significant_size_open,   // INCONCLUSIVE: adjusted p within alpha, but the ratio CI straddles the threshold
  adjusted_p_not_reached,  // INCONCLUSIVE: ratio CI wholly beyond the threshold, adjusted p above alpha
  below_floor,             // INCONCLUSIVE: beyond the threshold with adjusted p within alpha, |shift| < floor
  no_interval,             // INCONCLUSIVE: a ratio but no 95% CI of it at these sample sizes
  no_ratio,                // INCONCLUSIVE: no ratio (base median 0) and the change not within the floor
};

// The one per-test level of a family: the p a single metric must reach when it is tested alone against
// the whole family, alpha / family_size (Holm's first step, and Bonferroni's every step; a family of
// 0 counts as 1). Used for INSUFFICIENT (can the sample sizes reach it at all?), the minimum detectable
// effect, the samples needed and calibration's "unreachable".
double family_alpha(double alpha, std::size_t family_size);

// What the judgement adds to a measurement.
struct MetricJudgement {
  Family family = Family::per_op;
  std::size_t family_size = 0;   // members with both sides present
  bool gating = false;           // the metric's class decides pass/fail
  std::optional<double> p_worse_adjusted, p_better_adjusted;  // Holm (or the rules' correction)
  std::optional<double> q_value;                              // Benjamini–Hochberg of p_two_sided
  double threshold = 0.05;       // relative threshold t of the rules for this metric
  double floor_us = 0.0;         // absolute floor in µs per step (per-op metrics; 0 otherwise)
  double alpha = 0.05;           // the rules' alpha
  double needed_p = 0.05;        // family_alpha(alpha, family_size)
  // Adjusted one-sided p within alpha, in the worse / better direction. Renderers and findings read
  // these, never alpha.
  bool significant_worse = false, significant_better = false;
  // Not REGRESSED/IMPROVED, not end-to-end, q <= alpha and |ratio - 1| >= threshold: worth a look.
  bool worth_a_look = false;
  Verdict verdict = Verdict::inconclusive;
  VerdictReason why = VerdictReason::threshold_straddled;
  std::optional<double> minimum_detectable_ratio;  // at the observed noise, needed_p, power 0.8
  std::optional<std::size_t> samples_needed;       // per side, when INSUFFICIENT or undecided for lack of samples
  std::optional<std::string> waiver;               // reason of a waiver that covers a regression
};

// A measured and judged metric: what every renderer draws from.
struct MetricComparison : MetricMeasurement, MetricJudgement {
  // `why` as one line of report text, written by build_report (report/prose.hpp); empty before.
  std::string reason;
};

// Outcome of a comparison (DESIGN.md section 4; README "Exit codes").
enum class Outcome {
  pass,            // no gating metric regressed, and the gate could decide
  regression,      // a gating metric regressed (not waived)
  not_comparable,  // the conditions held fixed differ
  inconclusive,    // --strict and a gating metric is undecided (INCONCLUSIVE, INSUFFICIENT)
  no_decision,     // see no_decision() in judgement.cpp: too few samples, or a change beyond the threshold
                   // that the adjusted p cannot confirm
};

// The process exit code of an outcome: pass 0, regression 1, not_comparable 3, inconclusive 4,
// no_decision 0 (4 under --strict).
int exit_code(Outcome outcome, bool strict);

// Options of judge() that come from the command line.
struct DecideOptions {
  bool strict = false;  // an undecided gating metric (INCONCLUSIVE, INSUFFICIENT) gives exit code 4
  std::string today;    // YYYY-MM-DD, for waiver expiry ("" = no waiver applies)
};

// Why NO DECISION, and the metric a headline names.
enum class NoDecisionCause {
  too_few_samples,        // no gating metric decided; at least one is INSUFFICIENT (or a single run)
  adjusted_p_not_reached, // a gating metric's ratio CI lies wholly beyond its threshold (worse side),
                          // but its adjusted p does not reach alpha
};

struct NoDecision {
  NoDecisionCause cause = NoDecisionCause::too_few_samples;
  std::size_t metric = 0;             // index into Judgement::metrics of the metric named
  std::size_t samples_needed = 0;     // per side, from stats/power.hpp (samples_needed_per_side)
};

// The decision and what it rests on.
struct Decision {
  Outcome outcome = Outcome::pass;
  int exit_code = 0;                          // exit_code(outcome, strict)
  std::vector<MetricClass> gating_classes;    // the classes that decided
  std::map<Verdict, std::size_t> counts;      // per verdict, over all metrics shown
  std::map<Verdict, std::size_t> gating_counts;  // per verdict, over gating metrics only
  std::vector<std::string> regressed;         // names of gating metrics that regressed (not waived)
  std::optional<NoDecision> no_decision;      // set when outcome is no_decision
};

// Every metric judged, and the decision.
struct Judgement {
  std::vector<MetricComparison> metrics;  // in the order of the measurements
  Decision decision;
};

// Judges every measurement, then decides. Families: "end-to-end", "device summary", "per-op" (self CPU
// and device together) and "step time", each corrected on its own with rules.correction (Holm by
// default); Benjamini–Hochberg q values are added for "worth a look".
// Verdict rules per metric, in order (t = threshold, f = floor for per-op metrics):
//   STRUCTURAL   the op is on one side only
//   INCONCLUSIVE step time where a side has a single run
//   REGRESSED    adjusted one-sided p <= alpha, ratio >= 1 + t (worse direction), |shift| >= f
//   STRUCTURAL   its median calls per step differ (and it did not regress)
//   IMPROVED     the same as REGRESSED in the better direction (ratio <= 1 - t)
//   EQUIVALENT   ratio CI inside [1 - t, 1 + t], or the shift CI inside ±f
//   INSUFFICIENT the smallest attainable p for (n_base, n_head) exceeds family_alpha(alpha, family size)
//   INCONCLUSIVE otherwise, with the reason that holds (VerdictReason)
// Outcome, in order: not_comparable (conditions differ), regression, no_decision, inconclusive
// (--strict and a gating metric undecided), pass.
Judgement judge(const std::vector<MetricMeasurement>& measurements, const ConditionsDiff& conditions,
                const RuleSet& rules, const DecideOptions& options);

} // namespace neuron_gate
