#include "profile/step_windows.hpp"

#include "profile/self_time.hpp"

#include <algorithm>
#include <string_view>

namespace neuron_gate {

bool is_step_name(const std::string& name) {
  constexpr std::string_view k_step_prefix = "ProfilerStep#";
  return name.rfind(k_step_prefix, 0) == 0;
}

StepWindows::StepWindows(const RawTrace& trace) {
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if ((event.kind == EventKind::cpu_op || event.kind == EventKind::user_annotation) &&
        is_step_name(trace.names[event.name_id])) {
      m_windows.push_back({static_cast<std::uint32_t>(i), trace.threads[event.thread].process, event.ts_ns,
                           event.ts_ns + event.dur_ns});
    }
  }
  std::stable_sort(m_windows.begin(), m_windows.end(),
                   [](const StepWindow& a, const StepWindow& b) { return a.start < b.start; });
  m_by_process.resize(trace.processes.size());
  for (std::size_t s = 0; s < m_windows.size(); ++s) {
    m_by_process[m_windows[s].process].push_back(static_cast<std::uint32_t>(s));
    m_step_of_event.emplace(m_windows[s].event, static_cast<std::uint32_t>(s));
  }
  m_all.resize(m_windows.size());
  for (std::size_t s = 0; s < m_windows.size(); ++s) {
    m_all[s] = static_cast<std::uint32_t>(s);
  }
}

std::uint32_t StepWindows::of_event(std::uint32_t event, std::uint32_t process, Nanoseconds start) const {
  const auto own = m_step_of_event.find(event);
  if (own != m_step_of_event.end()) {
    return own->second;
  }
  return at(process, start);
}

std::uint32_t StepWindows::find(const std::vector<std::uint32_t>& steps, Nanoseconds ts) const {
  const auto after = std::upper_bound(steps.begin(), steps.end(), ts,
                                      [&](Nanoseconds t, std::uint32_t s) { return t < m_windows[s].start; });
  if (after == steps.begin() || ts >= m_windows[*(after - 1)].end) {
    return k_no_event;
  }
  return *(after - 1);
}

}  // namespace neuron_gate
