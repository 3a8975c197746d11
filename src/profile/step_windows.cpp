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
  std::vector<std::uint8_t> step_name(trace.names.size());
  for (std::size_t n = 0; n < trace.names.size(); ++n) {
    step_name[n] = is_step_name(trace.names[n]) ? 1 : 0;
  }
  m_step_key.resize(trace.event_keys.size());
  for (std::size_t k = 0; k < trace.event_keys.size(); ++k) {
    m_step_key[k] = step_name[trace.event_keys[k].name_id];
  }
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if ((event.kind == EventKind::cpu_op || event.kind == EventKind::user_annotation) &&
        m_step_key[event.key_id] != 0) {
      m_windows.push_back({static_cast<std::uint32_t>(i), trace.threads[event.thread].process, event.ts_ns,
                           event.ts_ns + event.dur_ns});
    }
  }
  std::stable_sort(m_windows.begin(), m_windows.end(),
                   [](const StepWindow& a, const StepWindow& b) { return a.start < b.start; });
  m_by_process.resize(trace.processes.size());
  m_own.reserve(m_windows.size());
  for (std::size_t s = 0; s < m_windows.size(); ++s) {
    m_by_process[m_windows[s].process].push_back(static_cast<std::uint32_t>(s));
    m_own.emplace_back(m_windows[s].event, static_cast<std::uint32_t>(s));
  }
  std::sort(m_own.begin(), m_own.end());
  m_all.resize(m_windows.size());
  for (std::size_t s = 0; s < m_windows.size(); ++s) {
    m_all[s] = static_cast<std::uint32_t>(s);
  }
}

std::uint32_t StepWindows::own_step(std::uint32_t event) const {
  const auto own = std::lower_bound(m_own.begin(), m_own.end(), std::make_pair(event, std::uint32_t{0}));
  return own != m_own.end() && own->first == event ? own->second : k_no_event;
}

std::uint32_t StepWindows::of_event(std::uint32_t event, std::uint32_t process, Nanoseconds start) const {
  const std::uint32_t own = own_step(event);
  return own != k_no_event ? own : at(process, start);
}

std::uint32_t StepWindows::at(std::uint32_t process, Nanoseconds ts) const {
  std::size_t after = 0;
  return find_from(m_by_process[process], after, ts);
}

std::uint32_t StepWindows::any(Nanoseconds ts) const {
  std::size_t after = 0;
  return find_from(m_all, after, ts);
}

std::uint32_t StepWindows::find_from(const std::vector<std::uint32_t>& steps, std::size_t& after,
                                     Nanoseconds ts) const {
  // `after` becomes the first position whose window starts after ts (upper_bound), found by galloping
  // from the previous position in the direction ts moved, then a binary search inside the last stride.
  const auto starts_after = [&](std::size_t k) { return ts < m_windows[steps[k]].start; };
  const std::size_t n = steps.size();
  std::size_t low = 0, high = n;  // the answer is in [low, high]
  std::size_t at = std::min(after, n);
  if (at < n && !starts_after(at)) {
    std::size_t stride = 1;
    low = at + 1;
    while (low + stride - 1 < n && !starts_after(low + stride - 1)) {
      low += stride;
      stride *= 2;
    }
    high = std::min(n, low + stride - 1);
  } else {
    high = at;
    std::size_t stride = 1;
    while (high >= stride && starts_after(high - stride)) {
      high -= stride;
      stride *= 2;
    }
    low = high >= stride ? high - stride + 1 : 0;
  }
  const auto first = steps.begin() + static_cast<std::ptrdiff_t>(low);
  const auto last = steps.begin() + static_cast<std::ptrdiff_t>(high);
  after = static_cast<std::size_t>(
      std::upper_bound(first, last, ts, [&](Nanoseconds t, std::uint32_t s) { return t < m_windows[s].start; }) -
      steps.begin());
  if (after == 0 || ts >= m_windows[steps[after - 1]].end) {
    return k_no_event;
  }
  return steps[after - 1];
}

}  // namespace neuron_gate
