#include "profile/self_time.hpp"

#include <algorithm>

namespace neuron_gate {

CpuNesting nest_cpu_events(std::span<const TraceEvent> events, std::size_t thread_count,
                           const SelfTimeVisitor& on_self_time, bool keep_links) {
  CpuNesting nesting;
  if (keep_links) {
    nesting.parent.assign(events.size(), k_no_event);
  }

  // Group the CPU-side events by thread, keeping file order (a counting sort: no key copies, so
  // the only extra memory is the 4-byte index per event).
  nesting.thread_begin.assign(thread_count + 1, 0);
  for (const TraceEvent& event : events) {
    if (is_cpu_side(event.kind)) {
      ++nesting.thread_begin[event.thread + 1];
    }
  }
  for (std::size_t t = 0; t < thread_count; ++t) {
    nesting.thread_begin[t + 1] += nesting.thread_begin[t];
  }
  nesting.order.resize(nesting.thread_begin[thread_count]);
  {
    std::vector<std::uint32_t> next(nesting.thread_begin.begin(), nesting.thread_begin.end() - 1);
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (is_cpu_side(events[i].kind)) {
        nesting.order[next[events[i].thread]++] = static_cast<std::uint32_t>(i);
      }
    }
  }

  // (start, -end), then file order: the same order as Python's stable sort on [start, -end].
  // Threads usually arrive in this order already, so check before sorting.
  const auto before = [&](std::uint32_t a, std::uint32_t b) {
    const TraceEvent& x = events[a];
    const TraceEvent& y = events[b];
    if (x.ts_ns != y.ts_ns) {
      return x.ts_ns < y.ts_ns;
    }
    const Nanoseconds x_end = x.ts_ns + x.dur_ns;
    const Nanoseconds y_end = y.ts_ns + y.dur_ns;
    if (x_end != y_end) {
      return x_end > y_end;
    }
    return a < b;
  };
  struct Open {
    std::uint32_t event;
    Nanoseconds self_ns;  // dur less the children nested so far
  };
  std::vector<Open> stack;
  for (std::size_t t = 0; t < thread_count; ++t) {
    const auto first = nesting.order.begin() + nesting.thread_begin[t];
    const auto last = nesting.order.begin() + nesting.thread_begin[t + 1];
    if (!std::is_sorted(first, last, before)) {
      std::sort(first, last, before);
    }
    for (auto it = first; it != last; ++it) {
      const std::uint32_t index = *it;
      const TraceEvent& event = events[index];
      const Nanoseconds end = event.ts_ns + event.dur_ns;
      while (!stack.empty()) {
        const TraceEvent& top = events[stack.back().event];
        const Nanoseconds top_end = top.ts_ns + top.dur_ns;
        if (event.ts_ns >= top_end || end > top_end) {
          on_self_time(stack.back().event, stack.back().self_ns);  // no child can follow
          stack.pop_back();
        } else {
          if (keep_links) {
            nesting.parent[index] = stack.back().event;
          }
          stack.back().self_ns -= event.dur_ns;
          break;
        }
      }
      stack.push_back(Open{index, event.dur_ns});
    }
    for (; !stack.empty(); stack.pop_back()) {
      on_self_time(stack.back().event, stack.back().self_ns);
    }
  }
  return keep_links ? nesting : CpuNesting();
}

std::uint32_t innermost_cpu_op(std::span<const TraceEvent> events, const CpuNesting& nesting, std::uint32_t event) {
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

}  // namespace neuron_gate
