#include "profile/event_screen.hpp"

#include "profile/missing_device_events.hpp"
#include "profile/self_time.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <unordered_map>

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
    if (!is_cpu_side(event.kind) && !(trace_category != 0 && trace.key(event).category == trace_category)) {
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

// Per event, what the screen decided, one byte each: kept (k_kept), kept and a duplicate candidate
// (k_candidate), or excluded under a kind (code_of(kind)).
constexpr std::uint8_t k_kept = 0;
constexpr std::uint8_t k_candidate = 1;

std::uint8_t code_of(DataProblemKind kind) {
  return static_cast<std::uint8_t>(2 + static_cast<int>(kind));
}

std::string micros(Nanoseconds ns) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3f", to_us(ns));
  return text;
}

bool excluded(std::uint8_t code) {
  return code >= 2;
}

DataProblemKind kind_of(std::uint8_t code) {
  return static_cast<DataProblemKind>(code - 2);
}

// True when events a and b are exact repeats: same name, thread, ts, dur and args.
bool same_identity(const RawTrace& trace, std::uint32_t a, std::uint32_t b) {
  const TraceEvent& x = trace.events[a];
  const TraceEvent& y = trace.events[b];
  return x.ts_ns == y.ts_ns && x.dur_ns == y.dur_ns && trace.name_id(x) == trace.name_id(y) && x.thread == y.thread &&
         x.args_hash == y.args_hash;
}

// Marks (in `codes`, by event index) every candidate (k_candidate) whose identity equals an earlier
// candidate's in file order as a duplicate. Repeats share thread, ts and dur, so the candidates are grouped
// by thread (a counting sort keeping file order: 4 bytes a candidate), each thread's put in (ts, dur
// descending, file order) order, which most traces already are in (checked before sorting), and only runs
// of equal ts and dur are compared exactly (name, args). No hash, no sort of all the candidates.
void mark_duplicates(const RawTrace& trace, std::size_t candidate_count, std::vector<std::uint8_t>& codes) {
  std::vector<std::uint32_t> begin(trace.threads.size() + 1, 0);
  for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
    begin[trace.events[i].thread + 1] += codes[i] == k_candidate ? 1u : 0u;
  }
  for (std::size_t t = 0; t < trace.threads.size(); ++t) {
    begin[t + 1] += begin[t];
  }
  std::vector<std::uint32_t> order(candidate_count);
  {
    std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
      if (codes[i] == k_candidate) {
        order[next[trace.events[i].thread]++] = i;
      }
    }
  }
  const auto before = [&](std::uint32_t a, std::uint32_t b) {
    const TraceEvent &x = trace.events[a], &y = trace.events[b];
    return x.ts_ns != y.ts_ns ? x.ts_ns < y.ts_ns : x.dur_ns != y.dur_ns ? x.dur_ns > y.dur_ns : a < b;
  };
  std::vector<std::uint32_t> distinct;  // the first event of each identity in the current run
  for (std::size_t t = 0; t < trace.threads.size(); ++t) {
    const auto first = order.begin() + begin[t], last = order.begin() + begin[t + 1];
    if (!std::is_sorted(first, last, before)) {
      std::sort(first, last, before);
    }
    for (auto run = first; run != last;) {
      const TraceEvent& head = trace.events[*run];
      auto run_end = run + 1;
      while (run_end != last && trace.events[*run_end].ts_ns == head.ts_ns &&
             trace.events[*run_end].dur_ns == head.dur_ns) {
        ++run_end;
      }
      distinct.clear();
      for (; run != run_end; ++run) {
        const std::uint32_t event = *run;
        if (std::any_of(distinct.begin(), distinct.end(),
                        [&](std::uint32_t earlier) { return same_identity(trace, earlier, event); })) {
          codes[event] = code_of(DataProblemKind::duplicate);
        } else {
          distinct.push_back(event);
        }
      }
    }
  }
}

