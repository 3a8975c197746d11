#pragma once
// Step 6: the Report value every renderer draws from. It keeps measurements (the metrics), their
// interpretations under the rules, and open hypotheses apart (DESIGN.md section 6).

#include "compare/conditions.hpp"
#include "compare/findings.hpp"
#include "compare/judgement.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"
#include "report/headline.hpp"
#include "report/prose.hpp"
#include "report/provenance.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// Facts about one side that the report shows beside the measurements.
struct SideFacts {
  std::size_t traces = 0;
  std::size_t steps = 0;                        // sample steps (after drop_first_steps)
  std::int64_t events = 0;                      // ph "X" events read
  std::int64_t outside_step_events = 0;         // op calls that started in no step: counted, not compared
  std::int64_t negative_duration_events = 0;    // excluded
  std::int64_t unfinished_events = 0;           // dur -1, excluded
  std::vector<std::string> negative_self_time;  // "aten::div_ (-10 µs)" entries
  std::vector<DataProblem> data_problems;       // SideSamples::data_problems (malformed events, cut names, ...)
  Nanoseconds device_ns = 0;                    // device time of the sample steps (every device event)
  Nanoseconds attributed_device_ns = 0;         // the part attributed to an op (device_attribution.hpp)
  ScreenedTime screened{};                      // SideSamples::screened: time kept and excluded by the screen
  bool operator==(const SideFacts&) const = default;
};

// "; device time 603.6 ms, 94.5% attributed to an op" for a side with device time, "" without: the
// share shown beside each side's facts in every report.
std::string device_share_text(const SideFacts& facts);

// "70 traces, 70 sample steps, 2040 events; 210 op calls outside every step (counted, not compared)" and
// the device share: one side's facts as every report's provenance states them (plain text, numbers only).
std::string side_facts_text(const SideFacts& facts);

// Everything a rendered report shows.
struct Report {
  std::string
      verdict_line;  // headline_text(): e.g. "❌ REGRESSION: `latency` +42.5% (90% CI +42.2…+42.8%, threshold 5%)"
  std::string context_line;                // context_text(): sides, samples per side, conditions, gating class, counts
  VerdictSummary summary;                  // what decided and what explains it (compare/verdict_summary.hpp)
  std::vector<SummaryLine> summary_lines;  // summary.rows as prose, for the top table
  Outcome outcome = Outcome::pass;         // decision.outcome
  Decision decision;                       // its exit_code is the process's
  ConditionsDiff conditions;
  std::vector<MetricComparison> metrics;
  std::vector<std::string> interpretations;  // one conclusion per line, naming the measurements it rests on
  std::vector<std::string> open_hypotheses;  // what is not established, each with how to test it
  SideFacts base_facts, head_facts;
  RuleSet rules;
  Provenance provenance;
  InputsOverlap inputs_overlap;  // inputs_overlap(provenance): identical inputs or head inside base
  std::string inputs_line;       // inputs_overlap_text(): prose every renderer shows under the context line; ""
};

// Builds the report from the judgement and its findings (compare/findings.hpp), all worded by
// report/prose.hpp: the verdict line, each metric's reason, the interpretations and the open
// hypotheses; and the side facts and read details of the provenance. `rules` are the rules that
// were applied (after command-line overrides such as --unit); the report shows them as its rules.
Report build_report(const SideSamples& base, const SideSamples& head, ConditionsDiff conditions, Judgement judgement,
                    const Findings& findings, RuleSet rules, Provenance provenance);

// The facts of one side the report shows (sample steps: all of each trace's but the first `drop_first`).
SideFacts side_facts(const SideSamples& side, std::size_t drop_first);

// build_report with each side's facts taken before (side_facts with the rules' drop_first_steps): for
// sides whose per-op samples were released once measured (release_op_samples, compare/side_view.hpp).
Report build_report(const SideSamples& base, const SideSamples& head, SideFacts base_facts, SideFacts head_facts,
                    ConditionsDiff conditions, Judgement judgement, const Findings& findings, RuleSet rules,
                    Provenance provenance);

// NOT COMPARABLE because conditions held fixed differ: no metric is judged or shown. False for every other
// outcome, and for NOT COMPARABLE from head's incomplete data (NoDecisionCause::head_data_incomplete), whose
// metrics are shown.
bool conditions_differ(const Report& report);

// |head median - base median| in the metric's unit (an op on one side only: that side's median); 0 when
// neither median exists. The order of ranked_metrics, the chart's bars and the HTML's distributions.
double absolute_change(const MetricComparison& m);

// The measurement tables' note on paired end-to-end metrics (docs/decision-rule.md "Paired runs"): their
// change is the Hodges–Lehmann estimate of the per-pair ratios and their p the Wilcoxon signed-rank test's,
// not the pooled pairwise ratios and Mann–Whitney U the tables' legend names; "" when no metric is paired.
std::string paired_note(const Report& report);

// Metrics of one class, most changed first: by |head median - base median| (absolute time per step).
std::vector<const MetricComparison*> ranked_metrics(const Report& report, MetricClass metric_class);

}  // namespace neuron_gate
