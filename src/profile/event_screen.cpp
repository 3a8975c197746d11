#include "profile/event_screen.hpp"

#include "profile/self_time.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace neuron_gate {

namespace {

// The instants a trace's CPU side covers, widened by the slack.
struct TraceRange {
  bool valid = false;
  Nanoseconds first = 0, last = 0;  // earliest start and latest end of CPU-side events and "Trace" spans
  Nanoseconds low = 0, high = 0;    // widened by the slack
  Nanoseconds span() const { return last - first; }
};

TraceRange trace_range(const RawTrace& trace) {
  TraceRange range;
  std::uint16_t trace_category = 0;
  for (std::size_t c = 1; c < trace.categories.size(); ++c) {
    if (trace.categories[c] == "Trace") {
      trace_category = static_cast<std::uint16_t>(c);
    }
  }
  for (const TraceEvent& event : trace.events) {
    if (!is_cpu_side(event.kind) && !(trace_category != 0 && event.category == trace_category)) {
      continue;
    }
    range.first = range.valid ? std::min(range.first, event.ts_ns) : event.ts_ns;
    range.last = range.valid ? std::max(range.last, event.ts_ns + event.dur_ns) : event.ts_ns + event.dur_ns;
    range.valid = true;
  }
  const Nanoseconds slack =
      std::max<Nanoseconds>(1'000'000, static_cast<Nanoseconds>(k_range_slack * static_cast<double>(range.span())));
  range.low = range.first - slack;
  range.high = range.last + slack;
  return range;
}

// An exact repeat: same name, thread, ts, dur and args.
struct EventIdentity {
  Nanoseconds ts = 0, dur = 0;
  std::uint64_t args = 0;
  std::uint32_t name = 0, thread = 0;
  bool operator==(const EventIdentity&) const = default;
};

struct IdentityHash {
  std::size_t operator()(const EventIdentity& e) const {
    std::uint64_t h = e.args;
    for (const std::uint64_t part : {static_cast<std::uint64_t>(e.ts), static_cast<std::uint64_t>(e.dur),
                                     (static_cast<std::uint64_t>(e.name) << 32) | e.thread}) {
      h ^= part + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    }
    return static_cast<std::size_t>(h);
  }
};

std::string micros(Nanoseconds ns) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1000.0);
  return text;
}

// `name "ts": …, "dur": …` (µs), the name cut to 60 bytes.
std::string event_example(const RawTrace& trace, const TraceEvent& event) {
  const std::string& name = trace.names[event.name_id];
  return (name.size() > 60 ? name.substr(0, 60) + "…" : name) + " \"ts\": " + micros(event.ts_ns) +
         ", \"dur\": " + micros(event.dur_ns);
}

class Screen {
public:
  Screen(const std::string& path, const RawTrace& trace)
      : m_path(path), m_trace(trace), m_steps(trace), m_range(trace_range(trace)) {}

  // The class an event falls in, or nullopt when it is kept.
  std::optional<DataProblemKind> classify(std::uint32_t i) {
    const TraceEvent& event = m_trace.events[i];
    if (event.kind == EventKind::ignored || m_steps.is_window_event(i)) {
      return std::nullopt;
    }
    const bool device = event.kind == EventKind::device;
    if (device && m_range.valid &&
        (event.ts_ns < m_range.low || event.ts_ns > m_range.high || (event.ts_ns == 0 && m_range.first != 0))) {
      return DataProblemKind::device_out_of_range;
    }
    const std::uint32_t step =
        device ? m_steps.any(event.ts_ns) : m_steps.at(m_trace.threads[event.thread].process, event.ts_ns);
    const Nanoseconds limit = step != k_no_event ? m_steps.windows()[step].end - m_steps.windows()[step].start
                                                 : (m_range.valid ? m_range.high - m_range.low : 0);
    if ((step != k_no_event || m_range.valid) && event.dur_ns > limit) {
      return DataProblemKind::longer_than_step;
    }
    if (event.dur_ns > 0 &&
        !m_seen.insert({event.ts_ns, event.dur_ns, m_trace.origins[i].args_hash, event.name_id, event.thread})
             .second) {
      return DataProblemKind::duplicate;
    }
    return std::nullopt;
  }

  // Counts event i as excluded under `kind`.
  void exclude(std::uint32_t i, DataProblemKind kind, EventScreen& screen) const {
    const TraceEvent& event = m_trace.events[i];
    DataProblem& problem = count_data_problem(screen.problems, kind, m_path, m_trace.origins[i].end_byte,
                                              event_example(m_trace, event));
    if (event.kind == EventKind::device) {
      problem.excluded_device_ns += event.dur_ns;
      screen.time.excluded_device_ns += event.dur_ns;
    } else {
      problem.excluded_cpu_ns += event.dur_ns;
      screen.time.excluded_cpu_ns += event.dur_ns;
    }
  }

private:
  const std::string& m_path;
  const RawTrace& m_trace;
  const StepWindows m_steps;
  const TraceRange m_range;
  std::unordered_set<EventIdentity, IdentityHash> m_seen;
};

