#pragma once
// Step 5: findings as values. What the judgement means, read across metrics and sides: the
// interpretations (conclusions, each naming the measurements it rests on) and the open hypotheses
// (what is not established, each with how to test it), with their numbers (DESIGN.md section 6).
// Metrics are referred to by index into Judgement::metrics. report/prose.hpp turns these into text;
// nothing here is prose, and nothing in report/ decides any of it.

#include "compare/baseline_ancestry.hpp"
#include "compare/bimodal_steps.hpp"
#include "compare/calibration.hpp"
#include "compare/conditions.hpp"
#include "compare/judgement.hpp"
#include "compare/rule_set.hpp"
#include "compare/warm_up.hpp"
#include "compare/whole_run_shift.hpp"
#include "profile/read_side.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace neuron_gate {

// A condition whose values differ between the sides (conditions.hpp), as a finding names it.
struct ConditionDifference {
  std::string name, base, head;
  bool operator==(const ConditionDifference&) const = default;
};

// Which classes decide and how: "Gate: end-to-end metrics decide …, Holm correction at alpha 0.05."
struct GateFinding {
  std::vector<MetricClass> gating_classes;  // of Decision::gating_classes, those with metrics in the comparison
  bool have_end_to_end = false;             // gating (not explanatory) end-to-end metrics are present
  Correction correction = Correction::holm;
  double alpha = 0.05;
  MaterialSelection material;  // how many per-op metrics gate, and why the others do not
  bool per_op_gates = false;   // a per-op class is among the gating classes
};

// One replacement group (replacement_groups.hpp): the ops of one class and rank that appeared,
// disappeared or changed their calls per step, read together, and the metric of their summed time.
struct ReplacementFinding {
  std::size_t group = 0;                                   // metric index of the replacement-group metric
  std::vector<std::size_t> gone, appeared, calls_changed;  // metric indices of its ops, in metric order
  std::optional<std::size_t> largest_appeared;             // the new op with the largest head median
};

// Every replacement group, in metric order (self CPU before device time, per rank).
struct StructuralFinding {
  std::vector<ReplacementFinding> groups;
};

// One op's share of a step-time change: its median change in µs per step.
struct OpContribution {
  std::size_t metric = 0;
  double change_us = 0;
};

// Where the profiled step time went: the step-time metric that changed most (per rank, that rank's
// ops only) and the summed median per-op changes.
struct StepTimeFinding {
  std::size_t step = 0;                 // metric index of the step time
  double cpu_total_us = 0;              // summed median self CPU change per step
  double device_total_us = 0;           // summed median device change per step
  bool have_device = false;             // any device metric exists
  bool host_overhead = false;           // CPU up beyond the floor with device flat within it
  std::vector<OpContribution> largest;  // up to 5, |change| >= rules.floor_us, largest first
};

// Profiled step time and an un-profiled end-to-end latency move in opposite directions.
struct DisagreementFinding {
  std::size_t step = 0, latency = 0;  // metric indices
};

// Device time no op accounts for that changed beyond its threshold, significantly (its verdict was capped:
// unattributed.hpp), with the device class total of its rank, which holds that time and gates.
struct UnattributedFinding {
  std::size_t metric = 0;            // the unattributed row (MetricJudgement::capped_from set)
  std::optional<std::size_t> total;  // the device `all ops` of the same rank
};

// The conclusions, in the order a report lists them.
struct Interpretations {
  std::vector<ConditionDifference> not_comparable;  // non-empty: NOT COMPARABLE, and nothing else is set
  std::optional<GateFinding> gate;
  // Gating metrics REGRESSED or IMPROVED, and gating end-to-end metrics EQUIVALENT, in metric order.
  std::vector<std::size_t> gating_metrics;
  // Most ops moved by one factor (whole_run_shift.hpp): said once; the ops along it leave op_regressions.
  std::optional<WholeRunShiftFinding> whole_run_shift;
  std::vector<std::size_t> op_regressions;        // non-gating per-op REGRESSED, largest absolute change first,
                                                  // except the ops that moved along a whole-run shift
  std::vector<std::size_t> device_summary;        // explanatory end-to-end metrics REGRESSED or IMPROVED
  std::vector<UnattributedFinding> unattributed;  // capped unattributed rows, in metric order
  StructuralFinding structural;
  std::optional<StepTimeFinding> step_time;
  std::optional<DisagreementFinding> disagreement;
};

// Gating metrics INSUFFICIENT: no outcome of their sample sizes can pass the corrected alpha.
struct InsufficientFinding {
  std::size_t insufficient = 0, gating_total = 0;
  std::size_t base_samples = 0, head_samples = 0;  // of the last INSUFFICIENT gating metric
  std::size_t samples_needed = 0;                  // the most any of them needs, per side
};

