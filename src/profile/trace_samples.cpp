#include "profile/trace_samples.hpp"

#include "formats/kineto_trace.hpp"
#include "input/byte_source.hpp"
#include "profile/device_attribution.hpp"
#include "profile/event_screen.hpp"
#include "profile/op_totals.hpp"
#include "profile/self_time.hpp"
#include "profile/step_windows.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace neuron_gate {

namespace {

// Op keys: PyTorch's row names (ProfilerStep#N -> ProfilerStep*), plus the shapes when by_shape.
class OpKeys {
 public:
  OpKeys(const RawTrace& trace, bool by_shape) : m_trace(trace), m_by_shape(by_shape) {
    m_name_row.resize(trace.names.size());
    std::unordered_map<std::string_view, std::uint32_t> rows;
    for (std::size_t i = 0; i < trace.names.size(); ++i) {
      const std::string_view name = is_step_name(trace.names[i]) ? k_steps_row : std::string_view(trace.names[i]);
      const auto [found, inserted] = rows.emplace(name, static_cast<std::uint32_t>(m_row_names.size()));
      if (inserted) {
        m_row_names.push_back(name);
      }
      m_name_row[i] = found->second;
    }
    m_row_last_key.assign(m_row_names.size(), k_no_key);
  }

  // Dense key index of an event's row.
  std::uint32_t key(const TraceEvent& event) {
    const EventKey& event_key = m_trace.key(event);
    const std::uint32_t row = m_name_row[event_key.name_id];
    const std::uint32_t shapes = m_by_shape ? event_key.shapes_id : 0;
    std::uint32_t& last = m_row_last_key[row];  // a row's events mostly have the shapes of the one before
    if (last != k_no_key && m_key_parts[last].second == shapes) {
      return last;
    }
    if (!m_by_shape) {  // one key a row: `last` is the row's key once made (no map of every key)
      m_key_parts.push_back({row, 0});
      last = static_cast<std::uint32_t>(m_key_parts.size() - 1);
      return last;
    }
    const std::uint64_t packed = (static_cast<std::uint64_t>(row) << 32) | shapes;
    const auto [found, inserted] = m_keys.emplace(packed, static_cast<std::uint32_t>(m_key_parts.size()));
    if (inserted) {
      m_key_parts.push_back({row, shapes});
    }
    last = found->second;
    return last;
  }

  // The row name of an event ("ProfilerStep*" for ProfilerStep#N).
  std::string_view row_name(std::uint32_t name_id) const { return m_row_names[m_name_row[name_id]]; }

  // "name", or with by_shape and recorded shapes "name <Input Dims> <Input type>" (see trace_samples.hpp).
  std::string text(std::uint32_t key) const {
    const auto [row, shapes] = m_key_parts[key];
    std::string text(m_row_names[row]);
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
  static constexpr std::string_view k_steps_row = "ProfilerStep*";
  const RawTrace& m_trace;
  bool m_by_shape;
  std::vector<std::uint32_t> m_name_row;
  std::vector<std::string_view> m_row_names;  // views of m_trace.names (which outlive the keys) or k_steps_row
  static constexpr std::uint32_t k_no_key = 0xffffffff;
  std::unordered_map<std::uint64_t, std::uint32_t> m_keys;           // (row, shapes id) -> key; by_shape only
  std::vector<std::uint32_t> m_row_last_key;                         // by row: the key its last event had
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_key_parts;  // (row, shapes id)
};

// What a step slot holds besides its ops.
struct StepTotals {
  std::unordered_map<std::uint32_t, Nanoseconds> kernels;  // by name id
  Nanoseconds unattributed_device_ns = 0;
  std::unordered_map<std::uint16_t, Nanoseconds> unattributed_by_category;  // by category id
};

// Makes the samples of one screened trace: nests CPU events, attributes device events, sums per step.
class SampleBuilder {
 public:
  // `trace`'s events and the nesting are released once the per-step totals are made, before the samples'
  // steps are built (the step windows' end bytes are kept for examples).
  SampleBuilder(const std::string& path, RawTrace& trace, const TraceReadOptions& options)
      : m_path(path), m_trace(trace), m_keys(trace, options.by_shape), m_steps(trace), m_cursor(m_steps),
        m_events_in_step(m_steps.windows().size()), m_step_count(m_steps.empty() ? 1 : m_steps.windows().size()),
        m_window_end_bytes(take_window_end_bytes(trace, m_steps)), m_totals(m_step_count + 1),
        m_ops(m_step_count + 1, count_keys(), trace.events.size()), m_category_seen(trace.categories.size()) {}

