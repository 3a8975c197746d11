#include "profile/device_attribution.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace neuron_gate {

namespace {

struct FlowKey {
  std::uint64_t id;
  std::uint16_t category;
  bool operator==(const FlowKey&) const = default;
};

struct FlowKeyHash {
  std::size_t operator()(const FlowKey& key) const {
    return std::hash<std::uint64_t>()(key.id * 31 + key.category);
  }
};

struct InstantKey {
  std::uint32_t thread;
  Nanoseconds ts_ns;
  bool operator==(const InstantKey&) const = default;
};

struct InstantKeyHash {
  std::size_t operator()(const InstantKey& key) const {
    return std::hash<std::int64_t>()(key.ts_ns) ^ (std::hash<std::uint32_t>()(key.thread) << 1);
  }
};

// The innermost user annotation of `thread` holding the instant `ts` ([start, end]) that is not a
// ProfilerStep window, or k_no_event: the last CPU-side event of the thread starting at or before
// `ts`, then up its parents.
std::uint32_t annotation_at(const RawTrace& trace, const CpuNesting& nesting, std::uint32_t thread, Nanoseconds ts) {
  if (thread + 1 >= nesting.thread_begin.size()) {
    return k_no_event;
  }
  const auto begin = nesting.order.begin() + nesting.thread_begin[thread];
  const auto end = nesting.order.begin() + nesting.thread_begin[thread + 1];
  const auto after = std::upper_bound(begin, end, ts, [&](Nanoseconds t, std::uint32_t e) { return t < trace.events[e].ts_ns; });
  if (after == begin) {
    return k_no_event;
  }
  for (std::uint32_t e = *(after - 1); e != k_no_event; e = nesting.parent[e]) {
    const TraceEvent& event = trace.events[e];
    if (event.kind == EventKind::user_annotation && event.ts_ns <= ts && ts <= event.ts_ns + event.dur_ns &&
        trace.names[event.name_id].rfind("ProfilerStep#", 0) != 0) {
      return e;
    }
  }
  return k_no_event;
}

// The lookups every device event's attribution uses, built once per trace.
struct LaunchIndex {
  std::unordered_map<std::uint64_t, std::uint32_t> runtime_by_correlation;
  std::unordered_map<std::uint64_t, std::uint32_t> op_by_external_id;
  // Flow arrows: starts by (category, id), finishes by the (thread, instant) they bind to.
  std::unordered_map<FlowKey, std::vector<std::uint32_t>, FlowKeyHash> flow_starts;
  std::unordered_multimap<InstantKey, FlowKey, InstantKeyHash> flow_finishes;
  bool any_device = false;
};

LaunchIndex index_launches(const RawTrace& trace) {
  LaunchIndex index;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    const auto at = static_cast<std::uint32_t>(i);
    if (event.kind == EventKind::runtime && event.has_correlation) {
      index.runtime_by_correlation.emplace(event.correlation, at);
    } else if (event.kind == EventKind::cpu_op && event.external_id != 0) {
      index.op_by_external_id.emplace(event.external_id, at);
    } else if (event.kind == EventKind::device) {
      index.any_device = true;
    }
  }
  for (std::size_t i = 0; i < trace.flows.size(); ++i) {
    const FlowPoint& flow = trace.flows[i];
    const FlowKey key{flow.id, flow.category};
    if (flow.is_start) {
      index.flow_starts[key].push_back(static_cast<std::uint32_t>(i));
    } else {
      index.flow_finishes.emplace(InstantKey{flow.thread, flow.ts_ns}, key);
    }
  }
  return index;
}

// One device event's launch while it is being attributed.
struct LaunchInProgress {
  DeviceLaunch launch;
  bool has_launch = false;
  void set(LaunchLink link, std::uint32_t thread, Nanoseconds ts) {
    launch.link = link;
    launch.launch_thread = thread;
    launch.launch_ts_ns = ts;
    has_launch = true;
  }
};

