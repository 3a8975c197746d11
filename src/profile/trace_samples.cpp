#include "profile/trace_samples.hpp"

#include "profile/byte_source.hpp"
#include "profile/device_attribution.hpp"
#include "profile/kineto_trace.hpp"
#include "profile/self_time.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace neuron_gate {

namespace {

constexpr std::string_view k_step_prefix = "ProfilerStep#";

bool is_step_name(const std::string& name) { return name.rfind(k_step_prefix, 0) == 0; }

// Op keys: PyTorch's row names (ProfilerStep#N -> ProfilerStep*), plus the shapes when by_shape.
class OpKeys {
public:
  OpKeys(const RawTrace& trace, bool by_shape) : m_trace(trace), m_by_shape(by_shape) {
    m_name_row.resize(trace.names.size());
    std::unordered_map<std::string, std::uint32_t> rows;
    for (std::size_t i = 0; i < trace.names.size(); ++i) {
      const std::string& name = is_step_name(trace.names[i]) ? k_steps_row : trace.names[i];
      const auto [found, inserted] = rows.emplace(name, static_cast<std::uint32_t>(m_row_names.size()));
      if (inserted) {
        m_row_names.push_back(name);
      }
      m_name_row[i] = found->second;
    }
  }

  // Dense key index of an event's row.
  std::uint32_t key(const TraceEvent& event) {
    const std::uint32_t row = m_name_row[event.name_id];
    const std::uint32_t shapes = m_by_shape ? event.shapes_id : 0;
    const std::uint64_t packed = (static_cast<std::uint64_t>(row) << 32) | shapes;
    const auto [found, inserted] = m_keys.emplace(packed, static_cast<std::uint32_t>(m_key_parts.size()));
    if (inserted) {
      m_key_parts.push_back({row, shapes});
    }
    return found->second;
  }

  // The row name of an event ("ProfilerStep*" for ProfilerStep#N).
  const std::string& row_name(const TraceEvent& event) const { return m_row_names[m_name_row[event.name_id]]; }

  // "name", or with by_shape and recorded shapes "name <Input Dims> <Input type>" (see trace_samples.hpp).
  std::string text(std::uint32_t key) const {
    const auto [row, shapes] = m_key_parts[key];
    std::string text = m_row_names[row];
    if (shapes != 0) {
      const ShapeText& shape = m_trace.shapes[shapes];
      text += ' ';
      text += shape.dims.empty() ? "[]" : shape.dims;
      if (!shape.types.empty()) {
        text += ' ';
        text += shape.types;
      }
    }
    return text;
  }

  std::size_t size() const { return m_key_parts.size(); }

private:
  inline static const std::string k_steps_row = "ProfilerStep*";
  const RawTrace& m_trace;
  bool m_by_shape;
  std::vector<std::uint32_t> m_name_row;
  std::vector<std::string> m_row_names;
  std::unordered_map<std::uint64_t, std::uint32_t> m_keys;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_key_parts;  // (row, shapes id)
};

struct StepWindow {
  std::uint32_t event;
  std::uint32_t process;
  Nanoseconds start;
  Nanoseconds end;
};

// The ProfilerStep#N windows of each process; an instant belongs to the latest-starting window of
// its process if that window holds it ([start, end)). Windows of one process follow each other.
class StepWindows {
public:
  explicit StepWindows(const RawTrace& trace) {
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

  const std::vector<StepWindow>& windows() const { return m_windows; }
  bool empty() const { return m_windows.empty(); }

  // Step index of a CPU-side event: its own step for a ProfilerStep event, else by its start.
  std::uint32_t of_event(std::uint32_t event, std::uint32_t process, Nanoseconds start) const {
    const auto own = m_step_of_event.find(event);
    if (own != m_step_of_event.end()) {
      return own->second;
    }
    return at(process, start);
  }

  // Step of `process` holding the instant `ts`, or k_no_event.
  std::uint32_t at(std::uint32_t process, Nanoseconds ts) const { return find(m_by_process[process], ts); }

  // Step of any process holding `ts` (for device time without a launch), or k_no_event.
  std::uint32_t any(Nanoseconds ts) const { return find(m_all, ts); }

private:
  std::uint32_t find(const std::vector<std::uint32_t>& steps, Nanoseconds ts) const {
    const auto after = std::upper_bound(steps.begin(), steps.end(), ts,
                                        [&](Nanoseconds t, std::uint32_t s) { return t < m_windows[s].start; });
    if (after == steps.begin() || ts >= m_windows[*(after - 1)].end) {
      return k_no_event;
    }
    return *(after - 1);
  }

  std::vector<StepWindow> m_windows;
  std::vector<std::vector<std::uint32_t>> m_by_process;
  std::vector<std::uint32_t> m_all;
  std::unordered_map<std::uint32_t, std::uint32_t> m_step_of_event;
};

struct StepTotals {
  std::unordered_map<std::uint32_t, OpValues> ops;         // by op key
  std::unordered_map<std::uint32_t, Nanoseconds> kernels;  // by name id
  Nanoseconds unattributed_device_ns = 0;
  std::unordered_map<std::uint16_t, Nanoseconds> unattributed_by_category;  // by category id
};

TraceSamples build_samples(const std::string& path, const RawTrace& trace, const TraceReadOptions& options) {
  const std::vector<TraceEvent>& events = trace.events;
  const CpuNesting nesting = nest_cpu_events(events, trace.threads.size());
  const std::vector<DeviceLaunch> launches = attribute_device_events(trace, nesting);
  OpKeys keys(trace, options.by_shape);
  const StepWindows steps(trace);

  TraceSamples samples;
  samples.path = path;
  samples.format = trace.format;
  samples.event_count = trace.event_count;
  samples.metadata = trace.metadata;
  samples.has_profiler_steps = !steps.empty();
  samples.problems.unfinished_events = trace.unfinished_events;
  samples.problems.negative_duration_events = trace.negative_duration_events;
  samples.problems.malformed_events = trace.malformed_events;
  samples.problems.listed = trace.problems;
  samples.problems.malformed_by_op = trace.malformed_by_op;

  // Totals per step; the last slot holds the events outside every step.
  const std::size_t step_count = steps.empty() ? 1 : steps.windows().size();
  std::vector<StepTotals> totals(step_count + 1);
  const auto slot = [&](std::uint32_t step) -> StepTotals& {
    if (steps.empty()) {
      return totals[0];
    }
    return step == k_no_event ? totals[step_count] : totals[step];
  };

  std::unordered_map<std::uint32_t, Nanoseconds> most_negative;  // op key -> most negative self time
  std::unordered_map<std::uint64_t, std::uint32_t> row_shapes;  // (name, shapes) pair -> an event with them
  std::vector<char> category_seen(trace.categories.size());
  Nanoseconds first_start = 0;
  Nanoseconds last_end = 0;
  bool any_timed = false;

  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& event = events[i];
    category_seen[event.category] = 1;
    if (event.kind == EventKind::ignored) {
      continue;
    }
    if (!any_timed || event.ts_ns < first_start) {
      first_start = event.ts_ns;
    }
    if (!any_timed || event.ts_ns + event.dur_ns > last_end) {
      last_end = event.ts_ns + event.dur_ns;
    }
    any_timed = true;
    if (!is_cpu_side(event.kind)) {
      continue;
    }
    const std::uint32_t process = trace.threads[event.thread].process;
    const std::uint32_t step = steps.of_event(static_cast<std::uint32_t>(i), process, event.ts_ns);
    const std::uint32_t key = keys.key(event);
    OpValues& values = slot(step).ops[key];
    const Nanoseconds self = nesting.self_ns[i];
    values.self_cpu_ns += self;
    ++values.calls;
    if (self < 0) {
      const auto [found, inserted] = most_negative.emplace(key, self);
      if (!inserted) {
        found->second = std::min(found->second, self);
      }
    }
    if (event.shapes_id != 0 && !trace.shapes[event.shapes_id].dims.empty()) {
      row_shapes.emplace((static_cast<std::uint64_t>(event.name_id) << 32) | event.shapes_id,
                         static_cast<std::uint32_t>(i));
    }
  }

