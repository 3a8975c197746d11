#include "compare/screened_metrics.hpp"

#include "profile/op_keys.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace neuron_gate {
namespace {

// What the screen excluded in the traces of one rank (or of a whole side).
struct ScreenedNames {
  std::set<std::string> cpu, device;     // op keys (and unattributed rows) with screened events of that class
  std::set<std::string> device_missing;  // of `device`: those with launches whose device events are missing
  // By count (when anything was screened): per op key, its CPU-side events without a usable time
  // (ScreenedOp::unusable_cpu_events), and its events kept in the samples (calls); kept_total sums the calls
  // of every op, screened_total the unusable events of ops the rules do not ignore.
  std::map<std::string, std::int64_t> cpu_screened, cpu_kept;
  std::int64_t screened_total = 0, kept_total = 0;
  bool any_cpu = false, any_device = false;  // any of those not ignored by the rules
  bool device_lost = false;
  bool steps = false;
};

ScreenedNames& add_trace(ScreenedNames& names, const TraceSamples& trace, const RuleSet& rules) {
  for (const auto& [name, op] : trace.screened_ops) {
    const bool counted = !rules.is_ignored(name);
    if (op.cpu_events > 0) {
      names.cpu.insert(name);
      if (op.unusable_cpu_events > 0) {
        names.cpu_screened[name] += op.unusable_cpu_events;
        names.screened_total += counted ? op.unusable_cpu_events : 0;
      }
      names.any_cpu = names.any_cpu || counted;
    }
    if (op.missing_device_events > 0) {
      names.device_missing.insert(name);
    }
    if (op.device_events > 0) {
      names.device.insert(name);
      names.any_device = names.any_device || counted;
    }
  }
  names.device_lost = names.device_lost || trace.screened.device_time_lost;
  names.steps = names.steps || trace.steps_screened;
  return names;
}

// Per rank (key: the trace's rank) and for the whole side (key: nullopt).
struct SideScreen {
  std::map<std::optional<unsigned>, ScreenedNames> by_rank;
  ScreenedNames whole;
  double cpu_share = 0, device_share = 0;
};

// Adds the calls of every op of `trace` (its steps and outside them) to names.cpu_kept and kept_total.
void add_kept_calls(ScreenedNames& names, const TraceSamples& trace) {
  const auto add = [&](const StepSample& step) {
    for (const OpSample& op : step.ops) {
      names.cpu_kept[trace.op_keys[op.op]] += op.values.calls;
      names.kept_total += op.values.calls;
    }
  };
  add(trace.outside_steps);
  for (const StepSample& step : trace.steps) {
    add(step);
  }
}

std::int64_t count_of(const std::map<std::string, std::int64_t>& counts, const std::string& name) {
  const auto found = counts.find(name);
  return found == counts.end() ? 0 : found->second;
}

// The share of a self CPU metric's events that had no usable time (by count: they carry no time to measure,
// but each is a call missing from a kept step's sample; a screened duplicate or cut-off step is not). 0 when none.
double screened_count_share(const MetricMeasurement& m, const ScreenedNames& names) {
  std::int64_t screened = 0, kept = 0;
  switch (m.scope) {
  case MetricScope::class_total:
    screened = names.screened_total;
    kept = names.kept_total;
    break;
  case MetricScope::replacement_group:
    for (const auto* list : {&m.replaced->gone, &m.replaced->appeared, &m.replaced->calls_changed}) {
      for (const std::string& name : *list) {
        screened += count_of(names.cpu_screened, name);
        kept += count_of(names.cpu_kept, name);
      }
    }
    break;
  case MetricScope::op:
    screened = count_of(names.cpu_screened, unranked_name(m));
    kept = count_of(names.cpu_kept, unranked_name(m));
    break;
  }
  return screened > 0 ? static_cast<double>(screened) / static_cast<double>(screened + kept) : 0.0;
}

SideScreen side_screen(const SideView& view, const RuleSet& rules) {
  SideScreen screen;
  for (const std::size_t t : view.traces) {
    const TraceSamples& trace = view.side->traces[t];
    add_trace(screen.by_rank[trace.rank], trace, rules);
    add_trace(screen.whole, trace, rules);
  }
  if (!screen.whole.cpu_screened.empty()) {  // calls are counted only where an event had no usable time
    for (const std::size_t t : view.traces) {
      const TraceSamples& trace = view.side->traces[t];
      add_kept_calls(screen.by_rank[trace.rank], trace);
      add_kept_calls(screen.whole, trace);
    }
  }
  screen.cpu_share = excluded_cpu_share(view.screened);
  screen.device_share = excluded_device_share(view.screened);
  return screen;
}

bool any_member(const ReplacementMembers& members, const std::set<std::string>& names) {
  for (const auto* list : {&members.gone, &members.appeared, &members.calls_changed}) {
    if (std::any_of(list->begin(), list->end(), [&](const std::string& n) { return names.count(n) > 0; })) {
      return true;
    }
  }
  return false;
}

// The first op key of device metric `m` with launches whose device events are missing, "" for none.
std::string first_device_missing(const MetricMeasurement& m, const ScreenedNames& names) {
  if (m.metric_class != MetricClass::device) {
    return "";
  }
  for (const std::string& name : names.device_missing) {
    if (m.scope == MetricScope::class_total ||
        (m.scope == MetricScope::replacement_group ? any_member(*m.replaced, {name}) : name == unranked_name(m))) {
      return name;
    }
  }
  return "";
}

// Whether `m` holds events that `names` says were screened.
bool holds_screened(const MetricMeasurement& m, const ScreenedNames& names) {
  if (m.metric_class == MetricClass::step_time) {
    return names.steps;
  }
  const bool device = m.metric_class == MetricClass::device;
  if (device && names.device_lost) {
    return true;
  }
  const std::set<std::string>& set = device ? names.device : names.cpu;
  switch (m.scope) {
  case MetricScope::class_total:
    return device ? names.any_device : names.any_cpu;
  case MetricScope::replacement_group:
    return any_member(*m.replaced, set);
  case MetricScope::op:
    break;
  }
  return set.count(unranked_name(m)) > 0;
}

void mark_side(MetricMeasurement& m, const SideScreen& screen, double& share, bool& screened,
               std::string& device_missing, bool& device_lost) {
  static const ScreenedNames none;
  const ScreenedNames* names = &screen.whole;
  if (m.ranked) {
    const auto it = screen.by_rank.find(m.rank);
    names = it == screen.by_rank.end() ? &none : &it->second;
  }
  share = m.metric_class == MetricClass::device     ? screen.device_share
          : m.metric_class == MetricClass::self_cpu ? screen.cpu_share
                                                    : std::max(screen.cpu_share, screen.device_share);
  screened = holds_screened(m, *names);
  device_missing = screened ? first_device_missing(m, *names) : std::string();
  device_lost = m.metric_class == MetricClass::device && names->device_lost;
  if (screened && m.metric_class == MetricClass::self_cpu) {
    share = std::max(share, screened_count_share(m, *names));  // by count as well as by time
  }
}

}  // namespace

