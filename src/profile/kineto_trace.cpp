#include "profile/kineto_trace.hpp"

#include "profile/byte_source.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"
#include "util/sha256.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace neuron_gate {

static_assert(sizeof(TraceEvent) <= 48, "trace events must stay compact");

bool is_cpu_side(EventKind kind) {
  return kind == EventKind::cpu_op || kind == EventKind::user_annotation || kind == EventKind::runtime;
}

namespace {

using Json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// The byte stream as an input iterator for nlohmann's iterator input adapter: one pointer
// comparison per character on the hot path, a ByteSource::next() call per chunk.

class ChunkReader {
public:
  explicit ChunkReader(ByteSource& source)
      : m_source(source), m_max_string(input_limits().max_string_bytes) {}

  // Loads the next chunk; false at the end of the data.
  bool fill() {
    m_chunk_offset += static_cast<std::uint64_t>(m_end - m_begin);
    const std::string_view chunk = m_source.next();
    guard_string_lengths(chunk);
    m_begin = chunk.data();
    m_cur = m_begin;
    m_end = m_begin + chunk.size();
    if (chunk.empty()) {
      m_at_end = true;
    }
    return !chunk.empty();
  }
  bool at_end() { return m_cur == m_end && (m_at_end || !fill()); }
  // Bytes handed out so far (0-based offset of the next byte).
  std::uint64_t offset() const { return m_chunk_offset + static_cast<std::uint64_t>(m_cur - m_begin); }
  bool reached_end() const { return m_at_end; }
  // The unread part of the current chunk.
  std::string_view peek() const { return {m_cur, static_cast<std::size_t>(m_end - m_cur)}; }

  const char* m_begin = nullptr;
  const char* m_cur = nullptr;
  const char* m_end = nullptr;

private:
  // Follows string literals across chunks and refuses one longer than the string limit before the parser
  // holds it (a 1 GB name in a 1 MB .gz would otherwise take gigabytes). Escapes count as written.
  void guard_string_lengths(std::string_view chunk) {
    std::size_t at = 0;
    while (at < chunk.size()) {
      if (!m_in_string) {
        const std::size_t quote = chunk.find('"', at);
        if (quote == std::string_view::npos) {
          return;
        }
        m_in_string = true;
        m_string_bytes = 0;
        at = quote + 1;
        continue;
      }
      if (m_escaped) {
        m_escaped = false;
        ++at;
        ++m_string_bytes;
        continue;
      }
      const std::size_t stop = chunk.find_first_of("\"\\", at);
      const std::size_t end = stop == std::string_view::npos ? chunk.size() : stop;
      m_string_bytes += end - at;
      if (m_string_bytes > m_max_string) {
        throw InputError(m_source.path(),
                         "a JSON string longer than the limit of " + byte_count_text(m_max_string) +
                             " (NEURON_GATE_MAX_STRING_BYTES)",
                         m_chunk_offset + end - (m_string_bytes - m_max_string));
      }
      if (stop == std::string_view::npos) {
        return;
      }
      if (chunk[stop] == '"') {
        m_in_string = false;
      } else {
        m_escaped = true;
        ++m_string_bytes;
      }
      at = stop + 1;
    }
  }

  ByteSource& m_source;
  std::uint64_t m_chunk_offset = 0;
  bool m_at_end = false;
  std::uint64_t m_max_string = 0;
  bool m_in_string = false;
  bool m_escaped = false;
  std::uint64_t m_string_bytes = 0;
};

class ChunkIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ChunkIterator() = default;
  explicit ChunkIterator(ChunkReader* reader) : m_reader(reader) {}

  reference operator*() const { return *m_reader->m_cur; }
  ChunkIterator& operator++() {
    ++m_reader->m_cur;
    return *this;
  }
  ChunkIterator operator++(int) {
    ChunkIterator old = *this;
    ++m_reader->m_cur;
    return old;
  }
  // != is rewritten from == (C++20); defining both left == unused (clang's -Wunused-function).
  friend bool operator==(const ChunkIterator& a, const ChunkIterator& b) { return a.done() == b.done(); }

private:
  bool done() const { return m_reader == nullptr || m_reader->at_end(); }
  ChunkReader* m_reader = nullptr;
};

