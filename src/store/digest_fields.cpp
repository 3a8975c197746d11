#include "store/digest_fields.hpp"

#include "input/json_input.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace neuron_gate {
namespace {

constexpr DataProblemKind k_problem_kinds[] = {
    DataProblemKind::bad_duration,        DataProblemKind::bad_timestamp,
    DataProblemKind::time_out_of_range,   DataProblemKind::missing_name,
    DataProblemKind::name_truncated,      DataProblemKind::invalid_utf8,
    DataProblemKind::unfinished,          DataProblemKind::negative_duration,
    DataProblemKind::device_out_of_range, DataProblemKind::longer_than_step,
    DataProblemKind::duplicate,           DataProblemKind::cut_off_step,
    DataProblemKind::device_time_lost,    DataProblemKind::overlapping_device_events,
    DataProblemKind::shared_correlation,  DataProblemKind::device_events_missing,
};

std::string key_path(const std::string& where, const char* key) {
  return where + "." + key;
}

}  // namespace

const char* trace_format_word(TraceFormat format) {
  switch (format) {
  case TraceFormat::kineto:
    return "kineto";
  case TraceFormat::legacy_array:
    return "legacy_array";
  case TraceFormat::key_averages_table:
    return "key_averages_table";
  }
  return "kineto";
}

const char* file_kind_id(FileKind kind) {
  return file_kind_row(kind).id;
}

void DigestFields::fail(const std::string& problem) const {
  throw InputError(m_path, problem);
}

std::string DigestFields::shown(const nlohmann::json& value) {
  return JsonFields::shown(value);
}

std::string DigestFields::key_text(const std::string& key) {
  const std::string text = shown(nlohmann::json(key));
  return text.substr(1, text.size() >= 2 && text.back() == '"' ? text.size() - 2 : text.size() - 1);
}

void DigestFields::keys(const nlohmann::json& value, const std::string& where,
                        std::initializer_list<std::string_view> expected) const {
  object(value, where);
  for (const auto& item : value.items()) {
    if (std::find(expected.begin(), expected.end(), item.key()) == expected.end()) {
      fail("unknown key \"" + where + "." + key_text(item.key()) + "\"");
    }
  }
  for (std::string_view key : expected) {
    if (!value.contains(key)) {
      fail("\"" + where + "\" has no \"" + std::string(key) + "\"");
    }
  }
}

const nlohmann::json& DigestFields::at(const nlohmann::json& object, const char* key, const std::string& where) const {
  const auto it = object.find(key);
  if (it == object.end()) {
    fail("\"" + where + "\" has no \"" + key + "\"");
  }
  return *it;
}

const nlohmann::json& DigestFields::object(const nlohmann::json& value, const std::string& where) const {
  if (!value.is_object()) {
    fail("\"" + where + "\" must be an object, not " + shown(value));
  }
  return value;
}

const nlohmann::json& DigestFields::array(const nlohmann::json& value, const std::string& where) const {
  if (!value.is_array()) {
    fail("\"" + where + "\" must be an array, not " + shown(value));
  }
  return value;
}

std::string DigestFields::checked_string(const std::string& text, const std::string& where) const {
  if (text.size() > input_limits().max_string_bytes) {
    fail("\"" + where + "\" is a string of " + std::to_string(text.size()) + " bytes, more than the limit of " +
         byte_count_text(input_limits().max_string_bytes) + " (NEURON_GATE_MAX_STRING_BYTES)");
  }
  return text;
}

std::string DigestFields::str(const nlohmann::json& object, const char* key, const std::string& where) const {
  const nlohmann::json& value = at(object, key, where);
  if (!value.is_string()) {
    fail("\"" + key_path(where, key) + "\" must be a string, not " + shown(value));
  }
  return checked_string(value.get<std::string>(), key_path(where, key));
}

bool DigestFields::boolean(const nlohmann::json& object, const char* key, const std::string& where) const {
  const nlohmann::json& value = at(object, key, where);
  if (!value.is_boolean()) {
    fail("\"" + key_path(where, key) + "\" must be true or false, not " + shown(value));
  }
  return value.get<bool>();
}

std::int64_t DigestFields::integer(const nlohmann::json& value, const std::string& where) const {
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  }
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    return value.get<std::int64_t>();
  }
  fail("\"" + where + "\" must be an integer of at most 63 bits, not " + shown(value));
}

std::int64_t DigestFields::checked_count(std::int64_t value, const std::string& where) const {
  if (value < 0) {
    fail("\"" + where + "\" must not be negative, not " + std::to_string(value));
  }
  return value;
}

Nanoseconds DigestFields::checked_ns(std::int64_t value, const std::string& where) const {
  if (value > k_digest_max_ns || value < -k_digest_max_ns) {
    fail("\"" + where + "\" is " + std::to_string(value) + " ns, beyond ±2^62 ns");
  }
  return value;
}

Nanoseconds DigestFields::checked_duration(std::int64_t value, const std::string& where) const {
  if (checked_ns(value, where) < 0) {
    fail("\"" + where + "\" must not be negative, not " + std::to_string(value) + " ns (a duration)");
  }
  return value;
}