void mark_screened_metrics(std::vector<MetricMeasurement>& metrics, const SideSamples& base, const SideSamples& head,
                           const RuleSet& rules) {
  mark_screened_metrics(metrics, whole_side(base), whole_side(head), rules);
}

void mark_screened_metrics(std::vector<MetricMeasurement>& metrics, const SideView& base, const SideView& head,
                           const RuleSet& rules) {
  mark_screened_metrics(
      metrics.size(), [&](std::size_t i) -> MetricMeasurement& { return metrics[i]; }, base, head, rules);
}

void mark_screened_metrics(std::size_t count, const std::function<MetricMeasurement&(std::size_t)>& at,
                           const SideView& base, const SideView& head, const RuleSet& rules) {
  const SideScreen base_screen = side_screen(base, rules);
  const SideScreen head_screen = side_screen(head, rules);
  for (std::size_t i = 0; i < count; ++i) {
    MetricMeasurement& m = at(i);
    if (m.metric_class == MetricClass::end_to_end) {
      continue;
    }
    mark_side(m, base_screen, m.base_excluded_share, m.base_screened, m.base_device_missing, m.base_device_lost);
    mark_side(m, head_screen, m.head_excluded_share, m.head_screened, m.head_device_missing, m.head_device_lost);
  }
}

}  // namespace neuron_gate
