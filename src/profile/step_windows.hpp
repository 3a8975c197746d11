#pragma once
// The ProfilerStep#N windows of a trace (DESIGN.md section 2): which step holds an instant of a process,
// used to make per-step samples (trace_samples.cpp) and to screen events against their step
// (event_screen.cpp).

#include "formats/kineto_trace.hpp"
#include "profile/self_time.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace neuron_gate {

// True for "ProfilerStep#<anything>".
bool is_step_name(const std::string& name);

// One ProfilerStep#N event: its index in RawTrace::events, its process and [start, end) in ns.
struct StepWindow {
  std::uint32_t event;
  std::uint32_t process;
  Nanoseconds start;
  Nanoseconds end;
};

// The ProfilerStep#N windows (cpu_op or user_annotation events) of each process, ordered by start; an
// instant belongs to the latest-starting window of its process if that window holds it ([start, end)).
// Indexes refer to the RawTrace it was built from: rebuild it after events are removed.
class StepWindows {
 public:
  explicit StepWindows(const RawTrace& trace);

  // Every window, ordered by start.
  const std::vector<StepWindow>& windows() const { return m_windows; }
  bool empty() const { return m_windows.empty(); }

  // Step index of a CPU-side event: its own step for a ProfilerStep event, else by its start.
  std::uint32_t of_event(std::uint32_t event, std::uint32_t process, Nanoseconds start) const;

  // Step of `process` holding the instant `ts`, or k_no_event.
  std::uint32_t at(std::uint32_t process, Nanoseconds ts) const;

  // Step of any process holding `ts` (for device time without a launch), or k_no_event.
  std::uint32_t any(Nanoseconds ts) const;

  // True when `event` (an index into RawTrace::events) is a step window's own event.
  bool is_window_event(std::uint32_t event) const { return own_step(event) != k_no_event; }

  // The window of which event `event` (an index into RawTrace::events) is the own event, or k_no_event.
  std::uint32_t own_step(std::uint32_t event) const;

  // True when an event of this name may be a window's own event (its name is a step name): a flag by
  // key id, so that most events never search the windows' events.
  bool may_be_window(const TraceEvent& event) const {
    return event.key_id < m_step_key.size() && m_step_key[event.key_id] != 0;
  }

  // Window indexes of each process (by RawTrace::processes index), ordered by start.
  const std::vector<std::vector<std::uint32_t>>& by_process() const { return m_by_process; }

  // The window of `steps` (a by_process() list or all windows) holding `ts`, searched from `*after` (the
  // number of windows of `steps` starting at or before the previous instant asked): a moving cursor, a few
  // steps from where the previous event was, galloping when it jumps; `*after` is updated.
  std::uint32_t find_from(const std::vector<std::uint32_t>& steps, std::size_t& after, Nanoseconds ts) const;

  // All window indexes, in order (0, 1, ...).
  const std::vector<std::uint32_t>& all() const { return m_all; }

 private:
  std::vector<StepWindow> m_windows;
  std::vector<std::vector<std::uint32_t>> m_by_process;
  std::vector<std::uint32_t> m_all;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_own;  // (window's event, window), by event
  std::vector<std::uint8_t> m_step_key;                        // by key id: 1 for a step name
};

// Moving cursors over the windows, one per process and one over all: each lookup starts where the
// previous one of its process ended, so events met in time order (a thread's events in nesting order,
// a trace's events in file order) find their step in a few comparisons instead of a search each.
class StepCursor {
 public:
  explicit StepCursor(const StepWindows& steps) : m_steps(steps), m_after(steps.by_process().size(), 0) {}

  // As StepWindows::at, of_event and any.
  std::uint32_t at(std::uint32_t process, Nanoseconds ts) {
    return m_steps.find_from(m_steps.by_process()[process], m_after[process], ts);
  }
  std::uint32_t of_event(std::uint32_t event, const TraceEvent& record, std::uint32_t process) {
    if (m_steps.may_be_window(record)) {
      if (const std::uint32_t own = m_steps.own_step(event); own != k_no_event) {
        return own;
      }
    }
    return at(process, record.ts_ns);
  }
  std::uint32_t any(Nanoseconds ts) { return m_steps.find_from(m_steps.all(), m_any_after, ts); }

 private:
  const StepWindows& m_steps;
  std::vector<std::size_t> m_after;
  std::size_t m_any_after = 0;
};

}  // namespace neuron_gate
