#include "profile/self_time.hpp"

#include <algorithm>

namespace neuron_gate {

namespace {

// (start, -end), then file order: the same order as Python's stable sort on [start, -end].
bool nests_before(std::span<const TraceEvent> events, std::uint32_t a, std::uint32_t b) {
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
}

struct Open {
  std::uint32_t event;
  Nanoseconds self_ns;  // dur less the children nested so far
};

// Nests `event` (index `index`) on its thread's `stack`: closes (hands over) the open events it does not
// fit in, subtracts its dur from its parent's self time and opens it. Returns its parent or k_no_event.
std::uint32_t nest_one(std::span<const TraceEvent> events, std::uint32_t index, std::vector<Open>& stack,
                       const SelfTimeVisitor& on_self_time) {
  const TraceEvent& event = events[index];
  const Nanoseconds end = event.ts_ns + event.dur_ns;
  std::uint32_t parent = k_no_event;
  while (!stack.empty()) {
    const TraceEvent& top = events[stack.back().event];
    const Nanoseconds top_end = top.ts_ns + top.dur_ns;
    if (event.ts_ns >= top_end || end > top_end) {
      on_self_time(stack.back().event, stack.back().self_ns);  // no child can follow
      stack.pop_back();
    } else {
      parent = stack.back().event;
      stack.back().self_ns -= event.dur_ns;
      break;
    }
  }
  stack.push_back(Open{index, event.dur_ns});
  return parent;
}

void close_all(std::vector<Open>& stack, const SelfTimeVisitor& on_self_time) {
  for (; !stack.empty(); stack.pop_back()) {
    on_self_time(stack.back().event, stack.back().self_ns);
  }
}

// The self times alone when every thread's CPU-side events already come in nesting order in the file (the
// usual case): one walk in file order with a stack per thread, no order array (4 bytes an event). Returns
// false, having handed nothing over, when some thread's events are out of order.
bool nest_in_file_order(std::span<const TraceEvent> events, std::size_t thread_count,
                        const SelfTimeVisitor& on_self_time) {
  std::vector<std::uint32_t> last(thread_count, k_no_event);
  for (std::uint32_t i = 0; i < events.size(); ++i) {
    if (is_cpu_side(events[i].kind)) {
      std::uint32_t& previous = last[events[i].thread];
      if (previous != k_no_event && !nests_before(events, previous, i)) {
        return false;
      }
      previous = i;
    }
  }
  std::vector<std::vector<Open>> stacks(thread_count);
  for (std::uint32_t i = 0; i < events.size(); ++i) {
    if (is_cpu_side(events[i].kind)) {
      nest_one(events, i, stacks[events[i].thread], on_self_time);
    }
  }
  for (std::vector<Open>& stack : stacks) {
    close_all(stack, on_self_time);
  }
  return true;
}

}  // namespace

CpuNesting nest_cpu_events(std::span<const TraceEvent> events, std::size_t thread_count,
                           const SelfTimeVisitor& on_self_time, bool keep_links) {
  if (!keep_links && nest_in_file_order(events, thread_count, on_self_time)) {
    return CpuNesting();
  }
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

  // Threads usually arrive in nesting order already, so check before sorting.
  const auto before = [&](std::uint32_t a, std::uint32_t b) { return nests_before(events, a, b); };
  std::vector<Open> stack;
  for (std::size_t t = 0; t < thread_count; ++t) {
    const auto first = nesting.order.begin() + nesting.thread_begin[t];
    const auto last = nesting.order.begin() + nesting.thread_begin[t + 1];
    if (!std::is_sorted(first, last, before)) {
      std::sort(first, last, before);
    }
    for (auto it = first; it != last; ++it) {
      const std::uint32_t parent = nest_one(events, *it, stack, on_self_time);
      if (keep_links) {
        nesting.parent[*it] = parent;
      }
    }
    close_all(stack, on_self_time);
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
