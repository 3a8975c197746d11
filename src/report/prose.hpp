#pragma once
// Stage 6 wording: the one place where judgement values (verdict reasons, outcomes, findings) become
// report text, with every number through report/number_format.hpp. Renderers draw this text; they
// never decide anything themselves.

#include "compare/findings.hpp"
#include "compare/judgement.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// The verdict word of an outcome: "PASS", "REGRESSION", "NOT COMPARABLE", "INCONCLUSIVE", "NO DECISION".
const char* outcome_name(Outcome outcome);

// The key of an outcome in the JSON report and the Action's `verdict` output: "pass", "regression",
// "not-comparable", "inconclusive", "no-decision".
const char* outcome_key(Outcome outcome);

// The emoji a headline starts with: ✅ pass, ❌ regression, ⛔ not comparable, ⚠️ inconclusive and
// no decision.
const char* outcome_emoji(Outcome outcome);

// One line on why `m` got its verdict (the text of m.why with its numbers), e.g. "worse by 12.3%
// (threshold 5%), adjusted p within alpha".
std::string verdict_reason_text(const MetricComparison& m);

// True when `m`'s Hodges–Lehmann ratio points one way (> 1 or < 1) and its two medians the other, e.g.
// step time +9.2% with medians 71.0 µs → 69.5 µs (issue 13 item 4): a bare change next to the medians
// would contradict itself.
bool ratio_against_medians(const MetricComparison& m);

// The note every report shows where ratio_against_medians(m): "the change +9.2% is the Hodges–Lehmann
// estimate over all base × head pairs of samples and moves the other way from the two medians shown
// (71.0 µs → 69.5 µs): the samples overlap, and the medians alone do not show the change". Prose.
std::string medians_note(const MetricComparison& m);

// The headline: emoji, outcome and what it rests on, e.g. "❌ REGRESSION · 1 regressed · 30 equivalent",
// "⛔ NOT COMPARABLE · 2 conditions differ", or for NO DECISION the metric, its change and the samples
// needed: "⚠️ NO DECISION · `latency` (end-to-end) +7.0%: too few samples to decide; needs 6 per side
// (has 2 / 2) · 1 insufficient (too few samples to decide)".
// " · 2 regressed · 5 inconclusive …": the decision's metrics per verdict, in a fixed order, zeros left
// out; INSUFFICIENT counts are named `insufficient`.
std::string counts_text(const Decision& decision, const char* insufficient);

// `with_counts` false leaves out the " · N regressed …" counts (headline_text puts them in the context line).
std::string verdict_line(const Judgement& judgement, const ConditionsDiff& conditions, bool with_counts = true);

// The interpretations as report lines, one per finding, in the order of Interpretations' fields;
// `metrics` are the judged metrics the findings index.
std::vector<std::string> interpretation_lines(const Interpretations& found,
                                              const std::vector<MetricComparison>& metrics);

// The open hypotheses as report lines, one per finding (data problems: one per kind and side).
std::vector<std::string> open_hypothesis_lines(const OpenHypotheses& found,
                                               const std::vector<MetricComparison>& metrics);

// The ops of a replacement group (m.scope == MetricScope::replacement_group) as prose, names as
// prose_code: "no longer run: `a`, `b`; new: `c`; calls per step changed: `d`" (up to 12 names per
// list, then "and N more"); "" for any other metric.
std::string replacement_members_text(const MetricComparison& m);

// A metric's name as an interpretation names it: "`aten::mm` (self CPU)", "the replacement group
// `replaced ops` (self CPU)", "`all ops` (self CPU, all ops summed)".
std::string metric_what(const MetricComparison& m);

// "`aten::div_` (down to -10.0 µs)" per op with a negative self time, in op order.
std::vector<std::string> negative_self_time_texts(const DataProblemFinding& found);

}  // namespace neuron_gate
