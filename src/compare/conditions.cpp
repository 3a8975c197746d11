#include "compare/conditions.hpp"

#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include <algorithm>
#include <set>

namespace neuron_gate {
namespace {

std::string plural(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// "1 step per trace" or "1 step per trace (28), 2 steps per trace (2)".
std::string describe_steps(const std::vector<TraceSamples>& traces) {
  std::map<std::size_t, std::size_t> traces_by_steps;
  bool any_steps = false;
  for (const TraceSamples& trace : traces) {
    any_steps = any_steps || trace.has_profiler_steps;
    ++traces_by_steps[trace.has_profiler_steps ? trace.steps.size() : 0];
  }
  if (!any_steps) {
    return "no ProfilerStep (whole trace is one sample)";
  }
  std::string text;
  for (const auto& [steps, count] : traces_by_steps) {
    if (!text.empty()) {
      text += ", ";
    }
    text += plural(steps, "step") + " per trace";
    if (traces_by_steps.size() > 1) {
      text += " (" + std::to_string(count) + ")";
    }
  }
  return text;
}

} // namespace

const std::vector<std::string>& condition_names() {
  static const std::vector<std::string> names{"schedule", "traces", "activities", "end_to_end_metrics",
                                              "record_shapes", "with_stack"};
  return names;
}

Fingerprint fingerprint_side(const SideSamples& side) {
  Fingerprint fp;
  if (!side.traces.empty()) {
    fp.values["schedule"] = describe_steps(side.traces);
    fp.values["traces"] = std::to_string(side.traces.size());
    std::set<std::string> activities;
    for (const TraceSamples& trace : side.traces) {
      activities.insert("CPU ops");
      if (trace.has_device_events) {
        activities.insert("device events");
      }
      for (const std::string& category : trace.categories) {
        if (category.find("runtime") != std::string::npos || category == "Runtime") {
          activities.insert("runtime calls");
        }
      }
      for (const char* key : {"record_shapes", "with_stack"}) {
        auto it = trace.metadata.find(key);
        if (it != trace.metadata.end()) {
          fp.values[key] = it->second;
        }
      }
    }
    std::string text;
    for (const std::string& activity : activities) {
      text += (text.empty() ? "" : ", ") + activity;
    }
    fp.values["activities"] = text;
  } else {
    fp.values["traces"] = "0";
  }
  std::string metrics;
  for (const EndToEndMetric& metric : side.end_to_end) {
    metrics += (metrics.empty() ? "" : ", ") + metric.name + " (" + metric.unit + ")";
  }
  fp.values["end_to_end_metrics"] = metrics.empty() ? "none" : metrics;
  return fp;
}

bool ConditionsDiff::comparable() const {
  return std::all_of(rows.begin(), rows.end(), [](const ConditionRow& row) { return row.matches || row.accepted; });
}

ConditionsDiff diff_conditions(const Fingerprint& base, const Fingerprint& head, const std::vector<std::string>& allowed) {
  for (const std::string& name : allowed) {
    if (std::find(condition_names().begin(), condition_names().end(), name) == condition_names().end()) {
      std::string message = "unknown condition \"" + name + "\"";
      if (auto suggestion = closest_word(name, condition_names())) {
        message += ", did you mean \"" + *suggestion + "\"?";
      }
      throw UsageError(message);
    }
  }
  ConditionsDiff diff;
  for (const std::string& name : condition_names()) {
    auto b = base.values.find(name);
    auto h = head.values.find(name);
    if (b == base.values.end() && h == head.values.end()) {
      continue;
    }
    ConditionRow row;
    row.name = name;
    row.base = b == base.values.end() ? "not recorded" : b->second;
    row.head = h == head.values.end() ? "not recorded" : h->second;
    row.matches = row.base == row.head;
    row.accepted = !row.matches && std::find(allowed.begin(), allowed.end(), name) != allowed.end();
    diff.rows.push_back(std::move(row));
  }
  return diff;
}

} // namespace neuron_gate
