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

} // namespace

std::vector<DeviceLaunch> attribute_device_events(const RawTrace& trace, const CpuNesting& nesting) {
  const std::vector<TraceEvent>& events = trace.events;
  std::unordered_map<std::uint64_t, std::uint32_t> runtime_by_correlation;
  std::unordered_map<std::uint64_t, std::uint32_t> op_by_external_id;
  bool any_device = false;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& event = events[i];
    const auto index = static_cast<std::uint32_t>(i);
    if (event.kind == EventKind::runtime && event.has_correlation) {
      runtime_by_correlation.emplace(event.correlation, index);
    } else if (event.kind == EventKind::cpu_op && event.external_id != 0) {
      op_by_external_id.emplace(event.external_id, index);
    } else if (event.kind == EventKind::device) {
      any_device = true;
    }
  }
  std::vector<DeviceLaunch> launches;
  if (!any_device) {
    return launches;
  }

  // Flow arrows: starts by (category, id), finishes by the (thread, instant) they bind to.
  std::unordered_map<FlowKey, std::vector<std::uint32_t>, FlowKeyHash> flow_starts;
  std::unordered_multimap<InstantKey, FlowKey, InstantKeyHash> flow_finishes;
  for (std::size_t i = 0; i < trace.flows.size(); ++i) {
    const FlowPoint& flow = trace.flows[i];
    const FlowKey key{flow.id, flow.category};
    if (flow.is_start) {
      flow_starts[key].push_back(static_cast<std::uint32_t>(i));
    } else {
      flow_finishes.emplace(InstantKey{flow.thread, flow.ts_ns}, key);
    }
  }

  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& event = events[i];
    if (event.kind != EventKind::device) {
      continue;
    }
    DeviceLaunch launch;
    launch.event = static_cast<std::uint32_t>(i);
    bool has_launch = false;
    const auto set_launch = [&](LaunchLink link, std::uint32_t thread, Nanoseconds ts) {
      launch.link = link;
      launch.launch_thread = thread;
      launch.launch_ts_ns = ts;
      has_launch = true;
    };
    // 1. the runtime call with the same correlation; its innermost enclosing op
    const auto runtime = event.has_correlation ? runtime_by_correlation.find(event.correlation)
                                               : runtime_by_correlation.end();
    if (runtime != runtime_by_correlation.end()) {
      // Some traces reuse the correlation number as External id: the runtime path comes first.
      set_launch(LaunchLink::correlation, events[runtime->second].thread, events[runtime->second].ts_ns);
      launch.op = innermost_cpu_op(events, nesting, runtime->second);
    }
    // 2. a flow arrow (ac2g, async_npu, ...) ending at the event's start: the op holding its start
    if (launch.op == k_no_event) {
      const auto [first, last] = flow_finishes.equal_range(InstantKey{event.thread, event.ts_ns});
      for (auto finish = first; finish != last && launch.op == k_no_event; ++finish) {
        const auto starts = flow_starts.find(finish->second);
        if (starts == flow_starts.end()) {
          continue;
        }
        for (const std::uint32_t s : starts->second) {
          const FlowPoint& start = trace.flows[s];
          const std::uint32_t holder = cpu_op_at(events, nesting, start.thread, start.ts_ns);
          if (!has_launch || holder != k_no_event) {
            set_launch(LaunchLink::flow, start.thread, start.ts_ns);
          }
          if (holder != k_no_event) {
            launch.op = holder;
            break;
          }
        }
      }
    }
    // 3. the cpu_op with the same non-zero External id
    if (launch.op == k_no_event && event.external_id != 0) {
      if (const auto op = op_by_external_id.find(event.external_id); op != op_by_external_id.end()) {
        launch.op = op->second;
        if (!has_launch) {
          set_launch(LaunchLink::external_id, events[op->second].thread, events[op->second].ts_ns);
        } else {
          launch.link = LaunchLink::external_id;
        }
      }
    }
    // 4. the innermost user annotation (not a ProfilerStep) holding the launch on its thread
    if (launch.op == k_no_event && has_launch) {
      launch.op = annotation_at(trace, nesting, launch.launch_thread, launch.launch_ts_ns);
      if (launch.op != k_no_event) {
        launch.link = LaunchLink::enclosing;
      }
    }
    launch.attributed = launch.op != k_no_event;
    if (!has_launch) {
      launch.link = LaunchLink::none;
    }
    launches.push_back(launch);
  }
  return launches;
}

} // namespace neuron_gate
