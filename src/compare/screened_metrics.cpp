#include "compare/screened_metrics.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace neuron_gate {
namespace {

// What the screen excluded in the traces of one rank (or of a whole side).
struct ScreenedNames {
  std::set<std::string> cpu, device;         // op keys (and unattributed rows) with screened events of that class
  bool any_cpu = false, any_device = false;  // any of those not ignored by the rules
  bool device_lost = false;
  bool steps = false;
};

ScreenedNames& add_trace(ScreenedNames& names, const TraceSamples& trace, const RuleSet& rules) {
  for (const auto& [name, op] : trace.screened_ops) {
    const bool counted = !rules.is_ignored(name);
    if (op.cpu_events > 0) {
      names.cpu.insert(name);
      names.any_cpu = names.any_cpu || counted;
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

SideScreen side_screen(const SideView& view, const RuleSet& rules) {
  SideScreen screen;
  for (const std::size_t t : view.traces) {
    const TraceSamples& trace = view.side->traces[t];
    add_trace(screen.by_rank[trace.rank], trace, rules);
    add_trace(screen.whole, trace, rules);
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

void mark_side(MetricMeasurement& m, const SideScreen& screen, double& share, bool& screened) {
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
    mark_side(m, base_screen, m.base_excluded_share, m.base_screened);
    mark_side(m, head_screen, m.head_excluded_share, m.head_screened);
  }
}

}  // namespace neuron_gate