// A side is one trace: its steps share one process.
struct SingleTraceFinding {
  std::size_t base_traces = 0, head_traces = 0;
};

// Data problems of one side's traces.
struct DataProblemFinding {
  std::string side;  // "base" or "head"
  // Op -> most negative self time of one event over the side's traces, in ns, by op name.
  std::vector<std::pair<std::string, Nanoseconds>> negative_self_time;
  std::int64_t unfinished_events = 0;         // dur -1, excluded
  std::int64_t negative_duration_events = 0;  // excluded
  std::vector<DataProblem> listed;            // SideSamples::data_problems: malformed events by kind, cut
                                              // names, invalid UTF-8 (formats/data_problems.hpp)
};

// Gating metrics whose threshold sits below base's own A/A noise (calibration.hpp).
struct NoiseFinding {
  struct Item {
    std::size_t metric = 0;  // metric index
    double noise_floor = 0;  // 95th percentile of |ratio - 1| over the splits
  };
  std::vector<Item> below;
  std::size_t splits = 0;
  std::size_t units = 0;  // runs or traces split
  SplitBy split_by = SplitBy::runs;
  std::uint64_t seed = 0;
};

// Why no A/A noise estimate was made for the compare: base has too few runs to split. The floor and
// threshold decide alone (issue 22, item 13).
struct NoiseNotEstimated {
  std::size_t runs = 0;    // base's runs
  std::size_t needed = 0;  // runs needed to split
};

// What is not established, in the order a report lists it.
struct OpenHypotheses {
  // Base's commit is not an ancestor of head's (baseline_ancestry.hpp); set by the caller, which has the
  // repositories (not under --no-git).
  std::optional<Ancestry> baseline_not_ancestor;
  std::vector<ConditionDifference> accepted;  // differences accepted with --allow-mismatch or rules
  std::optional<InsufficientFinding> insufficient;
  std::vector<std::size_t> inconclusive;  // INCONCLUSIVE gating or step-time metrics
  std::optional<SingleTraceFinding> single_trace;
  std::vector<std::size_t> worth_a_look;                // MetricJudgement::worth_a_look
  std::vector<std::size_t> device_regressions;          // device-time metrics REGRESSED, except those along a shift
  std::optional<WholeRunShiftFinding> whole_run_shift;  // the same as Interpretations', with how to test it
  std::vector<WarmUpFinding> warm_up;                   // base, then head; base's first when screened (warm_up.hpp)
  std::vector<BimodalStepsFinding> bimodal_steps;       // base, then head; sides whose step times have two modes
  bool inputs_unverified = false;  // a trace exists, and no shapes in traces or tables nor inputs in both manifests
  std::vector<DataProblemFinding> data_problems;         // base, then head; only sides with a problem
  std::optional<NoiseFinding> noise;                     // set by the caller from noise_finding()
  std::optional<NoiseNotEstimated> noise_not_estimated;  // set by the caller
};

struct Findings {
  Interpretations interpretations;
  OpenHypotheses open_hypotheses;
};

// Reads the judgement across metrics and sides. `rules` are the rules that were applied.
Findings find_findings(const SideSamples& base, const SideSamples& head, const ConditionsDiff& conditions,
                       const Judgement& judgement, const RuleSet& rules);

// The conclusions alone (find_findings' interpretations).
Interpretations interpret(const ConditionsDiff& conditions, const Judgement& judgement, const RuleSet& rules);

// The open hypotheses alone, without the noise finding (find_findings' open_hypotheses).
OpenHypotheses hypothesize(const SideSamples& base, const SideSamples& head, const ConditionsDiff& conditions,
                           const Judgement& judgement);

// Puts the warm-up screen's finding (leave_out_warm_up_traces) first in found.warm_up, in place of the
// first-trace-of-run patterns read from the screened sides; nothing when `screen` is nullopt.
void add_warm_up_screen(OpenHypotheses& found, const std::optional<WarmUpFinding>& screen);

// The data problems of one side's traces (negative self times merged by op, most negative kept).
DataProblemFinding data_problems(const SideSamples& side);

// The gating metrics of `metrics` whose threshold is below their noise floor in `base_calibration`;
// nullopt when there are none.
std::optional<NoiseFinding> noise_finding(const Calibration& base_calibration,
                                          const std::vector<MetricComparison>& metrics);

// The absolute change of a metric's median, head - base, in its unit; for an op on one side only the
// median of that side (negative when it disappears); nullopt when neither median exists.
std::optional<double> median_change(const MetricMeasurement& m);

}  // namespace neuron_gate