// The first two classes (device_out_of_range, longer_than_step) of the events in file order; duplicates
// are found afterwards over all the events kept by these (mark_duplicates).
class Screen {
 public:
  Screen(const std::string& path, const RawTrace& trace)
      : m_path(path), m_trace(trace), m_steps(trace), m_cursor(m_steps), m_range(trace_range(trace)) {
    for (const StepWindow& window : m_steps.windows()) {
      m_window_events.push_back(window.event);
    }
    std::sort(m_window_events.begin(), m_window_events.end());
  }

  // The class of event i but duplicate, or nullopt. Called with i ascending (a cursor walks the step
  // windows' own events, which are never excluded).
  std::optional<DataProblemKind> classify(std::uint32_t i) {
    const TraceEvent& event = m_trace.events[i];
    if (event.kind == EventKind::ignored || is_window(i)) {
      return std::nullopt;
    }
    const bool device = event.kind == EventKind::device;
    if (device && m_range.valid &&
        (event.ts_ns < m_range.low || event.ts_ns > m_range.high || (event.ts_ns == 0 && m_range.first != 0))) {
      return DataProblemKind::device_out_of_range;
    }
    const std::uint32_t step =
        device ? m_cursor.any(event.ts_ns) : m_cursor.at(m_trace.threads[event.thread].process, event.ts_ns);
    const Nanoseconds limit = step != k_no_event ? m_steps.windows()[step].end - m_steps.windows()[step].start
                                                 : (m_range.valid ? m_range.high - m_range.low : 0);
    if ((step != k_no_event || m_range.valid) && event.dur_ns > limit) {
      return DataProblemKind::longer_than_step;
    }
    return std::nullopt;
  }

  // True when event i (kept by classify, i ascending) takes part in the duplicate screen.
  bool may_repeat(std::uint32_t i) {
    const TraceEvent& event = m_trace.events[i];
    return event.kind != EventKind::ignored && event.dur_ns > 0 && !is_window(i);
  }

  // Counts event i as excluded under `kind`.
  // Counts event i as excluded, carrying `time` ns (its dur, or an estimate for a zero-duration placeholder).
  void exclude(std::uint32_t i, DataProblemKind kind, Nanoseconds time, EventScreen& screen) const {
    const TraceEvent& event = m_trace.events[i];
    DataProblem& problem =
        count_data_problem(screen.problems, kind, m_path, end_byte(m_trace, i), event_example(m_trace, event));
    if (event.kind == EventKind::device) {
      problem.excluded_device_ns += time;
      screen.time.excluded_device_ns += time;
    } else {
      problem.excluded_cpu_ns += time;
      screen.time.excluded_cpu_ns += time;
    }
  }

 private:
  // True when event i is a step window's own event; i never decreases between calls.
  bool is_window(std::uint32_t i) {
    while (m_next_window < m_window_events.size() && m_window_events[m_next_window] < i) {
      ++m_next_window;
    }
    return m_next_window < m_window_events.size() && m_window_events[m_next_window] == i;
  }

  const std::string& m_path;
  const RawTrace& m_trace;
  const StepWindows m_steps;
  StepCursor m_cursor;  // events come in file order: mostly in time order
  const TraceRange m_range;
  std::vector<std::uint32_t> m_window_events;  // the step windows' own events, ascending
  std::size_t m_next_window = 0;
};

// The data problem an unusable event was counted as, from its marker (kineto_trace.hpp).
DataProblemKind unusable_kind(Nanoseconds marker) {
  switch (marker) {
  case k_unusable_unfinished:
    return DataProblemKind::unfinished;
  case k_unusable_bad_timestamp:
    return DataProblemKind::bad_timestamp;
  case k_unusable_bad_duration:
    return DataProblemKind::bad_duration;
  case k_unusable_time_out_of_range:
    return DataProblemKind::time_out_of_range;
  default:
    return DataProblemKind::negative_duration;
  }
}