  TraceSamples build(EventScreen screen) {
    TraceSamples samples = header();
    add_event_extent();
    m_nesting = nest_cpu_events(
        m_trace.events, m_trace.threads.size(),
        [this](std::uint32_t event, Nanoseconds self_ns) { add_cpu_event(event, self_ns); }, any_device(screen));
    add_device_events(samples);
    record_screened(samples, screen.excluded, Screened::excluded);
    record_screened(samples, m_trace.unusable, Screened::unusable);
    record_screened(samples, screen.missing_device, Screened::missing);
    add_runtime_calls(samples);
    finish(samples);
    release_events();
    add_steps(samples, screen);
    samples.problems.listed.insert(samples.problems.listed.end(), screen.problems.begin(), screen.problems.end());
    samples.screened = screen.time;
    for (const StepSample* step : all_steps_of(samples)) {
      samples.screened.kept_device_ns += step->unattributed_device_ns;
      for (const auto& [name, values] : step->ops) {
        samples.screened.kept_cpu_ns += values.self_cpu_ns;
        samples.screened.kept_device_ns += values.device_ns;
      }
    }
    return samples;
  }

 private:
  // The end byte of each step window's event (for examples).
  static std::vector<std::uint64_t> take_window_end_bytes(const RawTrace& trace, const StepWindows& steps) {
    std::vector<std::uint64_t> bytes;
    for (const StepWindow& window : steps.windows()) {
      bytes.push_back(end_byte(trace, window.event));
    }
    return bytes;
  }

  // True when a device event is to be attributed (kept, screened, unusable or a stand-in): only then are the
  // nesting's links (parents, the order by thread) used after the self times are made.
  bool any_device(const EventScreen& screen) const {
    const auto device = [](const TraceEvent& event) { return event.kind == EventKind::device; };
    return std::any_of(m_trace.events.begin(), m_trace.events.end(), device) ||
           std::any_of(screen.excluded.begin(), screen.excluded.end(), device) ||
           std::any_of(m_trace.unusable.begin(), m_trace.unusable.end(), device) ||
           std::any_of(screen.missing_device.begin(), screen.missing_device.end(), device);
  }

  // The op keys of the runtime calls (TraceSamples::runtime_calls).
  void add_runtime_calls(TraceSamples& samples) {
    std::vector<bool> seen(m_trace.names.size(), false);
    for (const TraceEvent& event : m_trace.events) {
      if (event.kind == EventKind::runtime && !seen[m_trace.name_id(event)]) {
        seen[m_trace.name_id(event)] = true;
        samples.runtime_calls.insert(m_keys.text(m_keys.key(event)));
      }
    }
  }

  // Interns the key of every summed CPU-side event (in file order, as add_cpu_events meets them) and returns
  // the number of keys, which sizes the totals.
  std::size_t count_keys() {
    for (const TraceEvent& event : m_trace.events) {
      if (event.kind != EventKind::ignored && is_cpu_side(event.kind)) {
        m_keys.key(event);
      }
    }
    return m_keys.size();
  }

  // What add_steps needs of the step windows' own events, then the events and the nesting freed: from here
  // on only the totals (by op key) and the interned names are used.
  void release_events() {
    for (const StepWindow& window : m_steps.windows()) {
      m_window_names.push_back(m_trace.name_id(m_trace.events[window.event]));
    }
    std::vector<TraceEvent>().swap(m_trace.events);
    m_nesting = CpuNesting();
    if (!m_steps.empty()) {
      m_cut = cut_off_steps(m_steps, m_events_in_step);  // after the events are freed: it sorts copies
      std::vector<double>().swap(m_events_in_step);
    }
  }

  static std::vector<StepSample*> all_steps_of(TraceSamples& samples) {
    std::vector<StepSample*> steps;
    for (StepSample& step : samples.steps) {
      steps.push_back(&step);
    }
    steps.push_back(&samples.outside_steps);
    return steps;
  }

