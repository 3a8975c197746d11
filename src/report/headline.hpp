#pragma once
// Stage 6 wording of the top of every report (issue 16 item 1): the headline that names what decided
// and by how much, one line of context, and the rows of the short summary table, from the
// VerdictSummary that compare/ chose. Text is prose (escape.hpp): each renderer escapes it.

#include "compare/verdict_summary.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// The headline. Regression: "❌ REGRESSION: `latency` +42.5% (90% CI +42.2…+42.8%, threshold 5%)",
// with " and 2 more" when more gating metrics regressed. Pass: "✅ PASS · `latency` +0.3% (90% CI
// -0.4…+1.0%, within ±5%)", or "✅ PASS · 1 regression waived until 2026-12-31" when a waiver covered
// one. NO DECISION, INCONCLUSIVE and NOT COMPARABLE: verdict_line() (prose.hpp).
// `point`, when given, is an operating point's label named after the outcome word ("❌ REGRESSION at
// `16x2048-float32`: ..."; docs/user-guide.md "Operating points").
std::string headline_text(const Judgement& judgement, const ConditionsDiff& conditions, const VerdictSummary& summary,
                          const std::string& point = "");

// The one line of context under it: sides, samples per side (once), conditions matched, the class that
// gated and the verdict counts, e.g. "base `A` → head `Areg` · 200 samples per side · 7 of 7 conditions
// match · gated by end-to-end · 1 regressed · 10 structural".
std::string context_text(const Judgement& judgement, const VerdictSummary& summary, const std::string& base_spec,
                         const std::string& head_spec);

// One row of the summary table, as prose.
struct SummaryLine {
  SummaryRole role = SummaryRole::deciding;
  std::size_t metric = 0;  // index into the metrics
  std::string name;        // "`latency`", "profiled step time", "`aten::mm` self CPU"
  std::string change;      // signed %: "+42.5%", "new", "removed", "–"
  std::string base, head;  // medians in units chosen per value ("11.0 µs"); "–" when absent
  std::string note;        // "regressed", "waived until 2026-12-31", "calls 1 → 3", "inconclusive"
  // prose.hpp medians_note() where the change points against the two medians (the change then ends in
  // "†" and each renderer puts "† " + this under the table), else "".
  std::string medians_note;
};

// The marker a summary change carries when it points against its medians (SummaryLine::medians_note).
inline constexpr const char* k_medians_mark = "†";

// The summary's rows (VerdictSummary::rows), in order. Beside an `outcome` other than REGRESSION, a
// regressed row that does not gate notes "regressed, not gating".
std::vector<SummaryLine> summary_lines(const std::vector<MetricComparison>& metrics, const VerdictSummary& summary,
                                       Outcome outcome);

// A metric's signed % change head/base: the Hodges–Lehmann ratio when there is one, else the ratio of
// the medians; "new" / "removed" for an op on one side only; "–" when neither exists.
std::string signed_change_text(const MetricComparison& m);

}  // namespace neuron_gate
