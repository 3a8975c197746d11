#include "profile/self_time.hpp"

#include <algorithm>

namespace neuron_gate {

namespace {

struct SortKey {
  std::uint32_t thread;
  std::uint32_t index;  // file order
  Nanoseconds start;
  Nanoseconds end;
};

} // namespace

CpuNesting nest_cpu_events(std::span<const TraceEvent> events, std::size_t thread_count) {
  CpuNesting nesting;
  nesting.parent.assign(events.size(), k_no_event);
  nesting.self_ns.assign(events.size(), 0);

  std::vector<SortKey> keys;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& event = events[i];
    if (is_cpu_side(event.kind)) {
      keys.push_back({event.thread, static_cast<std::uint32_t>(i), event.ts_ns, event.ts_ns + event.dur_ns});
    }
  }
  // (start, -end), then file order: the same order as Python's stable sort on [start, -end].
  std::sort(keys.begin(), keys.end(), [](const SortKey& a, const SortKey& b) {
    if (a.thread != b.thread) {
      return a.thread < b.thread;
    }
    if (a.start != b.start) {
      return a.start < b.start;
    }
    if (a.end != b.end) {
      return a.end > b.end;
    }
    return a.index < b.index;
  });

  nesting.order.reserve(keys.size());
  nesting.thread_begin.assign(thread_count + 1, 0);
  std::vector<const SortKey*> stack;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const SortKey& key = keys[k];
    if (k == 0 || keys[k - 1].thread != key.thread) {
      stack.clear();
    }
    ++nesting.thread_begin[key.thread + 1];
    nesting.order.push_back(key.index);
    nesting.self_ns[key.index] += key.end - key.start;
    while (!stack.empty()) {
      const SortKey& top = *stack.back();
      if (key.start >= top.end || key.end > top.end) {
        stack.pop_back();
      } else {
        nesting.parent[key.index] = top.index;
        nesting.self_ns[top.index] -= key.end - key.start;
        break;
      }
    }
    stack.push_back(&key);
  }
  for (std::size_t t = 0; t < thread_count; ++t) {
    nesting.thread_begin[t + 1] += nesting.thread_begin[t];
  }
  return nesting;
}

std::uint32_t innermost_cpu_op(std::span<const TraceEvent> events, const CpuNesting& nesting,
                               std::uint32_t event) {
  while (event != k_no_event && events[event].kind != EventKind::cpu_op) {
    event = nesting.parent[event];
  }
  return event;
}

std::uint32_t cpu_op_at(std::span<const TraceEvent> events, const CpuNesting& nesting, std::uint32_t thread,
                        Nanoseconds ts_ns) {
  if (thread + 1 >= nesting.thread_begin.size()) {
    return k_no_event;
  }
  const auto first = nesting.order.begin() + nesting.thread_begin[thread];
  const auto last = nesting.order.begin() + nesting.thread_begin[thread + 1];
  // The last event starting at or before ts; the events open at ts are it and its ancestors.
  auto after = std::upper_bound(first, last, ts_ns,
                                [&](Nanoseconds ts, std::uint32_t index) { return ts < events[index].ts_ns; });
  if (after == first) {
    return k_no_event;
  }
  std::uint32_t event = *(after - 1);
  while (event != k_no_event) {
    const TraceEvent& candidate = events[event];
    if (candidate.kind == EventKind::cpu_op && candidate.ts_ns <= ts_ns &&
        ts_ns <= candidate.ts_ns + candidate.dur_ns) {
      return event;
    }
    event = nesting.parent[event];
  }
  return k_no_event;
}

} // namespace neuron_gate