  TraceSamples header() const {
    TraceSamples samples;
    samples.path = m_path;
    samples.format = m_trace.format;
    samples.event_count = m_trace.event_count;
    samples.metadata = m_trace.metadata;
    samples.has_profiler_steps = !m_steps.empty();
    samples.problems.unfinished_events = m_trace.unfinished_events;
    samples.problems.negative_duration_events = m_trace.negative_duration_events;
    samples.problems.malformed_events = m_trace.malformed_events;
    samples.problems.listed = m_trace.problems;
    samples.problems.malformed_by_op = m_trace.malformed_by_op;
    return samples;
  }

  // Slot of a step; the last slot holds the events outside every step.
  std::size_t slot(std::uint32_t step) const {
    if (m_steps.empty()) {
      return 0;
    }
    return step == k_no_event ? m_step_count : step;
  }

  // The categories met and the first start and last end of the timed (not ignored) events.
  void add_event_extent() {
    for (const TraceEvent& event : m_trace.events) {
      m_category_seen[m_trace.key(event).category] = 1;
      if (event.kind == EventKind::ignored) {
        continue;
      }
      m_first_start = m_any_timed ? std::min(m_first_start, event.ts_ns) : event.ts_ns;
      m_last_end = m_any_timed ? std::max(m_last_end, event.ts_ns + event.dur_ns) : event.ts_ns + event.dur_ns;
      m_any_timed = true;
    }
  }

  // One CPU-side event with its self time (as nest_cpu_events hands it over, in nesting order: sums, minima
  // and sets, so the order changes nothing) into its step's op.
  void add_cpu_event(std::uint32_t index, Nanoseconds self) {
    const TraceEvent& event = m_trace.events[index];
    const std::uint32_t process = m_trace.threads[event.thread].process;
    std::uint32_t step = m_steps.may_be_window(event) ? m_steps.own_step(index) : k_no_event;
    if (step == k_no_event) {
      step = m_cursor.at(process, event.ts_ns);
      if (step != k_no_event) {
        m_events_in_step[step] += 1.0;  // for cut_off_steps
      }
    }
    const std::uint32_t key = m_keys.key(event);
    m_ops.add_call(slot(step), key, self);
    if (self < 0) {
      const auto [found, inserted] = m_most_negative.emplace(key, self);
      if (!inserted) {
        found->second = std::min(found->second, self);
      }
    }
    const EventKey& event_key = m_trace.key(event);
    if (event_key.shapes_id != 0 && !m_trace.shapes[event_key.shapes_id].dims.empty()) {
      m_row_shapes.insert((static_cast<std::uint64_t>(event_key.name_id) << 32) | event_key.shapes_id);
    }
  }

  void add_device_events(TraceSamples& samples) {
    const std::vector<TraceEvent>& events = m_trace.events;
    for (const DeviceLaunch& launch : attribute_device_events(m_trace, m_nesting)) {
      const TraceEvent& event = events[launch.event];
      samples.has_device_events = true;
      const std::uint32_t step = launch.link != LaunchLink::none
                                     ? m_cursor.at(m_trace.threads[launch.launch_thread].process, launch.launch_ts_ns)
                                     : m_cursor.any(event.ts_ns);
      std::unique_ptr<StepTotals>& totals = m_totals[slot(step)];
      if (!totals) {
        totals = std::make_unique<StepTotals>();
      }
      StepTotals& target = *totals;
      target.kernels[m_trace.name_id(event)] += event.dur_ns;
      if (launch.op != k_no_event) {
        m_ops.add_device(slot(step), m_keys.key(events[launch.op]), event.dur_ns);
      } else {
        target.unattributed_device_ns += event.dur_ns;
        target.unattributed_by_category[m_trace.key(event).category] += event.dur_ns;
      }
    }
  }

  // Names what the screen excluded (screened_ops, screened_unattributed, steps_screened): CPU-side
  // events by their op key, device events by the op the attribution rules give them.
  // How the events given to record_screened were screened.
  enum class Screened { excluded, unusable, missing };

