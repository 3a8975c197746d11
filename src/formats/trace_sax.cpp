#include "formats/trace_sax.hpp"

#include "input/json_input.hpp"

#include "util/error.hpp"

#include <algorithm>

namespace neuron_gate::trace_reader {

Key event_key(std::string_view key) {
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

Key args_key(std::string_view key) {
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
std::string json_quote(std::string_view text) {
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

// µs as an integer -> ns, nullopt on overflow.
std::optional<Nanoseconds> integer_microseconds_to_ns(std::int64_t us) {
  constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 1000;
  if (us > limit || us < -limit) {
    return std::nullopt;
  }
  return us * 1000;
}

// FNV-1a, for flow ids that are not numbers.
static std::uint64_t text_hash(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::uint64_t id_from_text(std::string_view text) {
  std::uint64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec == std::errc{} && result.ptr == text.data() + text.size() && !text.empty()) {
    return value;
  }
  return text_hash(text);
}

TraceSax::TraceSax(RawTrace& trace, ChunkReader& reader, std::string path)
    : m_trace(trace), m_reader(reader), m_path(std::move(path)), m_names(trace.names), m_categories(trace.categories),
      m_event_keys(trace.event_keys) {
  m_categories.intern("");
  m_trace.shapes.push_back({});
}

bool TraceSax::null() {
  note_raw_time("null");
  return scalar_value("null", false);
}

bool TraceSax::boolean(bool value) {
  note_raw_time(value ? "true" : "false");
  return scalar_value(value ? "true" : "false", false);
}

bool TraceSax::number_integer(Json::number_integer_t value) {
  return signed_integer(value, integer_text(value));
}

bool TraceSax::number_unsigned(Json::number_unsigned_t value) {
  return unsigned_integer(value, integer_text(value));
}

bool TraceSax::signed_integer(std::int64_t value, std::string_view text) {
  if (m_depth == m_event_depth && m_in_event) {
    return event_integer(value, static_cast<std::uint64_t>(value), text);
  }
  if (m_depth == m_args_depth && m_in_args) {
    args_id(static_cast<std::uint64_t>(value));
  }
  return scalar_value(text, false);
}

bool TraceSax::unsigned_integer(std::uint64_t value, std::string_view text) {
  if (m_depth == m_event_depth && m_in_event) {
    if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return event_integer(static_cast<std::int64_t>(value), value, text);
    }
    return event_text(text, false);
  }
  if (m_depth == m_args_depth && m_in_args) {
    args_id(value);  // ids above INT64_MAX are legal (H13): kept as uint64
  }
  return scalar_value(text, false);
}

bool TraceSax::float_text(std::string_view text) {
  if (m_depth == m_event_depth && m_in_event) {
    return event_text(text, false);
  }
  return scalar_value(text, false);
}

bool TraceSax::string_view(std::string_view value) {
  if (m_depth == m_event_depth && m_in_event) {
    return event_text(value, true);
  }
  if (m_in_args && m_depth == m_args_depth) {
    if (m_args_key == Key::name) {
      m_arg_name.assign(value);
    } else if (m_args_key == Key::labels) {
      m_arg_labels.assign(value);
    } else if (m_args_key == Key::correlation || m_args_key == Key::external_id) {
      args_id(id_from_text(value));
    }
  } else if (m_depth == 3 && m_top_is_object && m_top_key == "deviceProperties" && m_device_key == "name") {
    if (std::find(m_device_names.begin(), m_device_names.end(), value) == m_device_names.end()) {
      m_device_names.emplace_back(value);
    }
  }
  return scalar_value(value, true);
}

bool TraceSax::start_object(std::size_t /*elements*/) {
  if (m_depth == 0) {
    m_top_is_object = true;
  } else if (m_capture_depth != 0) {
    capture_open('{');
  } else if (m_in_events && m_depth == m_events_depth && !m_in_event) {
    begin_event();
  } else if (m_in_event && m_depth == m_event_depth && m_event_key == Key::args) {
    m_in_args = true;
    m_args_depth = m_depth + 1;
    m_reader.begin_span();
  } else if (m_depth == 1 && m_top_is_object && m_top_key == "distributedInfo") {
    m_in_distributed_info = true;
  } else if (m_depth == 2 && m_top_is_object && m_top_key == "deviceProperties") {
    ++m_device_properties;
  }
  ++m_depth;
  return true;
}

bool TraceSax::end_object() {
  --m_depth;
  if (m_capture_depth != 0) {
    capture_close('}');
  } else if (m_in_event && m_depth == m_events_depth) {
    end_event();
  } else if (m_in_args && m_depth + 1 == m_args_depth) {
    m_in_args = false;
    // An event with "args" twice hashes both, in order.
    m_args_hash = (m_args_hash ^ m_reader.end_span()) * 0x9E3779B97F4A7C15ULL;
  } else if (m_in_distributed_info && m_depth == 1) {
    m_in_distributed_info = false;
  }
  return true;
}

bool TraceSax::start_array(std::size_t /*elements*/) {
  if (m_depth == 0) {
    m_top_is_array = true;
    m_trace.format = TraceFormat::legacy_array;
    start_events(1);
  } else if (m_capture_depth != 0) {
    capture_open('[');
  } else if (m_in_args && m_depth == m_args_depth && (m_args_key == Key::input_dims || m_args_key == Key::input_type)) {
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

bool TraceSax::end_array() {
  --m_depth;
  if (m_capture_depth != 0) {
    capture_close(']');
  } else if (m_in_events && m_depth + 1 == m_events_depth) {
    m_in_events = false;
  }
  return true;
}

bool TraceSax::key_view(std::string_view key) {
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
    m_top_key.assign(key);
  } else if (m_depth == 2 && m_in_distributed_info) {
    m_distributed_key.assign(key);
  } else if (m_depth == 3 && m_top_is_object && m_top_key == "deviceProperties") {
    m_device_key.assign(key);
  }
  return true;
}

bool TraceSax::parse_error(std::size_t position, const std::string& /*last_token*/,
                           const nlohmann::detail::exception& error) {
  // nlohmann counts the characters read including the offending one (or the end of input).
  const std::uint64_t offset = position > 0 ? position - 1 : 0;
  // The other JSON readers' wording (json_input.cpp): without "[json.exception.parse_error.101] " and
  // "parse error at line 1, column 5: " (also for out_of_range.406, "number overflow parsing '1e400'").
  const std::string reason = json_exception_reason(error);
  const std::string where = m_gzip ? " (offset in the decompressed data)" : "";
  if (!m_top_is_object && !m_top_is_array) {
    throw InputError(m_path, "not a trace: no JSON object or array" + where + " (" + reason + ")", offset);
  }
  if (m_reader.reached_end() && m_reader.offset() <= offset) {
    throw InputError(m_path, "truncated trace: the JSON ends early" + where + " (" + reason + ")", offset);
  }
  throw InputError(m_path, "not valid JSON" + where + ": " + reason, offset);
}

void TraceSax::finish() {
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

bool TraceSax::scalar_value(std::string_view text, bool is_string) {
  if (m_capture_depth != 0) {
    capture_separator();
    if (is_string) {
      m_capture->push_back('\'');
      m_capture->append(text);
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
    m_trace.metadata[m_top_key] = is_string ? json_quote(text) : std::string(text);
  } else if (m_depth == 2 && m_in_distributed_info) {
    m_trace.metadata["distributedInfo." + m_distributed_key] = is_string ? json_quote(text) : std::string(text);
  }
  return true;
}

void TraceSax::capture_separator() {
  if (m_capture_after_key) {
    m_capture_after_key = false;
    return;
  }
  const char last = m_capture->back();
  if (last != '[' && last != '{') {
    m_capture->append(", ");
  }
}

void TraceSax::capture_open(char bracket) {
  capture_separator();
  m_capture->push_back(bracket);
}

void TraceSax::capture_close(char bracket) {
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

void TraceSax::start_events(std::size_t depth) {
  m_in_events = true;
  m_saw_events = true;
  m_events_depth = depth;
  m_event_depth = depth + 1;
}

}  // namespace neuron_gate::trace_reader
