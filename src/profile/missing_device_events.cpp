#include "profile/missing_device_events.hpp"

#include <algorithm>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace neuron_gate {

namespace {

// Indexes (into trace.events, ascending) of the runtime calls holding the start of a flow that has no
// finish of the same id and category.
std::vector<std::uint32_t> launches_with_dangling_flows(const RawTrace& trace) {
  std::vector<std::tuple<std::uint64_t, std::uint16_t, bool, std::uint32_t>> points;  // id, category, is_start, flow
  points.reserve(trace.flows.size());
  for (std::uint32_t f = 0; f < trace.flows.size(); ++f) {
    points.emplace_back(trace.flows[f].id, trace.flows[f].category, trace.flows[f].is_start, f);
  }
  std::sort(points.begin(), points.end());
  std::vector<std::pair<std::uint32_t, Nanoseconds>> dangling;    // (thread, ts) of each start without a finish
  for (std::size_t k = 0, end = 0; k < points.size(); k = end) {  // one (id, category) at a time
    bool finished = false;
    for (end = k; end < points.size() && std::get<0>(points[end]) == std::get<0>(points[k]) &&
                  std::get<1>(points[end]) == std::get<1>(points[k]);
         ++end) {
      finished = finished || !std::get<2>(points[end]);
    }
    for (std::size_t j = k; j < end && !finished; ++j) {
      dangling.emplace_back(trace.flows[std::get<3>(points[j])].thread, trace.flows[std::get<3>(points[j])].ts_ns);
    }
  }
  std::vector<std::uint32_t> launches;
  if (dangling.empty()) {
    return launches;
  }
  std::sort(dangling.begin(), dangling.end());
  for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if (event.kind != EventKind::runtime) {
      continue;
    }
    const auto first = std::lower_bound(dangling.begin(), dangling.end(), std::pair(event.thread, event.ts_ns));
    if (first != dangling.end() && first->first == event.thread && first->second <= event.ts_ns + event.dur_ns) {
      launches.push_back(i);
    }
  }
  return launches;
}

Nanoseconds median_duration(std::vector<Nanoseconds> values) {
  if (values.empty()) {
    return 0;
  }
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

// What the trace's links say about its device events and launches.
class LaunchLinks {
 public:
  explicit LaunchLinks(const RawTrace& trace) : m_dangling(launches_with_dangling_flows(trace)) {
    m_device.reserve(
        static_cast<std::size_t>(std::count_if(trace.events.begin(), trace.events.end(), [](const TraceEvent& event) {
          return event.kind == EventKind::device && event.has_correlation;
        })));
    for (const TraceEvent& event : trace.events) {
      if (event.kind == EventKind::device) {
        m_any_device = true;
        m_device_category = m_device_category != 0 ? m_device_category : trace.key(event).category;
        if (event.has_correlation) {
          m_device.emplace_back(event.correlation, event.dur_ns);
        }
      }
    }
    for (const TraceEvent& event : trace.unusable) {
      if (event.kind == EventKind::device && event.has_correlation) {
        m_unusable.push_back(event.correlation);
      }
    }
    std::sort(m_device.begin(), m_device.end());
    std::sort(m_unusable.begin(), m_unusable.end());
  }

  // What the estimates of missing device time need (op_of, median_device): made only when a launch lacks
  // its device events.
  void prepare_estimates(const RawTrace& trace) {
    for (const TraceEvent& event : trace.events) {
      if (event.kind == EventKind::device) {
        m_all_device.push_back(event.dur_ns);
      } else if (event.kind == EventKind::cpu_op && event.external_id != 0) {
        m_op_of_external_id.emplace_back(event.external_id, trace.name_id(event));
      }
    }
    std::sort(m_op_of_external_id.begin(), m_op_of_external_id.end());
  }

  bool any_device() const { return m_any_device || !m_unusable.empty(); }
  std::uint16_t device_category() const { return m_device_category; }
  bool has_dangling_flow(std::uint32_t i) const { return std::binary_search(m_dangling.begin(), m_dangling.end(), i); }

  // True when a device event (usable or not) carries `launch`'s correlation id.
  bool linked(const TraceEvent& launch) const {
    if (!launch.has_correlation) {
      return false;
    }
    const auto it = std::lower_bound(m_device.begin(), m_device.end(), std::pair(launch.correlation, Nanoseconds{0}));
    return (it != m_device.end() && it->first == launch.correlation) ||
           std::binary_search(m_unusable.begin(), m_unusable.end(), launch.correlation);
  }

  // Device times of the events `launch` linked by (a), to `out`.
  void launched_by(const TraceEvent& launch, std::vector<Nanoseconds>& out) const {
    auto it = std::lower_bound(m_device.begin(), m_device.end(), std::pair(launch.correlation, Nanoseconds{0}));
    for (; launch.has_correlation && it != m_device.end() && it->first == launch.correlation; ++it) {
      out.push_back(it->second);
    }
  }

  // The name of the cpu_op with `launch`'s External id, if any.
  std::optional<std::uint32_t> op_of(const TraceEvent& launch) const {
    const auto it = std::lower_bound(m_op_of_external_id.begin(), m_op_of_external_id.end(),
                                     std::pair(launch.external_id, std::uint32_t{0}));
    if (launch.external_id == 0 || it == m_op_of_external_id.end() || it->first != launch.external_id) {
      return std::nullopt;
    }
    return it->second;
  }

  Nanoseconds median_device() const { return median_duration(m_all_device); }

 private:
  std::vector<std::uint32_t> m_dangling;                 // runtime calls holding a flow start with no finish
  std::vector<std::pair<IdCode, Nanoseconds>> m_device;  // (correlation, dur) of usable device events
  std::vector<IdCode> m_unusable;                        // correlations of device events without a usable time
  std::vector<Nanoseconds> m_all_device;                 // dur of every usable device event
  std::vector<std::pair<IdCode, std::uint32_t>> m_op_of_external_id;  // (External id, cpu_op name)
  std::uint16_t m_device_category = 0;
  bool m_any_device = false;
};

// No device event at all: the runtime calls that would have launched some are counted as device_time_lost.
void count_lost_device_time(const std::string& path, const RawTrace& trace, const LaunchLinks& links,
                            EventScreen& screen) {
  for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if (event.kind == EventKind::runtime && (event.has_correlation || links.has_dangling_flow(i))) {
      count_data_problem(screen.problems, DataProblemKind::device_time_lost, path, end_byte(trace, i),
                         event_example(trace, event));
      screen.time.device_time_lost = true;
    }
  }
}

