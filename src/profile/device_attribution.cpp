#include "profile/device_attribution.hpp"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace neuron_gate {

namespace {

// An id (correlation, External id; coded, TraceEvent) and the event holding it: 8 bytes, no node per entry.
struct IdAt {
  IdCode id;
  std::uint32_t at;
};

// A flow start by (id, category), or a flow finish by the (thread, instant) it binds to; `flow` indexes
// RawTrace::flows. Sorted vectors, looked up by binary search.
struct FlowStart {
  std::uint64_t id;
  std::uint16_t category;
  std::uint32_t flow;
  auto key() const { return std::pair(id, category); }
};

struct FlowFinish {
  Nanoseconds ts_ns;
  std::uint32_t thread;
  std::uint32_t flow;
  auto key() const { return std::pair(thread, ts_ns); }
};

// Sorts by id; among equal ids the first in file order stays first (the one a lookup finds): entries are
// added in file order, so (id, at) is that order without stable_sort's buffer of half the entries.
void sort_ids(std::vector<IdAt>& ids) {
  std::sort(ids.begin(), ids.end(),
            [](const IdAt& a, const IdAt& b) { return std::pair(a.id, a.at) < std::pair(b.id, b.at); });
}

// The `at` of the first entry with `id`, or k_no_event.
std::uint32_t find_id(const std::vector<IdAt>& ids, IdCode id) {
  const auto found = std::lower_bound(ids.begin(), ids.end(), id, [](const IdAt& e, IdCode v) { return e.id < v; });
  return found != ids.end() && found->id == id ? found->at : k_no_event;
}

// The entries of a vector sorted by key() whose key is `key`.
template <typename Entry, typename Key>
std::pair<typename std::vector<Entry>::const_iterator, typename std::vector<Entry>::const_iterator>
entries_of(const std::vector<Entry>& entries, const Key& key) {
  const auto first =
      std::lower_bound(entries.begin(), entries.end(), key, [](const Entry& e, const Key& k) { return e.key() < k; });
  const auto last =
      std::upper_bound(first, entries.end(), key, [](const Key& k, const Entry& e) { return k < e.key(); });
  return {first, last};
}

// The innermost user annotation of `thread` holding the instant `ts` ([start, end]) that is not a
// ProfilerStep window, or k_no_event: the last CPU-side event of the thread starting at or before
// `ts`, then up its parents.
std::uint32_t annotation_at(const RawTrace& trace, const CpuNesting& nesting, std::uint32_t thread, Nanoseconds ts) {
  if (thread + 1 >= nesting.thread_begin.size()) {
    return k_no_event;
  }
  const auto begin = nesting.order.begin() + nesting.thread_begin[thread];
  const auto end = nesting.order.begin() + nesting.thread_begin[thread + 1];
  const auto after =
      std::upper_bound(begin, end, ts, [&](Nanoseconds t, std::uint32_t e) { return t < trace.events[e].ts_ns; });
  if (after == begin) {
    return k_no_event;
  }
  for (std::uint32_t e = *(after - 1); e != k_no_event; e = nesting.parent[e]) {
    const TraceEvent& event = trace.events[e];
    if (event.kind == EventKind::user_annotation && event.ts_ns <= ts && ts <= event.ts_ns + event.dur_ns &&
        trace.names[trace.name_id(event)].rfind("ProfilerStep#", 0) != 0) {
      return e;
    }
  }
  return k_no_event;
}

// The lookups every device event's attribution uses, built once per trace: sorted vectors of 8- and 16-byte
// entries (hash maps cost ~60 bytes an entry, the largest state of a gigabyte Kineto trace).
struct LaunchIndex {
  std::vector<IdAt> runtime_by_correlation;  // runtime events; the first of a correlation in file order wins
  std::vector<IdAt> op_by_external_id;       // cpu_op events; the first of an External id wins
  std::vector<FlowStart> flow_starts;        // by (id, category), then file order
  std::vector<FlowFinish> flow_finishes;     // by (thread, instant), then the latest in file order first
  bool any_device = false;
};

LaunchIndex index_launches(const RawTrace& trace) {
  LaunchIndex index;
  std::size_t runtimes = 0, ops = 0, starts = 0;  // exact sizes first: no doubling beside the event records
  for (const TraceEvent& event : trace.events) {
    runtimes += event.kind == EventKind::runtime && event.has_correlation ? 1 : 0;
    ops += event.kind == EventKind::cpu_op && event.external_id != 0 ? 1 : 0;
  }
  for (const FlowPoint& flow : trace.flows) {
    starts += flow.is_start ? 1 : 0;
  }
  index.runtime_by_correlation.reserve(runtimes);
  index.op_by_external_id.reserve(ops);
  index.flow_starts.reserve(starts);
  index.flow_finishes.reserve(trace.flows.size() - starts);
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    const auto at = static_cast<std::uint32_t>(i);
    if (event.kind == EventKind::runtime && event.has_correlation) {
      index.runtime_by_correlation.push_back({event.correlation, at});
    } else if (event.kind == EventKind::cpu_op && event.external_id != 0) {
      index.op_by_external_id.push_back({event.external_id, at});
    } else if (event.kind == EventKind::device) {
      index.any_device = true;
    }
  }
  sort_ids(index.runtime_by_correlation);
  sort_ids(index.op_by_external_id);
  for (std::size_t i = 0; i < trace.flows.size(); ++i) {
    const FlowPoint& flow = trace.flows[i];
    const auto at = static_cast<std::uint32_t>(i);
    if (flow.is_start) {
      index.flow_starts.push_back({flow.id, flow.category, at});
    } else {
      index.flow_finishes.push_back({flow.ts_ns, flow.thread, at});
    }
  }
  std::sort(index.flow_starts.begin(), index.flow_starts.end(), [](const FlowStart& a, const FlowStart& b) {
    return std::tuple(a.id, a.category, a.flow) < std::tuple(b.id, b.category, b.flow);
  });
  // Finishes at one instant are tried latest first (as the hash multimap this replaces returned them).
  std::sort(index.flow_finishes.begin(), index.flow_finishes.end(), [](const FlowFinish& a, const FlowFinish& b) {
    return std::tuple(a.thread, a.ts_ns, b.flow) < std::tuple(b.thread, b.ts_ns, a.flow);
  });
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
  const auto [first, last] = entries_of(index.flow_finishes, std::pair(event.thread, event.ts_ns));
  for (auto finish = first; finish != last && state.launch.op == k_no_event; ++finish) {
    const FlowPoint& end = trace.flows[finish->flow];
    const auto [starts_first, starts_last] = entries_of(index.flow_starts, std::pair(end.id, end.category));
    for (auto s = starts_first; s != starts_last; ++s) {
      const FlowPoint& start = trace.flows[s->flow];
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
  const std::uint32_t runtime =
      event.has_correlation ? find_id(index.runtime_by_correlation, event.correlation) : k_no_event;
  if (runtime != k_no_event) {
    // Some traces reuse the correlation number as External id: the runtime path comes first.
    state.set(LaunchLink::correlation, events[runtime].thread, events[runtime].ts_ns);
    state.launch.op = innermost_cpu_op(events, nesting, runtime);
  }
  if (state.launch.op == k_no_event) {
    link_by_flow(trace, nesting, index, event, state);
  }
  // 3. the cpu_op with the same non-zero External id
  if (state.launch.op == k_no_event && event.external_id != 0) {
    if (const std::uint32_t op = find_id(index.op_by_external_id, event.external_id); op != k_no_event) {
      state.launch.op = op;
      if (!state.has_launch) {
        state.set(LaunchLink::external_id, events[op].thread, events[op].ts_ns);
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

}  // namespace

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

}  // namespace neuron_gate
