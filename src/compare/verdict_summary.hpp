#pragma once
// Step 5, for the top of every report (issue 16 item 1): which metrics decided the outcome and which
// measured changes explain them, chosen from the judgement alone. Renderers show these rows first and
// fold everything else; nothing here is prose.

#include "compare/conditions.hpp"
#include "compare/judgement.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Most rows the summary table shows (deciding metrics first, then explaining ones).
inline constexpr std::size_t k_summary_rows = 8;

// Why a row is in the summary.
enum class SummaryRole {
  deciding,     // a gating metric the outcome rests on (regressed, waived, undecided or, on a pass, the gate)
  replacement,  // a replacement group (replacement_groups.hpp): the summed ops that left, appeared or changed calls
  structural,   // an op that appeared, disappeared or changed its calls per step
  top_change,   // one of the largest per-op or step-time changes (by |head - base| per step)
};

// The role as the JSON report spells it: "deciding", "replacement", "structural", "top_change".
const char* summary_role_key(SummaryRole role);

struct SummaryRow {
  std::size_t metric = 0;  // index into Judgement::metrics
  SummaryRole role = SummaryRole::deciding;
};

struct VerdictSummary {
  // The first deciding metric is the one the headline names; empty for NOT COMPARABLE, or when nothing gated.
  std::vector<std::size_t> deciding;        // metric indices, most changed (worse ratio) first
  std::vector<SummaryRow> rows;             // at most k_summary_rows: deciding, then structural, then top changes
  std::size_t waived = 0;                   // gating regressions covered by a waiver
  std::optional<std::string> waived_until;  // the earliest expiry among them, YYYY-MM-DD
  std::size_t conditions = 0, conditions_matched = 0,
              conditions_accepted = 0;             // rows; matching and verified; differing but accepted
  std::vector<std::string> conditions_unverified;  // rows counted as matching but not checked (verified false)
  std::vector<MetricClass> gating_classes;         // Decision::gating_classes that have a gating metric here
  bool pass_per_op = false;  // pass decided by per-op metrics: `deciding` are then the largest changes, none regressed
  // Samples per side of the first deciding metric (0 when none): stated once in the context line.
  std::size_t base_samples = 0, head_samples = 0;
};

// Chooses the summary. Deciding metrics by outcome: regression - the gating metrics REGRESSED and not
// waived; pass - waived regressions, else the gating metrics of the first gating class (at most 3, the
// most changed); no decision - the metric NoDecision names; inconclusive - the undecided gating metrics;
// not comparable - none. Rows that follow: replacement groups, STRUCTURAL ops, then the largest
// |head - base| changes among ops and step time (class totals aside); rows where both medians are 0 (or
// absent) are never chosen.
VerdictSummary summarize_verdict(const Judgement& judgement, const ConditionsDiff& conditions,
                                 std::size_t max_rows = k_summary_rows);

}  // namespace neuron_gate
