#include "profile/device_attribution.hpp"

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
    const auto runtime = event.has_correlation ? runtime_by_correlation.find(event.correlation)
                                               : runtime_by_correlation.end();
    if (runtime != runtime_by_correlation.end()) {
      // Some traces reuse the correlation number as External id: the runtime path comes first.
      const TraceEvent& call = events[runtime->second];
      launch.link = LaunchLink::correlation;
      launch.op = innermost_cpu_op(events, nesting, runtime->second);
      launch.launch_thread = call.thread;
      launch.launch_ts_ns = call.ts_ns;
    } else if (const auto op = event.external_id != 0 ? op_by_external_id.find(event.external_id)
                                                      : op_by_external_id.end();
               op != op_by_external_id.end()) {
      launch.link = LaunchLink::external_id;
      launch.op = op->second;
      launch.launch_thread = events[op->second].thread;
      launch.launch_ts_ns = events[op->second].ts_ns;
    } else {
      const auto [first, last] = flow_finishes.equal_range(InstantKey{event.thread, event.ts_ns});
      for (auto finish = first; finish != last && launch.link == LaunchLink::none; ++finish) {
        const auto starts = flow_starts.find(finish->second);
        if (starts == flow_starts.end()) {
          continue;
        }
        for (const std::uint32_t s : starts->second) {
          const FlowPoint& start = trace.flows[s];
          const std::uint32_t holder = cpu_op_at(events, nesting, start.thread, start.ts_ns);
          if (holder != k_no_event) {
            launch.link = LaunchLink::flow;
            launch.op = holder;
            launch.launch_thread = start.thread;
            launch.launch_ts_ns = start.ts_ns;
            break;
          }
        }
      }
    }
    launches.push_back(launch);
  }
  return launches;
}

} // namespace neuron_gate