// ---------------------------------------------------------------------------------------------

// Keys the reader acts on; everything else is skipped without copying.
enum class Key : std::uint8_t {
  other,
  ph,
  cat,
  name,
  pid,
  tid,
  ts,
  dur,
  id,
  args,
  correlation,
  external_id,
  input_dims,
  input_type,
  labels,
};

Key event_key(const std::string& key) {
  switch (key.size()) {
  case 2:
    if (key == "ph") {
      return Key::ph;
    }
    if (key == "ts") {
      return Key::ts;
    }
    if (key == "id") {
      return Key::id;
    }
    break;
  case 3:
    if (key == "cat") {
      return Key::cat;
    }
    if (key == "pid") {
      return Key::pid;
    }
    if (key == "tid") {
      return Key::tid;
    }
    if (key == "dur") {
      return Key::dur;
    }
    break;
  case 4:
    if (key == "name") {
      return Key::name;
    }
    if (key == "args") {
      return Key::args;
    }
    break;
  default:
    break;
  }
  return Key::other;
}

Key args_key(const std::string& key) {
  switch (key.size()) {
  case 4:
    if (key == "name") {
      return Key::name;
    }
    break;
  case 6:
    if (key == "labels") {
      return Key::labels;
    }
    break;
  case 10:
    if (key == "Input Dims" || key == "Input dims") {
      return Key::input_dims;
    }
    if (key == "Input type") {
      return Key::input_type;
    }
    break;
  case 11:
    if (key == "correlation") {
      return Key::correlation;
    }
    if (key == "External id" || key == "external id") {
      return Key::external_id;
    }
    break;
  default:
    break;
  }
  return Key::other;
}

