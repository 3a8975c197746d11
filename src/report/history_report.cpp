#include "report/history_report.hpp"

#include "compare/metric_comparison.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace neuron_gate {
namespace {

// "latency", "step time", "all ops (self CPU)": a series' name with its class where the name alone is
// ambiguous (the class totals).
std::string series_label(const HistorySeries& series) {
  if (series.metric_class == MetricClass::end_to_end || series.metric_class == MetricClass::step_time) {
    return series.name;
  }
  return series.name + " (" + metric_class_label(series.metric_class) + ")";
}

std::string short_commit(const std::string& commit) {
  return commit.substr(0, 10);
}

const HistoryShift* shift_at(const History& history, std::size_t series, std::size_t baseline) {
  for (const auto& shift : history.shifts) {
    if (shift.series == series && shift.baseline == baseline) {
      return &shift;
    }
  }
  return nullptr;
}

std::string shift_words(const History& history, const HistoryShift& shift,
                        const std::vector<StoredBaselineEntry>& baselines) {
  const HistorySeries& series = history.series[shift.series];
  const StoredBaselineEntry& at = baselines[shift.baseline];
  std::ostringstream out;
  out << "- " << markdown_spans(series_label(series), false) << " " << format_change(shift.ratio) << " ("
      << (shift.worse ? "worse" : "better") << ") from " << markdown_code(short_commit(at.commit), false) << " "
      << markdown_spans(at.summary, false) << ": " << shift.before << " baselines before, " << shift.after
      << " from it on; Pettitt p = " << format_p(shift.p_value) << (shift.exact ? "" : " (Monte Carlo)")
      << ", adjusted " << format_p(shift.adjusted_p) << "\n";
  return out.str();
}

// A sentence when the walk ended before the history did (older baselines were not looked at), else "".
std::string walk_end_words(const HistoryScope& scope) {
  const std::string at = markdown_code(scope.last_commit.substr(0, 12), false);
  switch (scope.end) {
  case HistoryWalkEnd::shallow:
    return "The walk ended at " + at +
           ", the boundary of a shallow clone: older baselines were not looked at "
           "(fetch more history).\n";
  case HistoryWalkEnd::commit_limit:
    return "The walk ended at " + at + " after " + std::to_string(scope.commits) +
           " commits, the most it looks at: older baselines were not looked at.\n";
  case HistoryWalkEnd::root:
  case HistoryWalkEnd::baseline_limit:
    break;
  }
  return "";
}

// The JSON name of why the walk ended.
const char* walk_end_key(HistoryWalkEnd end) {
  switch (end) {
  case HistoryWalkEnd::root:
    return "first commit";
  case HistoryWalkEnd::baseline_limit:
    return "baseline limit";
  case HistoryWalkEnd::commit_limit:
    return "commit limit";
  case HistoryWalkEnd::shallow:
    return "shallow clone";
  }
  return "first commit";
}

}  // namespace

