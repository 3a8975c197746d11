// The fields of one trace event in the SAX handler (trace_sax.hpp): reading ts, dur, ids and names,
// counting malformed, unfinished and negative-duration events, and storing a complete event.
#include "formats/trace_sax.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <cstring>

namespace neuron_gate::trace_reader {

void TraceSax::begin_event() {
  m_in_event = true;
  m_event_key = Key::other;
  m_ph = '\0';
  m_has_cat = false;
  m_has_name = false;
  m_cat.clear();
  m_name.clear();
  m_pid.clear();
  m_tid.clear();
  m_ts.reset();
  m_dur.reset();
  m_ts_bad = false;
  m_dur_bad = false;
  m_ts_raw.clear();
  m_dur_raw.clear();
  m_ts_raw_integer.reset();
  m_dur_raw_integer.reset();
  m_flow_id.reset();
  m_args_hash = 14695981039346656037ULL;
  m_correlation.reset();
  m_external_id = 0;
  m_has_dims = false;
  m_has_types = false;
  m_arg_name.clear();
  m_arg_labels.clear();
}

bool TraceSax::event_integer(std::int64_t value, std::uint64_t as_unsigned, std::string_view text) {
  switch (m_event_key) {
  case Key::ts:
    m_ts = integer_microseconds_to_ns(value);
    m_ts_bad = !m_ts;
    m_ts_raw_integer = value;
    break;
  case Key::dur:
    m_dur = integer_microseconds_to_ns(value);
    m_dur_bad = !m_dur;
    m_dur_raw_integer = value;
    break;
  case Key::pid:
    m_pid.assign(text);
    break;
  case Key::tid:
    m_tid.assign(text);
    break;
  case Key::id:
    m_flow_id = as_unsigned;
    break;
  default:
    break;
  }
  return true;
}

bool TraceSax::event_text(std::string_view text, bool is_string) {
  switch (m_event_key) {
  case Key::ph:
    m_ph = text.size() == 1 ? text[0] : '?';
    break;
  case Key::cat:
    if (is_string) {
      m_cat.assign(text);
      m_has_cat = true;
    }
    break;
  case Key::name:
    if (is_string) {
      m_name.assign(text);
      m_has_name = true;
    }
    break;
  case Key::pid:
    m_pid.assign(text);
    break;
  case Key::tid:
    m_tid.assign(text);
    break;
  case Key::ts:
    m_ts = decimal_microseconds_to_ns(text);
    m_ts_bad = !m_ts;
    m_ts_raw = is_string ? json_quote(text) : std::string(text);
    break;
  case Key::dur:
    m_dur = decimal_microseconds_to_ns(text);
    m_dur_bad = !m_dur;
    m_dur_raw = is_string ? json_quote(text) : std::string(text);
    break;
  case Key::id:
    m_flow_id = id_from_text(text);
    break;
  default:
    break;
  }
  return true;
}

void TraceSax::note_raw_time(const char* text) {
  if (m_in_event && m_depth == m_event_depth && m_capture_depth == 0) {
    if (m_event_key == Key::ts) {
      m_ts_raw = text;
    } else if (m_event_key == Key::dur) {
      m_dur_raw = text;
    }
  }
}

std::string TraceSax::raw_field(const char* key, const std::string& raw, const std::optional<std::int64_t>& integer) {
  if (!raw.empty()) {
    return std::string("\"") + key + "\": " + raw;
  }
  if (integer) {
    return std::string("\"") + key + "\": " + integer_text(*integer);
  }
  return std::string("no \"") + key + "\"";
}

void TraceSax::count_malformed() {
  ++m_trace.malformed_events;
  constexpr Nanoseconds k_max_ts = Nanoseconds{1} << 62;
  constexpr Nanoseconds k_max_span = Nanoseconds{1} << 60;
  DataProblemKind kind = DataProblemKind::time_out_of_range;
  std::string detail;
  if (!m_has_name) {
    kind = DataProblemKind::missing_name;
    detail = "an event without a name";
  } else if (!m_dur || m_dur_bad || (m_dur_raw_integer && !m_dur)) {
    kind = m_dur_bad && m_dur_raw_integer ? DataProblemKind::time_out_of_range : DataProblemKind::bad_duration;
    detail = raw_field("dur", m_dur_raw, m_dur_raw_integer);
  } else if (!m_ts || m_ts_bad) {
    kind = m_ts_bad && m_ts_raw_integer ? DataProblemKind::time_out_of_range : DataProblemKind::bad_timestamp;
    detail = raw_field("ts", m_ts_raw, m_ts_raw_integer);
  } else if (*m_dur > k_max_span) {
    detail = raw_field("dur", m_dur_raw, m_dur_raw_integer);
  } else if (*m_ts > k_max_ts || *m_ts < -k_max_span) {
    detail = raw_field("ts", m_ts_raw, m_ts_raw_integer);
  }
  if (m_has_name) {
    ++m_trace.malformed_by_op[m_name.size() > m_max_name ? cut_name(m_name, m_max_name) : m_name].malformed;
  }
  const std::string shown_name = m_has_name ? (m_name.size() > 60 ? m_name.substr(0, 60) + "…" : m_name) + " " : "";
  count_data_problem(m_trace.problems, kind, m_path, m_reader.offset(), shown_name + detail);
  if (m_has_name) {
    // Screened like an unfinished event: its op's metrics are marked, its time estimated (event_screen.hpp).
    if (m_name.size() > m_max_name) {
      m_name = cut_name(m_name, m_max_name);
    }
    keep_unusable(kind == DataProblemKind::bad_timestamp  ? k_unusable_bad_timestamp
                  : kind == DataProblemKind::bad_duration ? k_unusable_bad_duration
                                                          : k_unusable_time_out_of_range);
  }
}

void TraceSax::keep_unusable(Nanoseconds marker) {
  TraceEvent event;
  event.ts_ns = marker == k_unusable_unfinished || marker == k_unusable_negative ? m_ts.value_or(0) : 0;
  event.dur_ns = marker;
  event.correlation = id_code(m_correlation.value_or(0));  // the links, so the screen can name the op it was for
  event.has_correlation = m_correlation.has_value();
  event.external_id = id_code(m_external_id);
  event.thread = thread_index() & (k_max_threads - 1);  // < k_max_threads (find_thread)
  event.key_id =
      m_event_keys.intern({m_names.intern(m_name), shapes_index(),
                           static_cast<std::uint16_t>(std::min<std::uint32_t>(m_categories.intern(m_cat), 0xffff))});
  m_trace.unusable.push_back(event);
}

void TraceSax::args_id(std::uint64_t value) {
  if (m_args_key == Key::correlation) {
    m_correlation = value;
  } else if (m_args_key == Key::external_id) {
    m_external_id = value;
  }
}

IdCode TraceSax::id_code(std::uint64_t value) {
  if (value < k_wide_id) {
    return static_cast<IdCode>(value);
  }
  const auto [found, inserted] = m_wide_ids.emplace(value, static_cast<IdCode>(k_wide_id + m_wide_ids.size()));
  if (inserted && m_wide_ids.size() > k_wide_id) {
    throw InputError(m_path, "too many distinct ids of 2^31 or more (more than 2^31)");
  }
  return found->second;
}

std::uint32_t TraceSax::process_index(const std::string& pid) {
  const auto found = m_process_index.find(pid);
  if (found != m_process_index.end()) {
    return found->second;
  }
  const auto index = static_cast<std::uint32_t>(m_trace.processes.size());
  m_trace.processes.push_back({pid, "", ""});
  m_process_index.emplace(pid, index);
  return index;
}

std::uint32_t TraceSax::thread_index() {
  // Events of one thread come in runs: compare with the last one before hashing.
  if (m_last_thread != k_none && m_pid == m_last_pid && m_tid == m_last_tid) {
    return m_last_thread;
  }
  m_last_pid = m_pid;
  m_last_tid = m_tid;
  m_last_thread = find_thread();
  return m_last_thread;
}

std::uint32_t TraceSax::find_thread() {
  m_thread_key.assign(m_pid);
  m_thread_key.push_back('\0');
  m_thread_key.append(m_tid);
  const auto found = m_thread_index.find(m_thread_key);
  if (found != m_thread_index.end()) {
    return found->second;
  }
  const auto index = static_cast<std::uint32_t>(m_trace.threads.size());
  if (index >= k_max_threads) {
    throw InputError(m_path, "too many distinct (pid, tid) threads (more than " + std::to_string(k_max_threads) + ")");
  }
  m_trace.threads.push_back({process_index(m_pid), m_tid});
  m_thread_index.emplace(m_thread_key, index);
  return index;
}

std::uint32_t TraceSax::shapes_index() {
  if (!m_has_dims && !m_has_types) {
    return 0;
  }
  m_shape_key.clear();
  if (m_has_dims) {
    m_shape_key.append(m_dims);
  }
  m_shape_key.push_back('\0');
  if (m_has_types) {
    m_shape_key.append(m_types);
  }
  const std::size_t known = m_shape_keys.size();
  const std::uint32_t id = m_shape_table.intern(m_shape_key);  // shapes[0] is "none": index = id + 1
  if (m_shape_keys.size() != known) {
    m_trace.shapes.push_back({m_has_dims ? m_dims : std::string(), m_has_types ? m_types : std::string()});
  }
  return id + 1;
}

void TraceSax::end_event() {
  m_in_event = false;
  m_in_args = false;
  switch (m_ph) {
  case 'X':
    add_complete_event();
    break;
  case 'M':
    if (m_name == "process_name" || m_name == "process_labels") {
      TraceProcess& process = m_trace.processes[process_index(m_pid)];
      if (m_name == "process_name") {
        process.name = m_arg_name;
      } else {
        process.labels = m_arg_labels;
      }
    }
    break;
  case 's':
  case 'f':
    if (m_ts && m_flow_id) {
      FlowPoint flow;
      flow.id = *m_flow_id;
      flow.ts_ns = *m_ts;
      flow.thread = thread_index();
      flow.category = static_cast<std::uint16_t>(m_categories.intern(m_cat));
      flow.is_start = m_ph == 's';
      m_trace.flows.push_back(flow);
    }
    break;
  default:
    break;
  }
}

void TraceSax::add_complete_event() {
  ++m_trace.event_count;
  if (m_has_cat) {
    ++m_categorised_events;
  }
  // Times beyond about a century (ts in [-2^60, 2^62] ns, dur <= 2^60 ns) are not real: refusing
  // them keeps every end and difference of two times inside int64.
  constexpr Nanoseconds k_max_ts = Nanoseconds{1} << 62;
  constexpr Nanoseconds k_max_span = Nanoseconds{1} << 60;
  if (!m_ts || !m_dur || m_ts_bad || m_dur_bad || !m_has_name || *m_ts > k_max_ts || *m_ts < -k_max_span ||
      *m_dur > k_max_span) {
    count_malformed();
    return;
  }
  if (m_name.size() > m_max_name) {
    m_name = cut_name(m_name, m_max_name);
    count_data_problem(m_trace.problems, DataProblemKind::name_truncated, m_path, m_reader.offset(),
                       m_name.substr(0, 60) + "…");
  }
  if (*m_dur < 0) {
    const bool unfinished = *m_dur == -1000;
    ++(unfinished ? m_trace.unfinished_events : m_trace.negative_duration_events);
    count_data_problem(m_trace.problems, unfinished ? DataProblemKind::unfinished : DataProblemKind::negative_duration,
                       m_path, m_reader.offset(),
                       (m_name.size() > 60 ? m_name.substr(0, 60) + "…" : m_name) + " " +
                           raw_field("dur", m_dur_raw, m_dur_raw_integer));
    keep_unusable(unfinished ? k_unusable_unfinished : k_unusable_negative);
    return;
  }
  TraceEvent event;
  event.ts_ns = *m_ts;
  event.dur_ns = *m_dur;
  event.correlation = id_code(m_correlation.value_or(0));
  event.has_correlation = m_correlation.has_value();
  event.external_id = id_code(m_external_id);
  const std::uint32_t name_id = m_names.intern(m_name);
  event.thread = thread_index() & (k_max_threads - 1);  // < k_max_threads (find_thread)
  const std::uint32_t shapes_id = shapes_index();
  if (m_last_category == k_none || m_cat != m_last_cat) {
    m_last_cat = m_cat;
    m_last_category = m_categories.intern(m_cat);
  }
  const std::uint32_t category = m_last_category;
  if (category > std::numeric_limits<std::uint16_t>::max()) {
    throw InputError(m_path, "too many distinct event categories (more than 65535)");
  }
  event.key_id = m_event_keys.intern({name_id, shapes_id, static_cast<std::uint16_t>(category)});
  event.args_hash = static_cast<std::uint32_t>(m_args_hash ^ (m_args_hash >> 32));
  const std::uint64_t end = m_reader.offset();
  event.end_byte_low = static_cast<std::uint32_t>(end);
  while (m_trace.end_byte_wraps.size() < (end >> 32)) {
    m_trace.end_byte_wraps.push_back(static_cast<std::uint32_t>(m_trace.events.size()));
  }
  m_trace.events.push_back(event);
}

}  // namespace neuron_gate::trace_reader
