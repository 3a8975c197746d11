// `neuron-gate history`: stored baselines along first-parent history (store/baseline_history.hpp), their
// deciding metrics and change points (compare/history.hpp), rendered (report/history_report.hpp).
#include "commands/commands.hpp"
#include "commands/compare_steps.hpp"
#include "compare/history.hpp"
#include "input/git_source.hpp"
#include "report/history_report.hpp"
#include "store/baseline_history.hpp"
#include "store/digest.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

namespace neuron_gate {

int run_history(const HistoryOptions& options, std::ostream& out) {
  if (!(options.min_shift >= 0 && options.min_shift < 1)) {
    throw UsageError("--min-shift must be a fraction in [0, 1), e.g. 0.01 for 1%");
  }
  if (options.limit < 1) {
    throw UsageError("--limit must be at least 1");
  }
  for (const std::string& path : {options.markdown_path, options.json_path}) {
    if (!path.empty()) {
      check_writable_destination(path);
    }
  }
  const RuleSet rules = applied_rules(options.rules_path, options.unit);
  StoredBaselineWalk walk =
      stored_baselines_along(options.repository, options.baseline_ref, options.along, options.limit);
  std::vector<StoredBaselineEntry> baselines = std::move(walk.entries);
  std::reverse(baselines.begin(), baselines.end());  // oldest first
  std::vector<SideSamples> sides;
  for (const auto& baseline : baselines) {
    const auto source = open_git_blob(baseline.blob, baseline.name);
    sides.push_back(read_digest(*source));
  }
  const History history = analyse_history(sides, rules, options.min_shift);
  const HistoryScope scope{options.baseline_ref, options.along, walk.commits, walk.end, walk.last_commit};
  if (!options.json_path.empty()) {
    write_file_atomically(options.json_path, render_history_json(history, baselines, scope));
  }
  const std::string markdown = render_history_markdown(history, baselines, scope);
  if (!options.markdown_path.empty()) {
    write_file_atomically(options.markdown_path, markdown);
  } else {
    write_stream(out, markdown, "stdout");
  }
  return 0;
}

}  // namespace neuron_gate