// Device times by runtime call name id or by op name id.
using TimesBy = std::unordered_map<std::uint32_t, std::vector<Nanoseconds>>;

// (b): the device times launched per runtime call name, and per op name (by External id), by the linked
// runtime calls in file order; kept only for the names and ops of the `unlinked` launches, the only ones
// asked for (a complete trace's cudaLaunchKernel calls no longer copy every kernel's time).
void launched_times(const RawTrace& trace, const LaunchLinks& links, const std::vector<std::uint32_t>& unlinked,
                    TimesBy& by_name, TimesBy& by_op) {
  std::vector<char> need_name(trace.names.size(), 0), need_op(trace.names.size(), 0);
  bool any_op = false;
  for (const std::uint32_t i : unlinked) {
    need_name[trace.name_id(trace.events[i])] = 1;
    if (const std::optional<std::uint32_t> op = links.op_of(trace.events[i])) {
      need_op[*op] = 1;
      any_op = true;
    }
  }
  for (const TraceEvent& event : trace.events) {
    const bool name = event.kind == EventKind::runtime && need_name[trace.name_id(event)] != 0;
    if ((name || (any_op && event.kind == EventKind::runtime)) && links.linked(event)) {
      if (name) {
        links.launched_by(event, by_name[trace.name_id(event)]);
      }
      const std::optional<std::uint32_t> op = any_op ? links.op_of(event) : std::nullopt;
      if (op && need_op[*op] != 0) {
        links.launched_by(event, by_op[*op]);
      }
    }
  }
}

}  // namespace

void screen_missing_device_events(const std::string& path, RawTrace& trace, EventScreen& screen) {
  LaunchLinks links(trace);
  if (!links.any_device()) {
    count_lost_device_time(path, trace, links, screen);
    return;
  }
  // The runtime calls no device event is linked to that may have launched one: in a complete trace none, and
  // then nothing below is needed.
  std::vector<std::uint32_t> unlinked;
  for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if (event.kind == EventKind::runtime && (event.has_correlation || links.has_dangling_flow(i)) &&
        !links.linked(event)) {
      unlinked.push_back(i);
    }
  }
  if (unlinked.empty()) {
    return;
  }
  links.prepare_estimates(trace);
  TimesBy by_name, by_op;
  launched_times(trace, links, unlinked, by_name, by_op);
  std::optional<EventKeyTable> keys;  // the stand-ins' keys: their op's name and shapes, a device category
  for (const std::uint32_t i : unlinked) {
    const TraceEvent& event = trace.events[i];
    const auto name = by_name.find(trace.name_id(event));
    const bool launches = (event.has_correlation && name != by_name.end()) || links.has_dangling_flow(i);
    if (!launches) {
      continue;
    }
    const std::optional<std::uint32_t> op_name = links.op_of(event);
    const auto op = op_name ? by_op.find(*op_name) : by_op.end();
    const Nanoseconds estimate = op != by_op.end() && !op->second.empty()         ? median_duration(op->second)
                                 : name != by_name.end() && !name->second.empty() ? median_duration(name->second)
                                                                                  : links.median_device();
    DataProblem& problem = count_data_problem(screen.problems, DataProblemKind::device_events_missing, path,
                                              end_byte(trace, i), event_example(trace, event));
    problem.excluded_device_ns += estimate;
    screen.time.excluded_device_ns += estimate;
    TraceEvent stand_in = event;
    stand_in.kind = EventKind::device;
    EventKey key = trace.key(event);
    key.category = links.device_category();
    if (!keys) {
      keys.emplace(trace.event_keys);
    }
    stand_in.key_id = keys->intern(key);
    stand_in.dur_ns = estimate;
    screen.missing_device.push_back(stand_in);
  }
}

}  // namespace neuron_gate