Nanoseconds DigestFields::duration(const nlohmann::json& object, const char* key, const std::string& where) const {
  return checked_duration(integer(at(object, key, where), key_path(where, key)), key_path(where, key));
}

std::int64_t DigestFields::count(const nlohmann::json& object, const char* key, const std::string& where) const {
  return checked_count(integer(at(object, key, where), key_path(where, key)), key_path(where, key));
}

Nanoseconds DigestFields::ns(const nlohmann::json& object, const char* key, const std::string& where) const {
  return checked_ns(integer(at(object, key, where), key_path(where, key)), key_path(where, key));
}

double DigestFields::number(const nlohmann::json& value, const std::string& where) const {
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    fail("\"" + where + "\" must be a finite number, not " + shown(value));
  }
  return value.get<double>();
}

std::size_t DigestFields::word(const nlohmann::json& object, const char* key, const std::string& where,
                               std::initializer_list<std::string_view> words) const {
  const nlohmann::json& value = at(object, key, where);
  if (value.is_string()) {
    const auto it = std::find(words.begin(), words.end(), value.get<std::string>());
    if (it != words.end()) {
      return static_cast<std::size_t>(it - words.begin());
    }
  }
  std::string list;
  for (std::string_view w : words) {
    list += (list.empty() ? "\"" : ", \"") + std::string(w) + "\"";
  }
  fail("\"" + key_path(where, key) + "\" must be one of " + list + ", not " + shown(value));
}

DataProblemKind DigestFields::problem_kind(const nlohmann::json& object, const char* key,
                                           const std::string& where) const {
  const nlohmann::json& value = at(object, key, where);
  for (DataProblemKind kind : k_problem_kinds) {
    if (value.is_string() && value.get<std::string>() == data_problem_id(kind)) {
      return kind;
    }
  }
  fail("\"" + key_path(where, key) + "\" is not a kind of data problem: " + shown(value));
}

FileKind DigestFields::file_kind(const nlohmann::json& object, const char* key, const std::string& where) const {
  const nlohmann::json& value = at(object, key, where);
  for (const FileKindRow& row : file_kinds()) {
    if (value.is_string() && value.get<std::string>() == row.id) {
      if (row.kind == FileKind::digest) {
        break;  // a digest lists the files it was made of, never a digest
      }
      return row.kind;
    }
  }
  fail("\"" + key_path(where, key) + "\" is not a kind of profile file: " + shown(value));
}

void DigestFields::sha256(const std::string& text, const std::string& where) const {
  if (text.size() != 64 || text.find_first_not_of("0123456789abcdef") != std::string::npos) {
    fail("\"" + where + "\" must be a SHA-256 (64 lowercase hex digits), not " + shown(nlohmann::json(text)));
  }
}

std::vector<std::int64_t> DigestFields::int_row(const nlohmann::json& value, const std::string& where,
                                                std::size_t size) const {
  if (!value.is_array() || value.size() != size) {
    fail("\"" + where + "\" must be an array of " + std::to_string(size) + " integers, not " + shown(value));
  }
  std::vector<std::int64_t> row;
  for (std::size_t i = 0; i < size; ++i) {
    row.push_back(integer(value[i], where + "[" + std::to_string(i) + "]"));
  }
  return row;
}

const std::string& DigestFields::name_at(const std::vector<std::string>& names, std::int64_t index,
                                         const std::string& where) const {
  if (index < 0 || static_cast<std::uint64_t>(index) >= names.size()) {
    fail("\"" + where + "\" is " + std::to_string(index) + ", not an index into the trace's " +
         std::to_string(names.size()) + " names");
  }
  return names[static_cast<std::size_t>(index)];
}

std::vector<std::string> DigestFields::string_list(const nlohmann::json& object, const char* key,
                                                   const std::string& where) const {
  const std::string at_key = key_path(where, key);
  const nlohmann::json& value = array(at(object, key, where), at_key);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item = at_key + "[" + std::to_string(i) + "]";
    if (!value[i].is_string()) {
      fail("\"" + item + "\" must be a string, not " + shown(value[i]));
    }
    out.push_back(checked_string(value[i].get<std::string>(), item));
  }
  return out;
}

std::map<std::string, std::string> DigestFields::string_map(const nlohmann::json& object, const char* key,
                                                            const std::string& where) const {
  const std::string at_key = key_path(where, key);
  std::map<std::string, std::string> out;
  for (const auto& item : this->object(at(object, key, where), at_key).items()) {
    const std::string path = at_key + "." + key_text(item.key());
    if (!item.value().is_string()) {
      fail("\"" + path + "\" must be a string, not " + shown(item.value()));
    }
    out[checked_string(item.key(), path)] = checked_string(item.value().get<std::string>(), path);
  }
  return out;
}

std::map<std::string, Nanoseconds> DigestFields::ns_map(const nlohmann::json& object, const char* key,
                                                        const std::string& where) const {
  const std::string at_key = key_path(where, key);
  std::map<std::string, Nanoseconds> out;
  for (const auto& item : this->object(at(object, key, where), at_key).items()) {
    const std::string path = at_key + "." + key_text(item.key());
    out[checked_string(item.key(), path)] = checked_ns(integer(item.value(), path), path);
  }
  return out;
}

