#pragma once
// The SAX handler of the trace reader (internal to kineto_trace.cpp): a small state machine over the JSON
// nesting depth that keeps each ph "X" event as a compact TraceEvent, flows, threads, processes, shapes and
// top-level metadata, and counts malformed events as data problems. Document-level callbacks are in
// trace_sax.cpp, the fields of one event in trace_sax_event.cpp.

#include "formats/kineto_trace.hpp"
#include "input/chunk_reader.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace neuron_gate::trace_reader {

using Json = nlohmann::json;

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

// The event key / args key a JSON key names (Key::other for keys the reader skips).
Key event_key(std::string_view key);
Key args_key(std::string_view key);

// JSON text of a string, for metadata values.
std::string json_quote(std::string_view text);

// µs as an integer -> ns, nullopt on overflow.
std::optional<Nanoseconds> integer_microseconds_to_ns(std::int64_t us);

// A flow or correlation id written as text: its number, else a FNV-1a hash of the text.
std::uint64_t id_from_text(std::string_view text);

// Decimal text of an integer.
template <typename Integer>
std::string integer_text(Integer value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

// Interns strings into dense ids (ids in order of first appearance). Names recur in the order of the
// step before, so the id that followed the previous string last time is tried first: one string compare
// on adjacent memory. Else an open-addressing table of ids (4 bytes a slot, the hash of each string kept
// by id) is probed with the text as a view: no node per string, no copy of the text unless it is new.
class StringTable {
 public:
  explicit StringTable(std::vector<std::string>& strings) : m_strings(strings) {
    m_strings.clear();  // ids are positions in `strings`
    m_slots.assign(64, k_none);
  }
  std::uint32_t intern(std::string_view text) {
    if (m_previous != k_none) {
      const std::uint32_t guess = m_successor[m_previous];
      if (guess != k_none && m_strings[guess] == text) {
        m_previous = guess;
        return guess;
      }
    }
    const std::uint32_t id = find_or_add(text);
    if (m_previous != k_none) {
      m_successor[m_previous] = id;
    }
    m_previous = id;
    return id;
  }

 private:
  static constexpr std::uint32_t k_none = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t find_or_add(std::string_view text) {
    const std::size_t hash = std::hash<std::string_view>()(text);
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = hash & mask;
    for (; m_slots[slot] != k_none; slot = (slot + 1) & mask) {
      const std::uint32_t id = m_slots[slot];
      if (m_hashes[id] == hash && m_strings[id] == text) {
        return id;
      }
    }
    const auto id = static_cast<std::uint32_t>(m_strings.size());
    m_strings.emplace_back(text);
    m_successor.push_back(k_none);
    m_hashes.push_back(hash);
    m_slots[slot] = id;
    if (2 * m_strings.size() > m_slots.size()) {
      grow();
    }
    return id;
  }

  // Doubles the table (kept at most half full) and places every id again.
  void grow() {
    m_slots.assign(m_slots.size() * 2, k_none);
    const std::size_t mask = m_slots.size() - 1;
    for (std::uint32_t id = 0; id < m_hashes.size(); ++id) {
      std::size_t slot = m_hashes[id] & mask;
      while (m_slots[slot] != k_none) {
        slot = (slot + 1) & mask;
      }
      m_slots[slot] = id;
    }
  }

  std::vector<std::string>& m_strings;
  std::vector<std::uint32_t> m_slots;      // ids, k_none = empty; a power of two in size
  std::vector<std::size_t> m_hashes;       // by id: the hash of its string
  std::vector<std::uint32_t> m_successor;  // by id: the id interned right after it last time
  std::uint32_t m_previous = k_none;
};

// The SAX handler: a small state machine over the nesting depth. Two parsers drive it: RapidJSON's SAX
// Reader on the fast path (trace_rapidjson.hpp, through the *_text / *_view callbacks below) and
// nlohmann's SAX parser (the interface below), which reads a file again when the fast path stops, so
// that every error message and every accepted file is exactly what nlohmann makes of it.
class TraceSax {
 public:
  TraceSax(RawTrace& trace, ChunkReader& reader, std::string path);

  // --- nlohmann SAX interface ---
  bool null();
  bool boolean(bool value);
  bool number_integer(Json::number_integer_t value);
  bool number_unsigned(Json::number_unsigned_t value);
  bool number_float(Json::number_float_t /*value*/, const std::string& text) { return float_text(text); }
  bool string(std::string& value) { return string_view(value); }
  bool binary(Json::binary_t& /*value*/) { return true; }

  bool start_object(std::size_t /*elements*/);

  bool end_object();

  bool start_array(std::size_t /*elements*/);

  bool end_array();

  bool key(std::string& key) { return key_view(key); }

  // --- the same callbacks without std::string (the RapidJSON adapter) ---
  // A number written with a fraction or exponent, or an integer beyond int64/uint64, as its JSON text.
  bool float_text(std::string_view text);
  // An integer within int64 (negative) or uint64 with its JSON text as nlohmann would print the value
  // (no leading zeros, "0" for -0).
  bool signed_integer(std::int64_t value, std::string_view text);
  bool unsigned_integer(std::uint64_t value, std::string_view text);
  bool string_view(std::string_view value);
  bool key_view(std::string_view key);
  // The current nesting depth (open objects and arrays).
  std::size_t depth() const { return m_depth; }

  bool parse_error(std::size_t position, const std::string& /*last_token*/, const nlohmann::detail::exception& error);

  // --- after the parse ---
  void finish();

  bool any_categorised_event() const { return m_categorised_events > 0; }

  void set_gzip(bool gzip) { m_gzip = gzip; }

 private:
  // A scalar anywhere: metadata at the top level, a captured Input Dims / Input type element.
  bool scalar_value(std::string_view text, bool is_string);

  void capture_separator();
  void capture_open(char bracket);
  void capture_close(char bracket);

  void start_events(std::size_t depth);

  void begin_event();

  // An integer field of the event (ts, dur, pid, tid, id), with its text.
  bool event_integer(std::int64_t value, std::uint64_t as_unsigned, std::string_view text);

  // A string or non-integer number field of the event; `is_string` tells which.
  bool event_text(std::string_view text, bool is_string);

  // A ts or dur given as null or a boolean, remembered for the data problem's example.
  void note_raw_time(const char* text);

  // How a ts or dur was written, for an example: `"dur": null`, `"dur": "n/a"`, no "dur".
  static std::string raw_field(const char* key, const std::string& raw, const std::optional<std::int64_t>& integer);

  // Counts a ph "X" event that has no usable name, ts or dur, by kind, with its first example.
  void count_malformed();
  // Keeps the current event in RawTrace::unusable with `marker` as its dur (k_unusable_* in kineto_trace.hpp).
  void keep_unusable(Nanoseconds marker);

  void args_id(std::uint64_t value);

  // The 32-bit code of an id (TraceEvent::correlation, external_id): the same value, the same code.
  IdCode id_code(std::uint64_t value);

  std::uint32_t process_index(const std::string& pid);

  std::uint32_t thread_index();

  std::uint32_t find_thread();

  std::uint32_t shapes_index();

  void end_event();

  void add_complete_event();

  RawTrace& m_trace;
  ChunkReader& m_reader;
  std::string m_path;
  StringTable m_names;
  StringTable m_categories;
  EventKeyTable m_event_keys;
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
  std::string m_ts_raw;  // ts as written when not an integer (string, float, null), for examples
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
  std::vector<std::string> m_shape_keys;    // by shapes index - 1: dims '\0' types
  StringTable m_shape_table{m_shape_keys};  // interns m_shape_keys (ids in order, like RawTrace::shapes)
  // Ids of k_wide_id or more -> their codes (held only while reading: ids written as text, hashed, are wide).
  std::unordered_map<std::uint64_t, IdCode> m_wide_ids;
};

}  // namespace neuron_gate::trace_reader