  void record_screened(TraceSamples& samples, const std::vector<TraceEvent>& events, Screened how) {
    const bool unusable = how == Screened::unusable, missing = how == Screened::missing;
    const std::vector<std::uint32_t> ops = attribute_other_device_events(m_trace, m_nesting, events);
    for (std::size_t i = 0; i < events.size(); ++i) {
      const TraceEvent& event = events[i];
      if (event.kind == EventKind::device) {
        if (ops[i] != k_no_event) {
          ScreenedOp& op = samples.screened_ops[m_keys.text(m_keys.key(m_trace.events[ops[i]]))];
          ++op.device_events;
          op.missing_device_events += missing ? 1 : 0;
        } else {
          const std::string& category = m_trace.categories[m_trace.key(event).category];
          ++samples.screened_unattributed[category.empty() ? "no category" : category];
        }
      } else if (is_cpu_side(event.kind)) {
        if (is_step_name(m_trace.names[m_trace.name_id(event)])) {
          samples.steps_screened = true;
        }
        ScreenedOp& op = samples.screened_ops[m_keys.text(m_keys.key(event))];
        ++op.cpu_events;
        op.unusable_cpu_events += unusable ? 1 : 0;
      }
    }
  }

  // A cut-off step's ops, in the classes they had time or calls in, and its unattributed device time.
  void record_cut_off(TraceSamples& samples, const StepSample& step) const {
    samples.steps_screened = true;
    for (const auto& [key, values] : step.ops) {
      if (values.self_cpu_ns != 0 || values.calls != 0) {
        ++samples.screened_ops[m_keys.text(key)].cpu_events;
      }
      if (values.device_ns != 0) {
        ++samples.screened_ops[m_keys.text(key)].device_events;
      }
    }
    for (const auto& [category, ns] : step.unattributed_by_category) {
      ++samples.screened_unattributed[category];
    }
  }

  // A slot's totals into its sample (ops by op key index until set_op_keys) and freed.
  void fill(StepSample& sample, std::size_t slot) {
    sample.ops = m_ops.take(slot);
    const std::unique_ptr<StepTotals> taken = std::move(m_totals[slot]);
    static const StepTotals k_none;
    const StepTotals& step_totals = taken ? *taken : k_none;
    for (const auto& [name, ns] : step_totals.kernels) {
      sample.device_kernels[m_trace.names[name]] += ns;
    }
    sample.unattributed_device_ns = step_totals.unattributed_device_ns;
    for (const auto& [category, ns] : step_totals.unattributed_by_category) {
      const std::string& text = m_trace.categories[category];
      sample.unattributed_by_category[text.empty() ? "no category" : text] += ns;
    }
  }

  // The steps as samples; a last step cut off when the profiler stopped is excluded with its time.
  void add_steps(TraceSamples& samples, EventScreen& screen) {
    if (m_steps.empty()) {
      StepSample whole;
      whole.name = "whole trace";
      whole.start_ns = m_first_start;
      whole.duration_ns = m_last_end - m_first_start;
      fill(whole, 0);
      samples.steps.push_back(std::move(whole));
    } else {
      samples.steps.reserve(m_step_count);  // no moves of the samples made so far as it grows
      for (std::size_t s = 0; s < m_step_count; ++s) {
        const StepWindow& window = m_steps.windows()[s];
        StepSample sample;
        sample.name = m_trace.names[m_window_names[s]];
        sample.start_ns = window.start;
        sample.duration_ns = window.end - window.start;
        fill(sample, s);  // freed as its sample is made
        if (std::find(m_cut.begin(), m_cut.end(), s) != m_cut.end()) {
          record_cut_off(samples, sample);
          exclude_cut_off_step(sample, s, screen);
        } else {
          samples.steps.push_back(std::move(sample));
        }
      }
    }
    samples.outside_steps.name = "outside steps";
    fill(samples.outside_steps, m_step_count);
    set_op_keys(samples);
  }

  // The keys the kept steps hold become samples.op_keys, sorted; the steps' op key indexes become ids into it.
  void set_op_keys(TraceSamples& samples) const {
    std::vector<std::uint32_t> id_of_key(m_keys.size(), k_no_event);
    const std::vector<StepSample*> steps = all_steps_of(samples);
    for (const StepSample* step : steps) {
      for (const OpSample& op : step->ops) {
        id_of_key[op.op] = 0;
      }
    }
    std::vector<std::pair<std::string, std::uint32_t>> keys;  // (text, key index)
    for (std::uint32_t key = 0; key < id_of_key.size(); ++key) {
      if (id_of_key[key] != k_no_event) {
        keys.emplace_back(m_keys.text(key), key);
      }
    }
    std::sort(keys.begin(), keys.end());
    samples.op_keys.reserve(keys.size());
    for (auto& [text, key] : keys) {
      id_of_key[key] = static_cast<std::uint32_t>(samples.op_keys.size());
      samples.op_keys.push_back(std::move(text));
    }
    for (StepSample* step : steps) {
      for (OpSample& op : step->ops) {
        op.op = id_of_key[op.op];
      }
      const auto by_op = [](const OpSample& a, const OpSample& b) { return a.op < b.op; };
      if (!std::is_sorted(step->ops.begin(), step->ops.end(), by_op)) {  // keys met in name order: already sorted
        std::sort(step->ops.begin(), step->ops.end(), by_op);
      }
    }
  }