// Counts (never excludes) two patterns of the kept device events: one starting before the previous one on
// its stream (thread) ended, and one carrying a correlation id an earlier device event carries.
void count_device_patterns(const std::string& path, const RawTrace& trace, EventScreen& screen) {
  std::vector<std::uint32_t> device;
  for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
    if (trace.events[i].kind == EventKind::device) {
      device.push_back(i);
    }
  }
  if (device.empty()) {
    return;
  }
  // (correlation, event) sorted: 8 bytes per device event, no hash table on a trace of millions of kernels.
  std::vector<std::pair<IdCode, std::uint32_t>> correlations;
  for (const std::uint32_t i : device) {
    if (trace.events[i].has_correlation) {
      correlations.emplace_back(trace.events[i].correlation, i);
    }
  }
  std::sort(correlations.begin(), correlations.end());
  for (std::size_t k = 1; k < correlations.size(); ++k) {
    if (correlations[k].first == correlations[k - 1].first) {  // a later event (file order) with the same id
      const std::uint32_t i = correlations[k].second;
      count_data_problem(screen.problems, DataProblemKind::shared_correlation, path, end_byte(trace, i),
                         event_example(trace, trace.events[i]));
    }
  }
  std::vector<std::pair<IdCode, std::uint32_t>>().swap(correlations);
  std::stable_sort(device.begin(), device.end(), [&](std::uint32_t a, std::uint32_t b) {
    const TraceEvent &x = trace.events[a], &y = trace.events[b];
    return x.thread != y.thread ? x.thread < y.thread : x.ts_ns < y.ts_ns;
  });
  std::uint32_t thread = trace.events[device.front()].thread;
  Nanoseconds end = std::numeric_limits<Nanoseconds>::min();
  for (const std::uint32_t i : device) {
    const TraceEvent& event = trace.events[i];
    if (event.thread != thread) {
      thread = event.thread;
      end = std::numeric_limits<Nanoseconds>::min();
    }
    if (event.ts_ns < end) {
      count_data_problem(screen.problems, DataProblemKind::overlapping_device_events, path, end_byte(trace, i),
                         event_example(trace, event));
    }
    end = std::max(end, event.ts_ns + event.dur_ns);
  }
}

// Per name of an excluded zero-duration event (a placeholder: a kernel stamped at ts 0 with dur 0 stands for
// one that ran), the median dur of the kept events of that name: the time it stood for, so a step that lost
// its kernel to a placeholder weighs in the excluded share (issue 38 item 2). Names without a kept event of
// dur > 0 are left out (their placeholders carry 0).
std::unordered_map<std::uint32_t, Nanoseconds> placeholder_estimates(const RawTrace& trace,
                                                                     const std::vector<std::uint8_t>& codes) {
  std::unordered_map<std::uint32_t, std::vector<Nanoseconds>> durations;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    if (excluded(codes[i]) && trace.events[i].dur_ns == 0) {
      durations.emplace(trace.name_id(trace.events[i]), std::vector<Nanoseconds>());
    }
  }
  if (durations.empty()) {
    return {};
  }
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    if (!excluded(codes[i]) && trace.events[i].dur_ns > 0) {
      if (auto it = durations.find(trace.name_id(trace.events[i])); it != durations.end()) {
        it->second.push_back(trace.events[i].dur_ns);
      }
    }
  }
  std::unordered_map<std::uint32_t, Nanoseconds> estimates;
  for (auto& [name, values] : durations) {
    if (!values.empty()) {
      std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
      estimates[name] = values[values.size() / 2];
    }
  }
  return estimates;
}

// Estimates the time unusable events (unfinished, negative dur, malformed ts or dur) carried: the median dur
// of the kept events of the same name (0 when there is none), added to their problems in trace.problems and
// to the totals.
void estimate_unusable_time(RawTrace& trace, EventScreen& screen) {
  if (trace.unusable.empty()) {
    return;
  }
  std::unordered_map<std::uint32_t, std::vector<Nanoseconds>> durations;
  for (const TraceEvent& event : trace.unusable) {
    durations.emplace(trace.name_id(event), std::vector<Nanoseconds>());
  }
  for (const TraceEvent& event : trace.events) {
    if (auto it = durations.find(trace.name_id(event)); it != durations.end()) {
      it->second.push_back(event.dur_ns);
    }
  }
  for (auto& [name, values] : durations) {
    std::sort(values.begin(), values.end());
  }
  for (const TraceEvent& event : trace.unusable) {
    const std::vector<Nanoseconds>& values = durations[trace.name_id(event)];
    const Nanoseconds estimate = values.empty() ? 0 : values[values.size() / 2];
    const bool device = event.kind == EventKind::device;
    const DataProblemKind kind = unusable_kind(event.dur_ns);
    for (DataProblem& problem : trace.problems) {
      if (problem.kind == kind) {
        (device ? problem.excluded_device_ns : problem.excluded_cpu_ns) += estimate;
      }
    }
    (device ? screen.time.excluded_device_ns : screen.time.excluded_cpu_ns) += estimate;
  }
}

}  // namespace