// JSON text of a string, for metadata values.
std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      constexpr std::string_view hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[static_cast<unsigned char>(c) >> 4];
      out += hex[static_cast<unsigned char>(c) & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <typename Integer>
std::string integer_text(Integer value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

// µs as an integer -> ns, nullopt on overflow.
std::optional<Nanoseconds> integer_microseconds_to_ns(std::int64_t us) {
  constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 1000;
  if (us > limit || us < -limit) {
    return std::nullopt;
  }
  return us * 1000;
}

// FNV-1a, for flow ids that are not numbers.
std::uint64_t text_hash(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::uint64_t id_from_text(const std::string& text) {
  std::uint64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec == std::errc{} && result.ptr == text.data() + text.size() && !text.empty()) {
    return value;
  }
  return text_hash(text);
}

// Interns strings into dense ids.
class StringTable {
public:
  explicit StringTable(std::vector<std::string>& strings) : m_strings(strings) {}
  std::uint32_t intern(const std::string& text) {
    const auto found = m_index.find(text);
    if (found != m_index.end()) {
      return found->second;
    }
    const auto id = static_cast<std::uint32_t>(m_strings.size());
    m_strings.push_back(text);
    m_index.emplace(text, id);
    return id;
  }

private:
  std::vector<std::string>& m_strings;
  std::unordered_map<std::string, std::uint32_t> m_index;
};

// The SAX handler: a small state machine over the nesting depth.
class TraceSax {
public:
  TraceSax(RawTrace& trace, ChunkReader& reader, std::string path)
      : m_trace(trace), m_reader(reader), m_path(std::move(path)), m_names(trace.names),
        m_categories(trace.categories) {
    m_categories.intern("");
    m_trace.shapes.push_back({});
  }

  // --- nlohmann SAX interface ---
  bool null() {
    mix_args("null");
    note_raw_time("null");
    return scalar_value("null", nullptr);
  }
  bool boolean(bool value) {
    mix_args(value ? "true" : "false");
    note_raw_time(value ? "true" : "false");
    return scalar_value(value ? "true" : "false", nullptr);
  }
  bool number_integer(Json::number_integer_t value) {
    if (m_in_args) {
      mix_args(integer_text(value));
    }
    if (m_depth == m_event_depth && m_in_event) {
      return event_integer(value, static_cast<std::uint64_t>(value));
    }
    if (m_depth == m_args_depth && m_in_args) {
      args_id(static_cast<std::uint64_t>(value));
    }
    const std::string text = integer_text(value);
    return scalar_value(text, nullptr);
  }
  bool number_unsigned(Json::number_unsigned_t value) {
    if (m_in_args) {
      mix_args(integer_text(value));
    }
    if (m_depth == m_event_depth && m_in_event) {
      if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return event_integer(static_cast<std::int64_t>(value), value);
      }
      return event_text(integer_text(value), false);
    }
    if (m_depth == m_args_depth && m_in_args) {
      args_id(value);  // ids above INT64_MAX are legal (H13): kept as uint64
    }
    const std::string text = integer_text(value);
    return scalar_value(text, nullptr);
  }
  bool number_float(Json::number_float_t /*value*/, const std::string& text) {
    mix_args(text);
    if (m_depth == m_event_depth && m_in_event) {
      return event_text(text, false);
    }
    return scalar_value(text, nullptr);
  }
  bool string(std::string& value) {
    mix_args(value);
    if (m_depth == m_event_depth && m_in_event) {
      return event_text(value, true);
    }
    if (m_in_args && m_depth == m_args_depth) {
      if (m_args_key == Key::name) {
        m_arg_name = value;
      } else if (m_args_key == Key::labels) {
        m_arg_labels = value;
      } else if (m_args_key == Key::correlation || m_args_key == Key::external_id) {
        args_id(id_from_text(value));
      }
    } else if (m_depth == 3 && m_top_is_object && m_top_key == "deviceProperties" && m_device_key == "name") {
      if (std::find(m_device_names.begin(), m_device_names.end(), value) == m_device_names.end()) {
        m_device_names.push_back(value);
      }
    }
    return scalar_value(value, &value);
  }
  bool binary(Json::binary_t& /*value*/) { return true; }

  bool start_object(std::size_t /*elements*/) {
    mix_args("{");
    if (m_depth == 0) {
      m_top_is_object = true;
    } else if (m_capture_depth != 0) {
      capture_open('{');
    } else if (m_in_events && m_depth == m_events_depth && !m_in_event) {
      begin_event();
    } else if (m_in_event && m_depth == m_event_depth && m_event_key == Key::args) {
      m_in_args = true;
      m_args_depth = m_depth + 1;
    } else if (m_depth == 1 && m_top_is_object && m_top_key == "distributedInfo") {
      m_in_distributed_info = true;
    } else if (m_depth == 2 && m_top_is_object && m_top_key == "deviceProperties") {
      ++m_device_properties;
    }
    ++m_depth;
    return true;
  }

  bool end_object() {
    mix_args("}");
    --m_depth;
    if (m_capture_depth != 0) {
      capture_close('}');
    } else if (m_in_event && m_depth == m_events_depth) {
      end_event();
    } else if (m_in_args && m_depth + 1 == m_args_depth) {
      m_in_args = false;
    } else if (m_in_distributed_info && m_depth == 1) {
      m_in_distributed_info = false;
    }
    return true;
  }

  bool start_array(std::size_t /*elements*/) {
    mix_args("[");
    if (m_depth == 0) {
      m_top_is_array = true;
      m_trace.format = TraceFormat::legacy_array;
      start_events(1);
    } else if (m_capture_depth != 0) {
      capture_open('[');
    } else if (m_in_args && m_depth == m_args_depth &&
               (m_args_key == Key::input_dims || m_args_key == Key::input_type)) {
      m_capture = m_args_key == Key::input_dims ? &m_dims : &m_types;
      m_capture->clear();
      m_capture->push_back('[');
      m_capture_depth = m_depth + 1;
    } else if (m_depth == 1 && m_top_is_object && m_top_key == "traceEvents") {
      start_events(2);
    } else if (m_depth == 1 && m_top_is_object && m_top_key == "deviceProperties") {
      m_has_device_properties = true;
    }
    ++m_depth;
    return true;
  }

  bool end_array() {
    mix_args("]");
    --m_depth;
    if (m_capture_depth != 0) {
      capture_close(']');
    } else if (m_in_events && m_depth + 1 == m_events_depth) {
      m_in_events = false;
    }
    return true;
  }

  bool key(std::string& key) {
    mix_args(key);
    if (m_capture_depth != 0) {
      capture_separator();
      m_capture->push_back('\'');
      m_capture->append(key);
      m_capture->append("': ");
      m_capture_after_key = true;
    } else if (m_in_event && m_depth == m_event_depth) {
      m_event_key = event_key(key);
    } else if (m_in_args && m_depth == m_args_depth) {
      m_args_key = args_key(key);
    } else if (m_depth == 1 && m_top_is_object) {
      m_top_key = key;
    } else if (m_depth == 2 && m_in_distributed_info) {
      m_distributed_key = key;
    } else if (m_depth == 3 && m_top_is_object && m_top_key == "deviceProperties") {
      m_device_key = key;
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& error) {
    // nlohmann counts the characters read including the offending one (or the end of input).
    const std::uint64_t offset = position > 0 ? position - 1 : 0;
    std::string reason = error.what();
    const auto colon = reason.find(": ");
    if (reason.rfind("[json.exception.", 0) == 0 && colon != std::string::npos) {
      reason = reason.substr(colon + 2);
    }
    const std::string where = m_gzip ? " (offset in the decompressed data)" : "";
    if (!m_top_is_object && !m_top_is_array) {
      throw InputError(m_path, "not a trace: no JSON object or array" + where + " (" + reason + ")", offset);
    }
    if (m_reader.reached_end() && m_reader.offset() <= offset) {
      throw InputError(m_path, "truncated trace: the JSON ends early" + where + " (" + reason + ")", offset);
    }
    throw InputError(m_path, "not valid JSON" + where + ": " + reason, offset);
  }

  // --- after the parse ---
  void finish() {
    if (!m_top_is_object && !m_top_is_array) {
      throw InputError(m_path, "not a trace: the top-level JSON value is neither an object nor an array");
    }
    if (m_top_is_object && !m_saw_events) {
      throw InputError(m_path, "not a trace: no \"traceEvents\" array in the top-level object");
    }
    if (m_has_device_properties) {
      m_trace.metadata["deviceProperties.count"] = integer_text(m_device_properties);
    }
    if (!m_device_names.empty()) {
      std::string names;
      for (const std::string& name : m_device_names) {
        names += (names.empty() ? "" : "; ") + name;
      }
      m_trace.metadata["deviceProperties.names"] = json_quote(names);
    }
  }

  bool any_categorised_event() const { return m_categorised_events > 0; }

  void set_gzip(bool gzip) { m_gzip = gzip; }

private:
  // Mixes a token of the current event's args into its hash (FNV-1a, tokens separated by 0xff).
  void mix_args(std::string_view token) {
    if (!m_in_args) {
      return;
    }
    for (const char c : token) {
      m_args_hash ^= static_cast<unsigned char>(c);
      m_args_hash *= 1099511628211ULL;
    }
    m_args_hash ^= 0xffU;
    m_args_hash *= 1099511628211ULL;
  }

  // A scalar anywhere: metadata at the top level, a captured Input Dims / Input type element.
  bool scalar_value(std::string_view text, const std::string* string_value) {
    if (m_capture_depth != 0) {
      capture_separator();
      if (string_value != nullptr) {
        m_capture->push_back('\'');
        m_capture->append(*string_value);
        m_capture->push_back('\'');
      } else if (text == "null") {
        m_capture->append("None");
      } else if (text == "true") {
        m_capture->append("True");
      } else if (text == "false") {
        m_capture->append("False");
      } else {
        m_capture->append(text);
      }
      return true;
    }
    if (m_depth == 1 && m_top_is_object) {
      m_trace.metadata[m_top_key] = string_value != nullptr ? json_quote(*string_value) : std::string(text);
    } else if (m_depth == 2 && m_in_distributed_info) {
      m_trace.metadata["distributedInfo." + m_distributed_key] =
          string_value != nullptr ? json_quote(*string_value) : std::string(text);
    }
    return true;
  }

  void capture_separator() {
    if (m_capture_after_key) {
      m_capture_after_key = false;
      return;
    }
    const char last = m_capture->back();
    if (last != '[' && last != '{') {
      m_capture->append(", ");
    }
  }
  void capture_open(char bracket) {
    capture_separator();
    m_capture->push_back(bracket);
  }
  void capture_close(char bracket) {
    m_capture->push_back(bracket);
    if (m_depth + 1 == m_capture_depth) {
      m_capture_depth = 0;
      if (m_capture == &m_dims) {
        m_has_dims = true;
      } else {
        m_has_types = true;
      }
    }
  }

  void start_events(std::size_t depth) {
    m_in_events = true;
    m_saw_events = true;
    m_events_depth = depth;
    m_event_depth = depth + 1;
  }

  void begin_event() {
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

  // An integer field of the event (ts, dur, pid, tid, id).
  bool event_integer(std::int64_t value, std::uint64_t as_unsigned) {
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
      m_pid = integer_text(value);
      break;
    case Key::tid:
      m_tid = integer_text(value);
      break;
    case Key::id:
      m_flow_id = as_unsigned;
      break;
    default:
      break;
    }
    return true;
  }

  // A string or non-integer number field of the event; `is_string` tells which.
  bool event_text(const std::string& text, bool is_string) {
    switch (m_event_key) {
    case Key::ph:
      m_ph = text.size() == 1 ? text[0] : '?';
      break;
    case Key::cat:
      if (is_string) {
        m_cat = text;
        m_has_cat = true;
      }
      break;
    case Key::name:
      if (is_string) {
        m_name = text;
        m_has_name = true;
      }
      break;
    case Key::pid:
      m_pid = text;
      break;
    case Key::tid:
      m_tid = text;
      break;
    case Key::ts:
      m_ts = decimal_microseconds_to_ns(text);
      m_ts_bad = !m_ts;
      m_ts_raw = is_string ? json_quote(text) : text;
      break;
    case Key::dur:
      m_dur = decimal_microseconds_to_ns(text);
      m_dur_bad = !m_dur;
      m_dur_raw = is_string ? json_quote(text) : text;
      break;
    case Key::id:
      m_flow_id = id_from_text(text);
      break;
    default:
      break;
    }
    return true;
  }

  // A ts or dur given as null or a boolean, remembered for the data problem's example.
  void note_raw_time(const char* text) {
    if (m_in_event && m_depth == m_event_depth && m_capture_depth == 0) {
      if (m_event_key == Key::ts) {
        m_ts_raw = text;
      } else if (m_event_key == Key::dur) {
        m_dur_raw = text;
      }
    }
  }

  // How a ts or dur was written, for an example: `"dur": null`, `"dur": "n/a"`, no "dur".
  static std::string raw_field(const char* key, const std::string& raw, const std::optional<std::int64_t>& integer) {
    if (!raw.empty()) {
      return std::string("\"") + key + "\": " + raw;
    }
    if (integer) {
      return std::string("\"") + key + "\": " + integer_text(*integer);
    }
    return std::string("no \"") + key + "\"";
  }

  // Counts a ph "X" event that has no usable name, ts or dur, by kind, with its first example.
  void count_malformed() {
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
  }

  void args_id(std::uint64_t value) {
    if (m_args_key == Key::correlation) {
      m_correlation = value;
    } else if (m_args_key == Key::external_id) {
      m_external_id = value;
    }
  }

  std::uint32_t process_index(const std::string& pid) {
    const auto found = m_process_index.find(pid);
    if (found != m_process_index.end()) {
      return found->second;
    }
    const auto index = static_cast<std::uint32_t>(m_trace.processes.size());
    m_trace.processes.push_back({pid, "", ""});
    m_process_index.emplace(pid, index);
    return index;
  }

  std::uint32_t thread_index() {
    // Events of one thread come in runs: compare with the last one before hashing.
    if (m_last_thread != k_none && m_pid == m_last_pid && m_tid == m_last_tid) {
      return m_last_thread;
    }
    m_last_pid = m_pid;
    m_last_tid = m_tid;
    m_last_thread = find_thread();
    return m_last_thread;
  }

  std::uint32_t find_thread() {
    m_thread_key.assign(m_pid);
    m_thread_key.push_back('\0');
    m_thread_key.append(m_tid);
    const auto found = m_thread_index.find(m_thread_key);
    if (found != m_thread_index.end()) {
      return found->second;
    }
    const auto index = static_cast<std::uint32_t>(m_trace.threads.size());
    m_trace.threads.push_back({process_index(m_pid), m_tid});
    m_thread_index.emplace(m_thread_key, index);
    return index;
  }

  std::uint32_t shapes_index() {
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
    const auto found = m_shape_index.find(m_shape_key);
    if (found != m_shape_index.end()) {
      return found->second;
    }
    const auto index = static_cast<std::uint32_t>(m_trace.shapes.size());
    m_trace.shapes.push_back({m_has_dims ? m_dims : std::string(), m_has_types ? m_types : std::string()});
    m_shape_index.emplace(m_shape_key, index);
    return index;
  }

  void end_event() {
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

  void add_complete_event() {
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
      count_data_problem(m_trace.problems,
                         unfinished ? DataProblemKind::unfinished : DataProblemKind::negative_duration, m_path,
                         m_reader.offset(),
                         (m_name.size() > 60 ? m_name.substr(0, 60) + "…" : m_name) + " " +
                             raw_field("dur", m_dur_raw, m_dur_raw_integer));
      TraceEvent event;
      event.ts_ns = *m_ts;
      event.dur_ns = unfinished ? -1 : -2;  // a marker of the kind, not a time
      event.name_id = m_names.intern(m_name);
      event.thread = thread_index();
      event.category = static_cast<std::uint16_t>(std::min<std::uint32_t>(m_categories.intern(m_cat), 0xffff));
      m_trace.unusable.push_back(event);
      return;
    }
    TraceEvent event;
    event.ts_ns = *m_ts;
    event.dur_ns = *m_dur;
    event.correlation = m_correlation.value_or(0);
    event.has_correlation = m_correlation.has_value();
    event.external_id = m_external_id;
    event.name_id = m_names.intern(m_name);
    event.thread = thread_index();
    event.shapes_id = shapes_index();
    if (m_last_category == k_none || m_cat != m_last_cat) {
      m_last_cat = m_cat;
      m_last_category = m_categories.intern(m_cat);
    }
    const std::uint32_t category = m_last_category;
    if (category > std::numeric_limits<std::uint16_t>::max()) {
      throw InputError(m_path, "too many distinct event categories (more than 65535)");
    }
    event.category = static_cast<std::uint16_t>(category);
    m_trace.events.push_back(event);
    m_trace.origins.push_back({m_reader.offset(), m_args_hash});
  }

  RawTrace& m_trace;
  ChunkReader& m_reader;
  std::string m_path;
  StringTable m_names;
  StringTable m_categories;
  bool m_gzip = false;

  std::size_t m_depth = 0;  // number of open objects/arrays
  bool m_top_is_object = false;
  bool m_top_is_array = false;
  std::string m_top_key;
  bool m_in_distributed_info = false;
  std::string m_distributed_key;
  bool m_has_device_properties = false;
  std::int64_t m_device_properties = 0;
  std::string m_device_key;                 // key inside a deviceProperties element
  std::vector<std::string> m_device_names;  // distinct deviceProperties[].name, in file order

  bool m_in_events = false;
  bool m_saw_events = false;
  std::size_t m_events_depth = 0;  // depth inside the events array
  std::size_t m_event_depth = 0;   // depth inside one event object
  bool m_in_event = false;
  Key m_event_key = Key::other;
  bool m_in_args = false;
  std::size_t m_args_depth = 0;
  Key m_args_key = Key::other;

  std::size_t m_capture_depth = 0;  // depth inside the captured array; 0 = not capturing
  std::string* m_capture = nullptr;
  bool m_capture_after_key = false;

  // fields of the current event (buffers reused across events)
  char m_ph = '\0';
  bool m_has_cat = false;
  bool m_has_name = false;
  std::string m_cat;
  std::string m_name;
  std::string m_pid;
  std::string m_tid;
  std::optional<Nanoseconds> m_ts;
  std::optional<Nanoseconds> m_dur;
  bool m_ts_bad = false;
  bool m_dur_bad = false;
  std::string m_ts_raw;   // ts as written when not an integer (string, float, null), for examples
  std::string m_dur_raw;
  std::optional<std::int64_t> m_ts_raw_integer;
  std::optional<std::int64_t> m_dur_raw_integer;
  std::uint64_t m_max_name = input_limits().max_name_bytes;
  std::optional<std::uint64_t> m_flow_id;
  std::uint64_t m_args_hash = 0;
  std::optional<std::uint64_t> m_correlation;
  std::uint64_t m_external_id = 0;
  bool m_has_dims = false;
  bool m_has_types = false;
  std::string m_dims;
  std::string m_types;
  std::string m_arg_name;
  std::string m_arg_labels;

  std::int64_t m_categorised_events = 0;
  static constexpr std::uint32_t k_none = std::numeric_limits<std::uint32_t>::max();
  std::string m_last_pid;
  std::string m_last_tid;
  std::uint32_t m_last_thread = k_none;
  std::string m_last_cat;
  std::uint32_t m_last_category = k_none;
  std::string m_thread_key;
  std::string m_shape_key;
  std::unordered_map<std::string, std::uint32_t> m_thread_index;
  std::unordered_map<std::string, std::uint32_t> m_process_index;
  std::unordered_map<std::string, std::uint32_t> m_shape_index;
};

// Checks the first significant character (after an optional UTF-8 BOM and white space).
void sniff(ChunkReader& reader, const std::string& path) {
  if (reader.at_end()) {
    throw InputError(path, "not a trace: the file is empty");
  }
  std::string_view head = reader.peek();
  std::size_t i = 0;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") {
    i = 3;
  }
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) {
    ++i;
  }
  if (i == head.size()) {
    return;  // only white space in the first chunk: the parser decides
  }
  if (head[i] != '{' && head[i] != '[') {
    std::string start(head.substr(i, 16));
    for (char& c : start) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
        c = '?';
      }
    }
    throw InputError(path, "not a trace: the content does not start with '{' or '[': \"" + start + "\"", i);
  }
}