std::string render_history_markdown(const History& history, const std::vector<StoredBaselineEntry>& baselines,
                                    const HistoryScope& scope) {
  std::ostringstream out;
  out << "## neuron-gate history: " << markdown_code(scope.baseline_ref, false) << " along "
      << markdown_code(scope.along, false) << "\n\n";
  if (baselines.empty()) {
    out << "No stored baseline was found along the first-parent history of " << markdown_code(scope.along, false)
        << " (" << scope.commits << (scope.commits == 1 ? " commit" : " commits") << " looked at).\n"
        << walk_end_words(scope);
    return out.str();
  }
  out << baselines.size() << " stored baseline" << (baselines.size() == 1 ? "" : "s") << " over the last "
      << baselines.front().position + 1 << " first-parent commits. ";
  if (history.tests == 0) {
    out << "No deciding metric has the 3 or more baselines with differing medians that Pettitt's test needs, "
        << "so no shift can be marked.\n"
        << walk_end_words(scope) << "\n";
  } else {
    out << "A shift is a change point (Pettitt's test over one median per baseline) with p <= "
        << format_number(history.alpha) << " after Holm over " << history.tests << " metric"
        << (history.tests == 1 ? "" : "s") << ", marked from a size of " << format_percent(history.min_shift) << ".\n"
        << walk_end_words(scope) << "\n";
    if (history.shifts.empty()) {
      out << "**No shift** in the deciding metrics.\n\n";
    } else {
      out << "**" << history.shifts.size() << " shift" << (history.shifts.size() == 1 ? "" : "s") << ":**\n\n";
      for (const auto& shift : history.shifts) {
        out << shift_words(history, shift, baselines);
      }
      out << "\n";
    }
  }
  out << "| commit | back | subject |";
  for (const auto& series : history.series) {
    out << " " << markdown_spans(series_label(series)) << " |";
  }
  out << "\n|---|--:|---|";
  for (std::size_t s = 0; s < history.series.size(); ++s) {
    out << "--:|";
  }
  out << "\n";
  for (std::size_t b = baselines.size(); b-- > 0;) {
    out << "| " << markdown_code(short_commit(baselines[b].commit)) << " | " << baselines[b].position << " | "
        << markdown_spans(baselines[b].summary) << " |";
    for (std::size_t s = 0; s < history.series.size(); ++s) {
      const HistorySeries& series = history.series[s];
      out << " " << format_value(series.medians[b], series.unit);
      if (const HistoryShift* shift = shift_at(history, s, b)) {
        out << " " << (shift->worse ? "▲" : "▼") << " " << format_change(shift->ratio);
      }
      out << " |";
    }
    out << "\n";
  }
  return out.str();
}

std::string render_history_json(const History& history, const std::vector<StoredBaselineEntry>& baselines,
                                const HistoryScope& scope) {
  nlohmann::ordered_json root;
  root["schema"] = "neuron-gate.history/1";
  root["baseline_ref"] = sanitize_text(scope.baseline_ref);
  root["along"] = sanitize_text(scope.along);
  root["alpha"] = history.alpha;
  root["correction"] = "Holm";
  root["min_shift"] = history.min_shift;
  root["tests"] = history.tests;
  root["walk"] = {{"commits", scope.commits}, {"end", walk_end_key(scope.end)}, {"last_commit", scope.last_commit}};
  root["baselines"] = nlohmann::ordered_json::array();
  for (std::size_t b = baselines.size(); b-- > 0;) {
    root["baselines"].push_back({{"commit", baselines[b].commit},
                                 {"summary", sanitize_text(baselines[b].summary)},
                                 {"position", baselines[b].position},
                                 {"time", baselines[b].time}});
  }
  root["series"] = nlohmann::ordered_json::array();
  for (const auto& series : history.series) {
    nlohmann::ordered_json medians = nlohmann::ordered_json::array();
    for (std::size_t b = series.medians.size(); b-- > 0;) {
      medians.push_back(series.medians[b] ? nlohmann::ordered_json(*series.medians[b]) : nlohmann::ordered_json());
    }
    root["series"].push_back({{"name", sanitize_text(series.name)},
                              {"class", metric_class_key(series.metric_class)},
                              {"scope", metric_scope_key(series.scope)},
                              {"unit", sanitize_text(series.unit)},
                              {"better", series.better == Better::lower ? "lower" : "higher"},
                              {"medians", medians}});
  }
  root["shifts"] = nlohmann::ordered_json::array();
  for (const auto& shift : history.shifts) {
    const HistorySeries& series = history.series[shift.series];
    root["shifts"].push_back({{"metric", sanitize_text(series.name)},
                              {"class", metric_class_key(series.metric_class)},
                              {"commit", baselines[shift.baseline].commit},
                              {"change", shift.ratio - 1.0},
                              {"ratio", shift.ratio},
                              {"worse", shift.worse},
                              {"before", shift.before},
                              {"after", shift.after},
                              {"statistic", shift.statistic},
                              {"p_value", shift.p_value},
                              {"adjusted_p", shift.adjusted_p},
                              {"exact", shift.exact}});
  }
  return root.dump(2) + "\n";
}

}  // namespace neuron_gate