// 2. a flow arrow (ac2g, async_npu, ...) ending at the event's start: the op holding its start.
void link_by_flow(const RawTrace& trace, const CpuNesting& nesting, const LaunchIndex& index, const TraceEvent& event,
                  LaunchInProgress& state) {
  const auto [first, last] = index.flow_finishes.equal_range(InstantKey{event.thread, event.ts_ns});
  for (auto finish = first; finish != last && state.launch.op == k_no_event; ++finish) {
    const auto starts = index.flow_starts.find(finish->second);
    if (starts == index.flow_starts.end()) {
      continue;
    }
    for (const std::uint32_t s : starts->second) {
      const FlowPoint& start = trace.flows[s];
      const std::uint32_t holder = cpu_op_at(trace.events, nesting, start.thread, start.ts_ns);
      if (!state.has_launch || holder != k_no_event) {
        state.set(LaunchLink::flow, start.thread, start.ts_ns);
      }
      if (holder != k_no_event) {
        state.launch.op = holder;
        break;
      }
    }
  }
}

// `event` is trace.events[at], or (at == k_no_event) a device event the screen took out of trace.events.
DeviceLaunch attribute_one(const RawTrace& trace, const CpuNesting& nesting, const LaunchIndex& index,
                           const TraceEvent& event, std::uint32_t at) {
  const std::vector<TraceEvent>& events = trace.events;
  LaunchInProgress state;
  state.launch.event = at;
  // 1. the runtime call with the same correlation; its innermost enclosing op
  const auto runtime = event.has_correlation ? index.runtime_by_correlation.find(event.correlation)
                                             : index.runtime_by_correlation.end();
  if (runtime != index.runtime_by_correlation.end()) {
    // Some traces reuse the correlation number as External id: the runtime path comes first.
    state.set(LaunchLink::correlation, events[runtime->second].thread, events[runtime->second].ts_ns);
    state.launch.op = innermost_cpu_op(events, nesting, runtime->second);
  }
  if (state.launch.op == k_no_event) {
    link_by_flow(trace, nesting, index, event, state);
  }
  // 3. the cpu_op with the same non-zero External id
  if (state.launch.op == k_no_event && event.external_id != 0) {
    if (const auto op = index.op_by_external_id.find(event.external_id); op != index.op_by_external_id.end()) {
      state.launch.op = op->second;
      if (!state.has_launch) {
        state.set(LaunchLink::external_id, events[op->second].thread, events[op->second].ts_ns);
      } else {
        state.launch.link = LaunchLink::external_id;
      }
    }
  }
  // 4. the innermost user annotation (not a ProfilerStep) holding the launch on its thread
  if (state.launch.op == k_no_event && state.has_launch) {
    state.launch.op = annotation_at(trace, nesting, state.launch.launch_thread, state.launch.launch_ts_ns);
    if (state.launch.op != k_no_event) {
      state.launch.link = LaunchLink::enclosing;
    }
  }
  state.launch.attributed = state.launch.op != k_no_event;
  if (!state.has_launch) {
    state.launch.link = LaunchLink::none;
  }
  return state.launch;
}

} // namespace

std::vector<DeviceLaunch> attribute_device_events(const RawTrace& trace, const CpuNesting& nesting) {
  const LaunchIndex index = index_launches(trace);
  std::vector<DeviceLaunch> launches;
  if (!index.any_device) {
    return launches;
  }
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    if (trace.events[i].kind == EventKind::device) {
      launches.push_back(attribute_one(trace, nesting, index, trace.events[i], static_cast<std::uint32_t>(i)));
    }
  }
  return launches;
}

std::vector<std::uint32_t> attribute_other_device_events(const RawTrace& trace, const CpuNesting& nesting,
                                                         const std::vector<TraceEvent>& others) {
  std::vector<std::uint32_t> ops;
  if (others.empty()) {
    return ops;
  }
  const LaunchIndex index = index_launches(trace);
  for (const TraceEvent& event : others) {
    ops.push_back(event.kind == EventKind::device ? attribute_one(trace, nesting, index, event, k_no_event).op
                                                  : k_no_event);
  }
  return ops;
}

} // namespace neuron_gate