const std::unordered_map<std::string_view, EventKind>& category_kinds() {
  static const std::unordered_map<std::string_view, EventKind> kinds = {
      {"cpu_op", EventKind::cpu_op},
      {"Operator", EventKind::cpu_op},
      {"user_annotation", EventKind::user_annotation},
      {"cuda_runtime", EventKind::runtime},
      {"cuda_driver", EventKind::runtime},
      {"privateuse1_runtime", EventKind::runtime},
      {"privateuse1_driver", EventKind::runtime},
      {"xpu_runtime", EventKind::runtime},
      {"xpu_driver", EventKind::runtime},
      {"mtia_runtime", EventKind::runtime},
      {"Runtime", EventKind::runtime},
      {"kernel", EventKind::device},
      {"gpu_memcpy", EventKind::device},
      {"gpu_memset", EventKind::device},
      {"Kernel", EventKind::device},
      {"Memcpy", EventKind::device},
      {"Memset", EventKind::device},
      {"mtia_ccp_events", EventKind::device},  // MTIA (Meta's accelerator): DMA and kernel events of the device
  };
  return kinds;
}

// Names PyTorch's key_averages never shows (torch/autograd/profiler.py _filter_name): they take no
// part in the nesting either, so their time stays in their parent's self time.
bool filtered_name(const std::string& name) {
  static const std::array<std::string_view, 8> names = {
      "profiler::_record_function_enter", "profiler::_record_function_enter_new",
      "profiler::_record_function_exit",  "aten::is_leaf",
      "aten::output_nr",                  "aten::_version",
      "[memory]",                         "[OutOfMemory]",
  };
  for (const std::string_view filtered : names) {
    if (name == filtered) {
      return true;
    }
  }
  return false;
}

