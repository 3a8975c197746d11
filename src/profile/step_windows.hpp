#pragma once
// The ProfilerStep#N windows of a trace (DESIGN.md section 2): which step holds an instant of a process,
// used to make per-step samples (trace_samples.cpp) and to screen events against their step
// (event_screen.cpp).

#include "formats/kineto_trace.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
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
  std::uint32_t at(std::uint32_t process, Nanoseconds ts) const { return find(m_by_process[process], ts); }

  // Step of any process holding `ts` (for device time without a launch), or k_no_event.
  std::uint32_t any(Nanoseconds ts) const { return find(m_all, ts); }

  // True when `event` (an index into RawTrace::events) is a step window's own event.
  bool is_window_event(std::uint32_t event) const { return m_step_of_event.count(event) != 0; }

  // Window indexes of each process (by RawTrace::processes index), ordered by start.
  const std::vector<std::vector<std::uint32_t>>& by_process() const { return m_by_process; }

 private:
  std::uint32_t find(const std::vector<std::uint32_t>& steps, Nanoseconds ts) const;

  std::vector<StepWindow> m_windows;
  std::vector<std::vector<std::uint32_t>> m_by_process;
  std::vector<std::uint32_t> m_all;
  std::unordered_map<std::uint32_t, std::uint32_t> m_step_of_event;
};

}  // namespace neuron_gate