  void exclude_cut_off_step(const StepSample& sample, std::size_t step, EventScreen& screen) const {
    const StepWindow& window = m_steps.windows()[step];
    std::vector<Nanoseconds> others;
    for (const StepWindow& w : m_steps.windows()) {
      if (w.process == window.process && w.event != window.event) {
        others.push_back(w.end - w.start);
      }
    }
    std::sort(others.begin(), others.end());
    const Nanoseconds median = others[others.size() / 2];  // upper median, for the example only
    char text[128];
    std::snprintf(text, sizeof text, ": %.3f ms, its process's other steps about %.3f ms",
                  static_cast<double>(sample.duration_ns) / 1e6, static_cast<double>(median) / 1e6);
    DataProblem& problem = count_data_problem(screen.problems, DataProblemKind::cut_off_step, m_path,
                                              m_window_end_bytes[step], sample.name + text);
    problem.excluded_device_ns += sample.unattributed_device_ns;
    screen.time.excluded_device_ns += sample.unattributed_device_ns;
    for (const auto& [name, values] : sample.ops) {
      problem.excluded_cpu_ns += values.self_cpu_ns;
      problem.excluded_device_ns += values.device_ns;
      screen.time.excluded_cpu_ns += values.self_cpu_ns;
      screen.time.excluded_device_ns += values.device_ns;
    }
  }

  void finish(TraceSamples& samples) const {
    for (std::size_t c = 0; c < m_category_seen.size(); ++c) {
      if (m_category_seen[c] != 0) {
        samples.categories.insert(m_trace.categories[c]);
      }
    }
    for (const std::uint64_t pair : m_row_shapes) {
      const auto name_id = static_cast<std::uint32_t>(pair >> 32);
      const auto shapes_id = static_cast<std::uint32_t>(pair & 0xFFFFFFFFu);
      samples.input_shapes[std::string(m_keys.row_name(name_id))].insert(m_trace.shapes[shapes_id].dims);
    }
    for (const auto& [key, self] : m_most_negative) {
      const auto [found, inserted] = samples.problems.negative_self_time.emplace(m_keys.text(key), self);
      if (!inserted) {
        found->second = std::min(found->second, self);
      }
    }
  }

  const std::string& m_path;
  RawTrace& m_trace;
  OpKeys m_keys;
  const StepWindows m_steps;
  StepCursor m_cursor;                   // the step lookups, each from where its process's previous one ended
  std::vector<double> m_events_in_step;  // per window: CPU-side events (not windows) starting in it
  const std::size_t m_step_count;
  std::vector<std::uint64_t> m_window_end_bytes;  // per step window: its event's end byte (for examples)
  CpuNesting m_nesting;
  std::vector<std::unique_ptr<StepTotals>> m_totals;  // by slot; made at its first device event
  OpTotals m_ops;
  std::vector<char> m_category_seen;
  std::unordered_map<std::uint32_t, Nanoseconds> m_most_negative;  // op key -> most negative self time
  std::unordered_set<std::uint64_t> m_row_shapes;                  // (name id << 32 | shapes id) pairs seen
  std::vector<std::uint32_t> m_cut;           // cut-off steps (cut_off_steps()), set by release_events()
  std::vector<std::uint32_t> m_window_names;  // per step window: its event's name id
  Nanoseconds m_first_start = 0;
  Nanoseconds m_last_end = 0;
  bool m_any_timed = false;
};
}  // namespace

TraceSamples read_trace_samples(ByteSource& source, const TraceReadOptions& options) {
  RawTrace trace = read_kineto_trace(source);
  EventScreen screen = screen_events(source.path(), trace);
  return SampleBuilder(source.path(), trace, options).build(std::move(screen));
}

TraceSamples read_trace_samples(const std::string& path, const TraceReadOptions& options) {
  ByteSource source(path);
  return read_trace_samples(source, options);
}

}  // namespace neuron_gate