// torch_npu writes device tasks without a category in the process named "Ascend Hardware",
// labelled NPU. Its other NPU-labelled processes ("Overlap Analysis", "HCCL", ...) summarise
// those same tasks, so counting them too would count device time twice.
bool is_device_process(const TraceProcess& process) {
  return process.labels == "NPU" && process.name == "Ascend Hardware";
}

void classify(RawTrace& trace, bool any_categorised_event) {
  std::vector<EventKind> category_kind(trace.categories.size(), EventKind::ignored);
  for (std::size_t i = 0; i < trace.categories.size(); ++i) {
    const auto found = category_kinds().find(trace.categories[i]);
    if (found != category_kinds().end()) {
      category_kind[i] = found->second;
    }
  }
  std::vector<char> name_filtered(trace.names.size());
  for (std::size_t i = 0; i < trace.names.size(); ++i) {
    name_filtered[i] = filtered_name(trace.names[i]) ? 1 : 0;
  }
  for (TraceEvent& event : trace.unusable) {
    event.kind = category_kind[event.category];
    if (event.category == 0 && !any_categorised_event) {
      event.kind = EventKind::cpu_op;
    }
  }
  for (TraceEvent& event : trace.events) {
    EventKind kind = category_kind[event.category];
    if (event.category == 0) {
      if (!any_categorised_event) {
        kind = EventKind::cpu_op;  // legacy autograd-profiler trace: no categories at all
      } else if (is_device_process(trace.processes[trace.threads[event.thread].process])) {
        kind = EventKind::device;
      }
    }
    if (is_cpu_side(kind) && name_filtered[event.name_id] != 0) {
      kind = EventKind::ignored;
    }
    event.kind = kind;
  }
}

} // namespace