  for (const DeviceLaunch& launch : launches) {
    const TraceEvent& event = events[launch.event];
    samples.has_device_events = true;
    const std::uint32_t step = launch.link != LaunchLink::none
                                   ? steps.at(trace.threads[launch.launch_thread].process, launch.launch_ts_ns)
                                   : steps.any(event.ts_ns);
    StepTotals& target = slot(step);
    target.kernels[event.name_id] += event.dur_ns;
    if (launch.op != k_no_event) {
      target.ops[keys.key(events[launch.op])].device_ns += event.dur_ns;
    } else {
      target.unattributed_device_ns += event.dur_ns;
      target.unattributed_by_category[event.category] += event.dur_ns;
    }
  }

  const auto fill = [&](StepSample& sample, const StepTotals& step_totals) {
    for (const auto& [key, values] : step_totals.ops) {
      OpValues& total = sample.ops[keys.text(key)];
      total.self_cpu_ns += values.self_cpu_ns;
      total.device_ns += values.device_ns;
      total.calls += values.calls;
    }
    for (const auto& [name, ns] : step_totals.kernels) {
      sample.device_kernels[trace.names[name]] += ns;
    }
    sample.unattributed_device_ns = step_totals.unattributed_device_ns;
    for (const auto& [category, ns] : step_totals.unattributed_by_category) {
      sample.unattributed_by_category[trace.categories[category].empty() ? "no category" : trace.categories[category]] +=
          ns;
    }
  };

  if (steps.empty()) {
    StepSample whole;
    whole.name = "whole trace";
    whole.start_ns = first_start;
    whole.duration_ns = last_end - first_start;
    fill(whole, totals[0]);
    samples.steps.push_back(std::move(whole));
  } else {
    for (std::size_t s = 0; s < step_count; ++s) {
      const StepWindow& window = steps.windows()[s];
      StepSample sample;
      sample.name = trace.names[events[window.event].name_id];
      sample.start_ns = window.start;
      sample.duration_ns = window.end - window.start;
      fill(sample, totals[s]);
      samples.steps.push_back(std::move(sample));
    }
  }
  samples.outside_steps.name = "outside steps";
  fill(samples.outside_steps, totals[step_count]);

  for (std::size_t c = 0; c < category_seen.size(); ++c) {
    if (category_seen[c] != 0) {
      samples.categories.insert(trace.categories[c]);
    }
  }
  for (const auto& [pair, event] : row_shapes) {
    samples.input_shapes[keys.row_name(events[event])].insert(trace.shapes[events[event].shapes_id].dims);
  }
  for (const auto& [key, self] : most_negative) {
    const std::string text = keys.text(key);
    const auto [found, inserted] = samples.problems.negative_self_time.emplace(text, self);
    if (!inserted) {
      found->second = std::min(found->second, self);
    }
  }
  return samples;
}

} // namespace

TraceSamples read_trace_samples(ByteSource& source, const TraceReadOptions& options) {
  const RawTrace trace = read_kineto_trace(source);
  return build_samples(source.path(), trace, options);
}

TraceSamples read_trace_samples(const std::string& path, const TraceReadOptions& options) {
  ByteSource source(path);
  return read_trace_samples(source, options);
}

} // namespace neuron_gate