bool launches_work(const std::string& name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("launch") != std::string::npos || lower.find("memcpy") != std::string::npos ||
         lower.find("memset") != std::string::npos;
}

// Launches in a trace without any device event: device time lost (nothing is removed).
void screen_lost_device_time(const std::string& path, const RawTrace& trace, EventScreen& screen) {
  if (std::any_of(trace.events.begin(), trace.events.end(),
                  [](const TraceEvent& e) { return e.kind == EventKind::device; })) {
    return;
  }
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if (event.kind == EventKind::runtime && launches_work(trace.names[event.name_id])) {
      count_data_problem(screen.problems, DataProblemKind::device_time_lost, path, trace.origins[i].end_byte,
                         event_example(trace, event));
      screen.time.device_time_lost = true;
    }
  }
}

// Estimates the time unfinished and negative-duration events carried: the median dur of the kept events
// of the same name (0 when there is none), added to their problems in trace.problems and to the totals.
void estimate_unusable_time(RawTrace& trace, EventScreen& screen) {
  if (trace.unusable.empty()) {
    return;
  }
  std::unordered_map<std::uint32_t, std::vector<Nanoseconds>> durations;
  for (const TraceEvent& event : trace.unusable) {
    durations.emplace(event.name_id, std::vector<Nanoseconds>());
  }
  for (const TraceEvent& event : trace.events) {
    if (auto it = durations.find(event.name_id); it != durations.end()) {
      it->second.push_back(event.dur_ns);
    }
  }
  for (auto& [name, values] : durations) {
    std::sort(values.begin(), values.end());
  }
  for (const TraceEvent& event : trace.unusable) {
    const std::vector<Nanoseconds>& values = durations[event.name_id];
    const Nanoseconds estimate = values.empty() ? 0 : values[values.size() / 2];
    const bool device = event.kind == EventKind::device;
    const DataProblemKind kind = event.dur_ns == -1 ? DataProblemKind::unfinished : DataProblemKind::negative_duration;
    for (DataProblem& problem : trace.problems) {
      if (problem.kind == kind) {
        (device ? problem.excluded_device_ns : problem.excluded_cpu_ns) += estimate;
      }
    }
    (device ? screen.time.excluded_device_ns : screen.time.excluded_cpu_ns) += estimate;
  }
}

} // namespace

EventScreen screen_events(const std::string& path, RawTrace& trace) {
  EventScreen screen;
  std::vector<char> drop(trace.events.size());
  {
    Screen classes(path, trace);
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      if (const auto kind = classes.classify(static_cast<std::uint32_t>(i))) {
        classes.exclude(static_cast<std::uint32_t>(i), *kind, screen);
        screen.excluded.push_back(trace.events[i]);
        drop[i] = 1;
      }
    }
  }
  screen_lost_device_time(path, trace, screen);
  estimate_unusable_time(trace, screen);
  if (std::find(drop.begin(), drop.end(), 1) == drop.end()) {
    return screen;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    if (drop[i] == 0) {
      trace.events[kept] = trace.events[i];
      trace.origins[kept] = trace.origins[i];
      ++kept;
    }
  }
  trace.events.resize(kept);
  trace.origins.resize(kept);
  return screen;
}

namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// CPU-side events (other than the windows themselves) starting in each step window.
std::vector<double> events_per_step(const RawTrace& trace, const StepWindows& steps) {
  std::vector<double> counts(steps.windows().size());
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if (!is_cpu_side(event.kind) || steps.is_window_event(static_cast<std::uint32_t>(i))) {
      continue;
    }
    const std::uint32_t step = steps.at(trace.threads[event.thread].process, event.ts_ns);
    if (step != k_no_event) {
      counts[step] += 1.0;
    }
  }
  return counts;
}

} // namespace

std::vector<std::uint32_t> cut_off_steps(const RawTrace& trace, const StepWindows& steps) {
  std::vector<std::uint32_t> cut;
  std::vector<double> counts;
  for (const std::vector<std::uint32_t>& own : steps.by_process()) {
    if (own.size() < 2) {
      continue;
    }
    if (counts.empty()) {
      counts = events_per_step(trace, steps);
    }
    std::vector<double> durations, events;
    for (std::size_t s = 0; s + 1 < own.size(); ++s) {
      durations.push_back(static_cast<double>(steps.windows()[own[s]].end - steps.windows()[own[s]].start));
      events.push_back(counts[own[s]]);
    }
    const StepWindow& last = steps.windows()[own.back()];
    if (static_cast<double>(last.end - last.start) < k_cut_off_step_share * median_of(durations) &&
        counts[own.back()] < k_cut_off_step_share * median_of(events)) {
      cut.push_back(own.back());
    }
  }
  return cut;
}

} // namespace neuron_gate
