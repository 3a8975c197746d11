#pragma once
// The report of `neuron-gate history` (compare/history.hpp) as Markdown and JSON. Commit subjects and
// metric names come from the repository and the profiles: every one goes through report/escape.hpp.

#include "compare/history.hpp"
#include "store/baseline_history.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// What was walked, for the headline.
struct HistoryScope {
  std::string baseline_ref;                   // "refs/neuron-gate/baselines/main"
  std::string along;                          // the revision whose first-parent history was walked ("HEAD")
  std::size_t commits = 0;                    // first-parent commits looked at
  HistoryWalkEnd end = HistoryWalkEnd::root;  // why the walk ended (shown when older baselines were not looked at)
  std::string last_commit;                    // the oldest commit looked at
};

// GFM: the headline (baselines found, metrics, the test and its family), the shifts in words (metric,
// size, from which commit, p and adjusted p), and a table newest first: commit, commits back, subject,
// one median per deciding metric; the baseline where a shift starts carries ▲ (worse) or ▼ (better)
// with its size. `baselines` are oldest first, parallel to every series' medians.
std::string render_history_markdown(const History& history, const std::vector<StoredBaselineEntry>& baselines,
                                    const HistoryScope& scope);

// JSON, schema "neuron-gate.history/1": baseline_ref, along, alpha, correction ("Holm"), min_shift,
// tests, baselines[] (newest first: commit, summary, position, time), series[] (name, class, scope,
// unit, better, medians newest first, null where missing), shifts[] (metric, class, commit, change,
// ratio, worse, before, after, statistic, p_value, adjusted_p, exact). Strings as valid UTF-8.
std::string render_history_json(const History& history, const std::vector<StoredBaselineEntry>& baselines,
                                const HistoryScope& scope);

}  // namespace neuron_gate