std::string cut_name(const std::string& name, std::uint64_t max_bytes) {
  if (name.size() <= max_bytes) {
    return name;
  }
  std::size_t cut = static_cast<std::size_t>(max_bytes);
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
    --cut;  // never inside a UTF-8 sequence
  }
  return name.substr(0, cut) + "…[cut: " + std::to_string(name.size()) + " bytes, sha256 " +
         sha256_hex(name).substr(0, 16) + "]";
}

RawTrace read_kineto_trace(ByteSource& source) {
  RawTrace trace;
  // Reserve room for the most events the data could hold (an "X" event takes at least ~40 bytes):
  // untouched reserved pages cost no memory, and the vector never reallocates (no copy, no 2x peak).
  try {
    trace.events.reserve(static_cast<std::size_t>(source.size_hint() / 40));
  } catch (const std::exception&) {
    // the address space refused a reservation that large: grow as usual
  }
  ChunkReader reader(source);
  sniff(reader, source.path());
  TraceSax sax(trace, reader, source.path());
  sax.set_gzip(source.is_gzip());
  Json::sax_parse(ChunkIterator(&reader), ChunkIterator(), &sax);
  sax.finish();
  classify(trace, sax.any_categorised_event());
  if (!trace.malformed_by_op.empty()) {
    std::vector<std::int64_t> read_by_name(trace.names.size());
    for (const TraceEvent& event : trace.events) {
      ++read_by_name[event.name_id];
    }
    for (std::size_t id = 0; id < trace.names.size(); ++id) {
      if (const auto it = trace.malformed_by_op.find(trace.names[id]); it != trace.malformed_by_op.end()) {
        it->second.read = read_by_name[id];
      }
    }
  }
  return trace;
}

} // namespace neuron_gate
