#pragma once
// Parent/child nesting of the CPU-side events of each thread and their self times, by PyTorch's own
// rule (torch/autograd/profiler_util.py, EventList._populate_cpu_children; DESIGN.md section 2).

#include "formats/kineto_trace.hpp"
#include "util/units.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

namespace neuron_gate {

// "No event" in index vectors.
inline constexpr std::uint32_t k_no_event = std::numeric_limits<std::uint32_t>::max();

// The nesting of the CPU-side events (is_cpu_side) of a trace. Vectors indexed by event are as long
// as the event vector; entries of events that are not CPU-side stay k_no_event / 0.
struct CpuNesting {
  std::vector<std::uint32_t> order;         // CPU-side event indices sorted by (thread, start, -end, file order)
  std::vector<std::uint32_t> thread_begin;  // thread t's events are order[thread_begin[t] .. thread_begin[t+1])
  std::vector<std::uint32_t> parent;        // per event: its direct parent, or k_no_event
};

// Called once per CPU-side event with its self time in ns: dur - sum of its direct children's dur (may be
// < 0), as soon as its last child is nested (in nesting order within a thread; see nest_cpu_events for
// the order across threads).
using SelfTimeVisitor = std::function<void(std::uint32_t event, Nanoseconds self_ns)>;

// Nests the CPU-side events of each thread (a thread is one (pid, tid)): sorted by (start, -end) with
// file order on ties, walked with a stack whose top is popped while the event starts at or after its
// end or ends after it; otherwise the event is a child of the top. Self = dur - children's dur,
// negative values kept, each handed to `on_self_time` (only the open events' self times are held: no
// 8 bytes per event). `thread_count` is the number of distinct thread indices in `events`. Without
// `keep_links` (no device event to attribute: nothing asks for an event's parent or the op at an instant)
// only the self times are made and the result is empty: no parent per event, the order freed, or never
// made when every thread's events already come in that order in the file (then the self times are handed
// over in file order, threads interleaved).
CpuNesting nest_cpu_events(std::span<const TraceEvent> events, std::size_t thread_count,
                           const SelfTimeVisitor& on_self_time, bool keep_links = true);

// The innermost event of kind cpu_op among `event` and its ancestors, or k_no_event.
std::uint32_t innermost_cpu_op(std::span<const TraceEvent> events, const CpuNesting& nesting, std::uint32_t event);

// The innermost cpu_op of `thread` whose [start, end] holds the instant `ts_ns`, or k_no_event.
std::uint32_t cpu_op_at(std::span<const TraceEvent> events, const CpuNesting& nesting, std::uint32_t thread,
                        Nanoseconds ts_ns);

}  // namespace neuron_gate
