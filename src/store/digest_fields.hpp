#pragma once
// Type- and range-checked access to a parsed digest (digest_json.cpp). A digest comes from a pull request
// like any profile: every failure is InputError(path, "\"side.traces[0].event_count\" must be a
// non-negative integer, not -1"), with the key path written like the JSON readers' (json_input.hpp).

#include "formats/data_problems.hpp"
#include "formats/discover.hpp"
#include "profile/read_side.hpp"
#include "util/units.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The largest time a digest may hold, in ns, in magnitude: 2^62 (146 years; traces refuse times beyond
// a century, trace_samples.hpp). A side's times (self CPU, device, steps) must also sum to at most this, so
// no sum the comparison takes can overflow.
inline constexpr std::int64_t k_digest_max_ns = std::int64_t{1} << 62;

// Stable identifier of a file kind in a digest (its row's id, file_kinds.hpp): "trace", "end_to_end",
// "key_averages_table", "run_manifest", "neuron_artifact", "google_benchmark", "hyperfine", "pytest_benchmark",
// "neuron_summary_json", "neuron_summary_text", "digest", "ignored".
const char* file_kind_id(FileKind kind);

// A trace format's word in a digest: "kineto", "legacy_array", "key_averages_table".
const char* trace_format_word(TraceFormat format);

class DigestFields {
 public:
  explicit DigestFields(std::string path) : m_path(std::move(path)) {}
  [[noreturn]] void fail(const std::string& problem) const;
  // `value` shown in a message: JSON text cut to 60 bytes (JsonFields::shown).
  static std::string shown(const nlohmann::json& value);
  // A key as shown in a key path: cut to 60 bytes.
  static std::string key_text(const std::string& key);

  // `value` must be an object holding exactly the keys `expected` (a missing or unknown key fails).
  void keys(const nlohmann::json& value, const std::string& where,
            std::initializer_list<std::string_view> expected) const;
  const nlohmann::json& at(const nlohmann::json& object, const char* key, const std::string& where) const;
  const nlohmann::json& object(const nlohmann::json& value, const std::string& where) const;
  const nlohmann::json& array(const nlohmann::json& value, const std::string& where) const;

  // Scalars of object[key].
  std::string str(const nlohmann::json& object, const char* key, const std::string& where) const;
  bool boolean(const nlohmann::json& object, const char* key, const std::string& where) const;
  std::int64_t count(const nlohmann::json& object, const char* key, const std::string& where) const;  // >= 0
  Nanoseconds ns(const nlohmann::json& object, const char* key, const std::string& where) const;      // |ns| <= 2^62
  // The index in `words` of object[key], which must be one of them.
  std::size_t word(const nlohmann::json& object, const char* key, const std::string& where,
                   std::initializer_list<std::string_view> words) const;
  DataProblemKind problem_kind(const nlohmann::json& object, const char* key, const std::string& where) const;
  FileKind file_kind(const nlohmann::json& object, const char* key, const std::string& where) const;

  // Checks on values already taken out.
  std::int64_t integer(const nlohmann::json& value, const std::string& where) const;
  double number(const nlohmann::json& value, const std::string& where) const;  // finite
  Nanoseconds checked_ns(std::int64_t value, const std::string& where) const;
  // A duration or a sum of durations (step time, device time): checked_ns and not negative, as no trace
  // gives one (a trace's negative durations are excluded and counted, never summed).
  Nanoseconds checked_duration(std::int64_t value, const std::string& where) const;
  Nanoseconds duration(const nlohmann::json& object, const char* key, const std::string& where) const;
  std::int64_t checked_count(std::int64_t value, const std::string& where) const;
  std::string checked_string(const std::string& text, const std::string& where) const;  // length limit
  void sha256(const std::string& text, const std::string& where) const;                 // 64 lowercase hex digits
  // An array of exactly `size` integers.
  std::vector<std::int64_t> int_row(const nlohmann::json& value, const std::string& where, std::size_t size) const;
  // names[index], failing when the index is out of range.
  const std::string& name_at(const std::vector<std::string>& names, std::int64_t index, const std::string& where) const;

  // Containers of object[key].
  std::vector<std::string> string_list(const nlohmann::json& object, const char* key, const std::string& where) const;
  std::map<std::string, std::string> string_map(const nlohmann::json& object, const char* key,
                                                const std::string& where) const;
  std::map<std::string, Nanoseconds> ns_map(const nlohmann::json& object, const char* key,
                                            const std::string& where) const;
  // ns_map whose values are durations (checked_duration).
  std::map<std::string, Nanoseconds> duration_map(const nlohmann::json& object, const char* key,
                                                  const std::string& where) const;
  std::map<std::string, std::int64_t> count_map(const nlohmann::json& object, const char* key,
                                                const std::string& where) const;
  std::map<std::string, std::set<std::string>> string_set_map(const nlohmann::json& object, const char* key,
                                                              const std::string& where) const;

  // Inserts key -> value, failing when the key is already there (a name repeated in one step).
  template <typename Value>
  void insert_unique(std::map<std::string, Value>& map, const std::string& key, Value value,
                     const std::string& where) const {
    if (!map.emplace(key, std::move(value)).second) {
      fail("\"" + where + "\" repeats the name " + shown(nlohmann::json(key)) + " in one step");
    }
  }

  // The side as a whole: at most input_limits().max_distinct_ops op names, and its times (every step's
  // duration, every op's |self CPU| and |device| time, every kernel's time) summing to at most 2^62 ns.
  void check_side_limits(const SideSamples& side) const;
  // A step's negative self CPU time of an op only where the trace's problems list that op under
  // negative_self_time, as the trace reader leaves them (trace_samples.hpp); `where` names the trace.
  void check_negative_self_time(const TraceSamples& trace, const std::string& where) const;

 private:
  std::string m_path;
};

}  // namespace neuron_gate