std::map<std::string, Nanoseconds> DigestFields::duration_map(const nlohmann::json& object, const char* key,
                                                              const std::string& where) const {
  std::map<std::string, Nanoseconds> out = ns_map(object, key, where);
  for (const auto& [name, ns] : out) {
    checked_duration(ns, key_path(where, key) + "." + name);
  }
  return out;
}

std::map<std::string, std::int64_t> DigestFields::count_map(const nlohmann::json& object, const char* key,
                                                            const std::string& where) const {
  const std::string at_key = key_path(where, key);
  std::map<std::string, std::int64_t> out;
  for (const auto& item : this->object(at(object, key, where), at_key).items()) {
    const std::string path = at_key + "." + key_text(item.key());
    out[checked_string(item.key(), path)] = checked_count(integer(item.value(), path), path);
  }
  return out;
}

std::map<std::string, std::set<std::string>> DigestFields::string_set_map(const nlohmann::json& object, const char* key,
                                                                          const std::string& where) const {
  const std::string at_key = key_path(where, key);
  std::map<std::string, std::set<std::string>> out;
  for (const auto& item : this->object(at(object, key, where), at_key).items()) {
    const std::string path = at_key + "." + key_text(item.key());
    if (!item.value().is_array()) {
      fail("\"" + path + "\" must be an array, not " + shown(item.value()));
    }
    std::set<std::string>& set = out[checked_string(item.key(), path)];
    for (std::size_t i = 0; i < item.value().size(); ++i) {
      const nlohmann::json& text = item.value()[i];
      if (!text.is_string()) {
        fail("\"" + path + "[" + std::to_string(i) + "]\" must be a string, not " + shown(text));
      }
      set.insert(checked_string(text.get<std::string>(), path));
    }
  }
  return out;
}

namespace {

// Adds |value| to `total`, failing past k_digest_max_ns (values are each within ±2^62, so no step overflows).
void add_time(std::int64_t& total, Nanoseconds value, const DigestFields& f, const std::string& path) {
  total += value < 0 ? -value : value;
  if (total > k_digest_max_ns) {
    f.fail("the side's times sum to more than 2^62 ns (" + path + "): not a real profile");
  }
}

}  // namespace

void DigestFields::check_negative_self_time(const TraceSamples& trace, const std::string& where) const {
  for (std::size_t i = 0; i <= trace.steps.size(); ++i) {
    const StepSample& step = i < trace.steps.size() ? trace.steps[i] : trace.outside_steps;
    for (const OpSample& op : step.ops) {
      const std::string& name = trace.op_keys[op.op];
      if (op.values.self_cpu_ns < 0 && trace.problems.negative_self_time.count(name) == 0) {
        fail("\"" + where + "\": op \"" + shorten_middle(valid_utf8(name), 80) + "\" has " +
             std::to_string(op.values.self_cpu_ns) + " ns of self CPU time in step \"" +
             shorten_middle(valid_utf8(step.name), 80) +
             "\" but is not in problems.negative_self_time (no trace gives that)");
      }
    }
  }
}

void DigestFields::check_side_limits(const SideSamples& side) const {
  const std::uint64_t limit = input_limits().max_distinct_ops;
  std::unordered_set<std::string> names;
  std::int64_t total = 0;
  for (const TraceSamples& trace : side.traces) {
    for (std::size_t i = 0; i <= trace.steps.size(); ++i) {
      const StepSample& step = i < trace.steps.size() ? trace.steps[i] : trace.outside_steps;
      add_time(total, step.duration_ns, *this, trace.path);
      add_time(total, step.unattributed_device_ns, *this, trace.path);
      for (const auto& [op, values] : step.ops) {
        add_time(total, values.self_cpu_ns, *this, trace.path);
        add_time(total, values.device_ns, *this, trace.path);
      }
      for (const auto& [name, ns] : step.device_kernels) {
        add_time(total, ns, *this, trace.path);
      }
      for (const auto& [category, ns] : step.unattributed_by_category) {
        add_time(total, ns, *this, trace.path);
      }
    }
    for (const Nanoseconds ns : {trace.screened.kept_cpu_ns, trace.screened.kept_device_ns,
                                 trace.screened.excluded_cpu_ns, trace.screened.excluded_device_ns}) {
      add_time(total, ns, *this, trace.path);
    }
    names.insert(trace.op_keys.begin(), trace.op_keys.end());
    if (names.size() > limit) {
      fail("more than " + std::to_string(limit) +
           " distinct op names on this side (the limit; raise it with NEURON_GATE_MAX_OPS if the profile is genuine)");
    }
  }
  for (const DataProblem& problem : side.data_problems) {
    add_time(total, problem.excluded_cpu_ns, *this, problem.file);
    add_time(total, problem.excluded_device_ns, *this, problem.file);
  }
}

}  // namespace neuron_gate