std::string event_example(const RawTrace& trace, const TraceEvent& event) {
  const std::string& name = trace.names[trace.name_id(event)];
  return (name.size() > 60 ? name.substr(0, 60) + "…" : name) + " \"ts\": " + micros(event.ts_ns) +
         ", \"dur\": " + micros(event.dur_ns);
}

EventScreen screen_events(const std::string& path, RawTrace& trace) {
  EventScreen screen;
  std::vector<std::uint8_t> codes(trace.events.size(), k_kept);
  bool any_excluded = false;
  {
    Screen classes(path, trace);
    std::size_t candidate_count = 0;
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
      if (const std::optional<DataProblemKind> kind = classes.classify(i)) {
        codes[i] = code_of(*kind);
      } else if (classes.may_repeat(i)) {
        codes[i] = k_candidate;
        ++candidate_count;
      }
    }
    mark_duplicates(trace, candidate_count, codes);
    const std::unordered_map<std::uint32_t, Nanoseconds> placeholder_time = placeholder_estimates(trace, codes);
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
      if (excluded(codes[i])) {
        const TraceEvent& event = trace.events[i];
        const auto estimate = event.dur_ns == 0 ? placeholder_time.find(trace.name_id(event)) : placeholder_time.end();
        classes.exclude(i, kind_of(codes[i]), estimate == placeholder_time.end() ? event.dur_ns : estimate->second,
                        screen);
        screen.excluded.push_back(trace.events[i]);
        any_excluded = true;
      }
    }
  }
  screen_missing_device_events(path, trace, screen);
  estimate_unusable_time(trace, screen);
  if (any_excluded) {
    remove_events(trace, [&codes](std::uint32_t i) { return excluded(codes[i]); });
  }
  count_device_patterns(path, trace, screen);
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
  StepCursor cursor(steps);
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if (!is_cpu_side(event.kind) ||
        (steps.may_be_window(event) && steps.is_window_event(static_cast<std::uint32_t>(i)))) {
      continue;
    }
    const std::uint32_t step = cursor.at(trace.threads[event.thread].process, event.ts_ns);
    if (step != k_no_event) {
      counts[step] += 1.0;
    }
  }
  return counts;
}

}  // namespace

std::vector<std::uint32_t> cut_off_steps(const RawTrace& trace, const StepWindows& steps) {
  const bool any = std::any_of(steps.by_process().begin(), steps.by_process().end(),
                               [](const std::vector<std::uint32_t>& own) { return own.size() >= 2; });
  return any ? cut_off_steps(steps, events_per_step(trace, steps)) : std::vector<std::uint32_t>();
}

std::vector<std::uint32_t> cut_off_steps(const StepWindows& steps, const std::vector<double>& counts) {
  std::vector<std::uint32_t> cut;
  std::vector<double> durations, events;
  for (const std::vector<std::uint32_t>& own : steps.by_process()) {
    if (own.size() < 2) {
      continue;
    }
    durations.clear();
    events.clear();
    for (std::size_t s = 0; s + 1 < own.size(); ++s) {
      durations.push_back(static_cast<double>(steps.windows()[own[s]].end - steps.windows()[own[s]].start));
      events.push_back(counts[own[s]]);
    }
    const StepWindow& last = steps.windows()[own.back()];
    if (static_cast<double>(last.end - last.start) < k_cut_off_step_share * median_of(durations) &&
        counts[own.back()] <= k_cut_off_step_share * median_of(events)) {
      cut.push_back(own.back());
    }
  }
  return cut;
}

}  // namespace neuron_gate
