#pragma once
// Step 5: verdicts. Groups metrics into families, corrects for multiple comparisons, gives each metric
// its verdict and the comparison its decision under the rules (DESIGN.md section 4). The decision is
// always computed from the per-metric verdicts, never written separately.

#include "compare/conditions.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"

#include <map>
#include <string>
#include <vector>

namespace neuron_gate {

// Outcome of a comparison; the value is the process exit code.
enum class Outcome { pass = 0, regression = 1, not_comparable = 3, inconclusive = 4 };

// Options of decide() that come from the command line.
struct DecideOptions {
  bool strict = false;  // an undecided gating metric (INCONCLUSIVE, INSUFFICIENT) gives Outcome::inconclusive
  std::string today;    // YYYY-MM-DD, for waiver expiry ("" = no waiver applies)
};

// The decision and what it rests on.
struct Decision {
  Outcome outcome = Outcome::pass;
  std::vector<MetricClass> gating_classes;   // the classes that decided
  std::map<Verdict, std::size_t> counts;     // per verdict, over all metrics shown
  std::map<Verdict, std::size_t> gating_counts;  // per verdict, over gating metrics only
  std::vector<std::string> regressed;        // names of gating metrics that regressed (not waived)
};

// Fills the family fields, adjusted p values and verdict of every metric, then decides. Families:
// "end-to-end", "per-op" (self CPU and device together) and "step time", each corrected on its own
// with rules.correction (Holm by default); Benjamini–Hochberg q values are added for "worth a look".
// Verdict rules per metric, in order (t = threshold, f = floor for per-op metrics):
//   REGRESSED    adjusted one-sided p <= alpha, ratio >= 1 + t (worse direction), |shift| >= f
//   IMPROVED     the same in the better direction (ratio <= 1 - t)
//   STRUCTURAL   the op appears, disappears or its median calls per step differ (and it did not regress)
//   EQUIVALENT   ratio CI inside [1 - t, 1 + t], or the shift CI inside ±f
//   INSUFFICIENT the smallest attainable p for (n_base, n_head) exceeds alpha / family size
//   INCONCLUSIVE otherwise
Decision decide(std::vector<MetricComparison>& metrics, const ConditionsDiff& conditions, const RuleSet& rules,
                const DecideOptions& options);

} // namespace neuron_gate
