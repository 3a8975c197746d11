#pragma once
// Compact JSON written as it is produced, with no document in memory (issue 21 item 4: the digest of a
// gigabyte trace was built as an nlohmann document first, at 2.2x the trace's size). The text is byte for
// byte what nlohmann's dump(-1, ' ', false, error_handler_t::replace) writes for the same values: no white
// space; integers in decimal; doubles as nlohmann prints them (shortest round-trip digits, "1.0" for one,
// null for NaN and infinities); strings escaped as nlohmann escapes them (\" \\ \b \f \n \r \t, other
// control characters \u00XX, UTF-8 kept as written, each invalid UTF-8 byte sequence replaced by U+FFFD).
// A string of printable ASCII is copied as is; any other string and every double is handed to nlohmann
// itself, so the rare cases are nlohmann's by construction.

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

class JsonWriter {
 public:
  // `sink` receives the text in order, in pieces of about 64 KiB (and the rest on flush()).
  explicit JsonWriter(std::function<void(std::string_view)> sink);

  // Containers. Inside an object, key() comes before each value; the writer places the commas.
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view name);

  // Values.
  void string(std::string_view text);
  void integer(std::int64_t value);
  void unsigned_integer(std::uint64_t value);
  void number(double value);
  void boolean(bool value);
  void null();

  // Hands the text not yet given to the sink. Call once the document is complete.
  void flush();

 private:
  void before_value();
  void after_value();
  void append_string(std::string_view text);

  std::function<void(std::string_view)> sink_;
  std::string buffer_;
  std::vector<char> has_element_;  // per open container: an element was written
  bool after_key_ = false;
};

// The JSON nlohmann gives these containers (what ordered_json makes of them): arrays of strings, objects
// keyed by the map's keys in the map's order.
void write_json(JsonWriter& out, const std::string& value);
void write_json(JsonWriter& out, std::int64_t value);
void write_json(JsonWriter& out, const std::vector<std::string>& values);
void write_json(JsonWriter& out, const std::set<std::string>& values);

template <class Value>
void write_json(JsonWriter& out, const std::map<std::string, Value>& values) {
  out.begin_object();
  for (const auto& [key, value] : values) {
    out.key(key);
    write_json(out, value);
  }
  out.end_object();
}

}  // namespace neuron_gate
