#include "formats/neuron_summary.hpp"

#include "input/json_input.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

namespace neuron_gate {

namespace {

const nlohmann::json* metadata_of(const nlohmann::json& object) {
  for (const char* key : {"metadata", "Metadata"}) {
    const auto it = object.find(key);
    if (it != object.end() && it->is_object()) {
      return &*it;
    }
  }
  return nullptr;
}

std::optional<std::string> text_field(const nlohmann::json* object, const char* key) {
  if (object == nullptr || !object->is_object()) {
    return std::nullopt;
  }
  const auto it = object->find(key);
  if (it == object->end() || it->is_null()) {
    return std::nullopt;
  }
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// "explorer_version X, profile_schema_version Y", looking in the summary's metadata object, the summary itself,
// then the document's metadata object and the document; "unknown" when none has either key.
std::string version_of(const nlohmann::json& summary, const nlohmann::json& document) {
  const std::array<const nlohmann::json*, 4> places = {
      metadata_of(summary), &summary, document.is_object() ? metadata_of(document) : nullptr, &document};
  std::string version;
  for (const char* key : {"explorer_version", "profile_schema_version"}) {
    for (const nlohmann::json* place : places) {
      if (const auto value = text_field(place, key)) {
        version += (version.empty() ? "" : ", ") + std::string(key) + " " + *value;
        break;
      }
    }
  }
  return version.empty() ? "unknown" : version;
}

constexpr std::string_view k_engine_suffix = "_engine_active_time";

bool is_engine_active_time_key(std::string_view key) {
  return key.size() > k_engine_suffix.size() && key.substr(key.size() - k_engine_suffix.size()) == k_engine_suffix;
}

// "tensor" for "tensor_engine_active_time".
std::string engine_of(std::string_view key) {
  return std::string(key.substr(0, key.size() - k_engine_suffix.size()));
}

std::optional<double> number_from_text(std::string_view text) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') {
    ++begin;
  }
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || stop != end || begin == end) {
    return std::nullopt;
  }
  return value;
}

bool means_no_value(std::string_view text) {
  return text.empty() || non_finite_token_length(text, 0) == text.size();
}

// A time in seconds: null, a non-finite number or a "NaN" string is no value. Numeric strings are accepted
// (and said in `assumptions`); anything else, or a negative time, is an InputError.
std::optional<double> seconds_from_json(const nlohmann::json& value, const std::string& key, const std::string& path,
                                        bool& read_a_string) {
  std::optional<double> seconds;
  if (value.is_null()) {
    return std::nullopt;
  }
  if (value.is_number()) {
    seconds = value.get<double>();
  } else if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (means_no_value(text)) {
      return std::nullopt;
    }
    seconds = number_from_text(text);
    read_a_string = true;
  }
  if (!seconds) {
    throw InputError(path, "\"" + key + "\" is not a number of seconds: " + value.dump());
  }
  if (!std::isfinite(*seconds)) {
    return std::nullopt;
  }
  if (*seconds < 0.0) {
    throw InputError(path, "\"" + key + "\" is a negative time: " + value.dump());
  }
  return seconds;
}

NeuronSummary summary_from_object(const nlohmann::json& object, const nlohmann::json& document, const std::string& path,
                                  std::string shape) {
  NeuronSummary summary;
  summary.path = path;
  summary.version = version_of(object, document);
  summary.assumptions.push_back(std::move(shape));
  bool read_a_string = false;
  for (const auto& [key, value] : object.items()) {
    const bool is_total = key == "total_time" || key == "total_active_time";
    if (!is_total && !is_engine_active_time_key(key)) {
      continue;
    }
    const std::optional<double> seconds = seconds_from_json(value, key, path, read_a_string);
    if (!seconds) {
      summary.no_value_keys.push_back(key);
    }
    if (key == "total_time") {
      summary.total_time_s = seconds;
    } else if (key == "total_active_time") {
      summary.total_active_time_s = seconds;
    } else if (seconds) {
      summary.engine_active_time_s[engine_of(key)] = *seconds;
    }
  }
  if (read_a_string) {
    summary.assumptions.push_back("some times were strings and were read as numbers");
  }
  return summary;
}

void add_common_assumptions(std::vector<NeuronSummary>& summaries, std::size_t non_finite_replaced) {
  for (auto& summary : summaries) {
    summary.assumptions.push_back("times are in seconds; *_percent keys are not read (0-1 or 0-100 is unverified)");
    if (non_finite_replaced > 0) {
      summary.assumptions.push_back(std::to_string(non_finite_replaced) +
                                    " bare NaN/Infinity token(s) in the file were read as no value");
    }
  }
}

// The summaries of one object: its own keys when it holds "total_time", else its "summary" object or array.
// Returns false when neither is there.
bool collect_from_object(const nlohmann::json& object, const nlohmann::json& document, const std::string& path,
                         const std::string& where, std::vector<NeuronSummary>& out) {
  if (object.contains("total_time")) {
    out.push_back(summary_from_object(object, document, path, where + " holding the metric keys"));
    return true;
  }
  const auto it = object.find("summary");
  if (it == object.end()) {
    return false;
  }
  if (it->is_object()) {
    if (!it->contains("total_time")) {
      throw InputError(path, where + ": \"summary\" has no \"total_time\"");
    }
    out.push_back(summary_from_object(*it, document, path, where + " whose \"summary\" is an object"));
    return true;
  }
  if (!it->is_array() || it->empty()) {
    throw InputError(path, where + ": \"summary\" is neither an object nor a non-empty array");
  }
  const std::size_t count = it->size();
  for (std::size_t index = 0; index < count; ++index) {
    const auto& entry = (*it)[index];
    if (!entry.is_object() || !entry.contains("total_time")) {
      throw InputError(path, where + ": \"summary\" entry " + std::to_string(index) +
                                 " is not an object with \"total_time\"");
    }
    out.push_back(summary_from_object(entry, document, path,
                                      where + " whose \"summary\" is an array (legacy neuron-profile JSON): entry " +
                                          std::to_string(index) + " of " + std::to_string(count)));
  }
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

bool is_summary_text_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// One `key value` line of summary-text (views into the text); `key` is empty when the line is not of that form.
struct TextLine {
  std::string_view key;
  std::string_view value;
};

TextLine split_text_line(std::string_view line) {
  line = trim(line);
  const std::size_t space = line.find_first_of(" \t");
  if (space == std::string_view::npos) {
    return {};
  }
  const std::string_view key = line.substr(0, space);
  const std::string_view value = trim(line.substr(space));
  if (!is_summary_text_key(key) || value.empty()) {
    return {};
  }
  return {key, value};
}

}  // namespace

bool looks_like_neuron_summary_json(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") {
    head.remove_prefix(3);
  }
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (head[first] != '{' && head[first] != '[')) {
    return false;
  }
  if (head.find("\"total_time\"") == std::string_view::npos) {
    return false;
  }
  if (head.find("\"total_active_time\"") != std::string_view::npos ||
      head.find("\"summary\"") != std::string_view::npos) {
    return true;
  }
  // A key such as "tensor_engine_active_time": `_engine_`, then the closing quote and a colon.
  for (std::size_t at = head.find("_engine_"); at != std::string_view::npos; at = head.find("_engine_", at + 1)) {
    const std::size_t close = head.find('"', at);
    const std::size_t colon = close == std::string_view::npos ? close : head.find_first_not_of(" \t\r\n", close + 1);
    if (colon != std::string_view::npos && head[colon] == ':') {
      return true;
    }
  }
  return false;
}

bool looks_like_neuron_summary_text(std::string_view head) {
  bool saw_total_time = false;
  std::size_t start = 0;
  while (start < head.size()) {
    std::size_t end = head.find('\n', start);
    const bool complete = end != std::string_view::npos;
    if (!complete) {
      end = head.size();
    }
    const std::string_view line = trim(head.substr(start, end - start));
    start = end + 1;
    if (line.empty()) {
      continue;
    }
    const TextLine parsed = split_text_line(line);
    if (parsed.key.empty() || parsed.value.find_first_of(" \t") != std::string_view::npos) {
      // The head may cut the last line: judge only its key.
      if (!complete && is_summary_text_key(line.substr(0, line.find_first_of(" \t")))) {
        continue;
      }
      return false;
    }
    saw_total_time = saw_total_time || parsed.key == "total_time";
  }
  return saw_total_time;
}

std::vector<NeuronSummary> parse_neuron_summary_json(std::string_view text, const std::string& path) {
  // The legacy `instruction` array (one row per device instruction, often millions) is dropped while parsing,
  // since only the summary is read.
  JsonReadOptions options;
  options.non_finite_as_null = true;
  options.callback = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed == "instruction");
  };
  const JsonDocument parsed = parse_json_input(text, path, options);
  const nlohmann::json& document = parsed.value;
  std::vector<NeuronSummary> summaries;
  const std::string no_summary =
      "no Neuron summary found: expected \"total_time\" in the top-level object, in its \"summary\" object or "
      "array, or in each element of a top-level array";
  if (document.is_object()) {
    if (!collect_from_object(document, document, path, "a top-level object", summaries)) {
      throw InputError(path, no_summary);
    }
  } else if (document.is_array() && !document.empty()) {
    const std::size_t count = document.size();
    for (std::size_t index = 0; index < count; ++index) {
      const auto& element = document[index];
      const std::string where = "a top-level array taken as one object per NTFF: element " + std::to_string(index) +
                                " of " + std::to_string(count);
      if (!element.is_object() || !collect_from_object(element, document, path, where, summaries)) {
        throw InputError(path, "element " + std::to_string(index) + " of the top-level array has no \"total_time\"");
      }
    }
  } else {
    throw InputError(path, no_summary);
  }
  add_common_assumptions(summaries, parsed.non_finite_replaced);
  return summaries;
}

std::vector<NeuronSummary> read_neuron_summary_json(const std::string& path) {
  return parse_neuron_summary_json(read_input_text(path).text, path);
}

namespace {

// The seconds of a summary-text time line: nullopt for "no value" words and non-finite numbers (counted
// by the caller); an input error at `value_offset` for text that is no number or a negative time.
std::optional<double> text_seconds(const TextLine& line, const std::string& path, std::uint64_t value_offset) {
  if (means_no_value(line.value)) {
    return std::nullopt;
  }
  std::optional<double> seconds = number_from_text(line.value);
  if (!seconds) {
    throw InputError(
        path, "\"" + std::string(line.key) + "\" is not a number of seconds: \"" + std::string(line.value) + "\"",
        value_offset);
  }
  if (*seconds < 0.0) {
    throw InputError(path, "\"" + std::string(line.key) + "\" is a negative time: \"" + std::string(line.value) + "\"",
                     value_offset);
  }
  return std::isfinite(*seconds) ? seconds : std::nullopt;
}

// The versions a summary-text file states, and how it was read, on each of its summaries.
void add_text_provenance(std::vector<NeuronSummary>& summaries, const std::optional<std::string>& explorer_version,
                         const std::optional<std::string>& schema_version) {
  std::string version;
  if (explorer_version) {
    version = "explorer_version " + *explorer_version;
  }
  if (schema_version) {
    version += (version.empty() ? "" : ", ") + std::string("profile_schema_version ") + *schema_version;
  }
  const std::size_t count = summaries.size();
  for (std::size_t index = 0; index < count; ++index) {
    NeuronSummary& summary = summaries[index];
    summary.version = version.empty() ? "unknown" : version;
    summary.assumptions.push_back(count == 1 ? "summary-text: one `key value` per line"
                                             : "summary-text: one `key value` per line, a repeated key starting the "
                                               "next execution: execution " +
                                                   std::to_string(index) + " of " + std::to_string(count));
    summary.assumptions.push_back("times are in seconds; *_percent keys are not read (0-1 or 0-100 is unverified)");
  }
}

}  // namespace

std::vector<NeuronSummary> parse_neuron_summary_text(std::string_view text, const std::string& path) {
  std::vector<NeuronSummary> summaries;
  std::set<std::string, std::less<>> keys_seen;
  std::optional<std::string> explorer_version;
  std::optional<std::string> schema_version;
  bool saw_total_time = false;
  auto start_summary = [&]() {
    NeuronSummary summary;
    summary.path = path;
    summaries.push_back(std::move(summary));
    keys_seen.clear();
  };
  start_summary();
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    const TextLine line = split_text_line(text.substr(start, end - start));
    start = end + 1;
    if (line.key.empty()) {
      continue;
    }
    const auto value_offset = static_cast<std::uint64_t>(line.value.data() - text.data());
    if (keys_seen.count(line.key) > 0) {
      start_summary();
    }
    keys_seen.emplace(line.key);
    NeuronSummary& summary = summaries.back();
    if (line.key == "explorer_version") {
      explorer_version = std::string(line.value);
      continue;
    }
    if (line.key == "profile_schema_version") {
      schema_version = std::string(line.value);
      continue;
    }
    const bool is_total = line.key == "total_time" || line.key == "total_active_time";
    if (!is_total && !is_engine_active_time_key(line.key)) {
      continue;
    }
    const std::optional<double> seconds = text_seconds(line, path, value_offset);
    if (!seconds) {
      summary.no_value_keys.emplace_back(line.key);
    }
    if (line.key == "total_time") {
      saw_total_time = true;
      summary.total_time_s = seconds;
    } else if (line.key == "total_active_time") {
      summary.total_active_time_s = seconds;
    } else if (seconds) {
      summary.engine_active_time_s[engine_of(line.key)] = *seconds;
    }
  }
  if (!saw_total_time) {
    throw InputError(path, "no \"total_time\" line: not a neuron-explorer summary-text file");
  }
  add_text_provenance(summaries, explorer_version, schema_version);
  return summaries;
}

std::vector<NeuronSummary> read_neuron_summary_text(const std::string& path) {
  return parse_neuron_summary_text(read_input_text(path).text, path);
}

std::vector<EndToEndMetric> neuron_summary_metrics(const std::vector<NeuronSummary>& summaries) {
  if (summaries.empty()) {
    return {};
  }
  std::set<std::string> engines;
  for (const auto& summary : summaries) {
    for (const auto& [engine, seconds] : summary.engine_active_time_s) {
      engines.insert(engine);
    }
  }
  std::vector<EndToEndMetric> metrics;
  auto add = [&](const std::string& measure, auto value_of) {
    EndToEndMetric metric;
    metric.name = "device " + measure;
    metric.unit = "s";
    metric.better = Better::lower;
    metric.origin = EndToEndOrigin::device_summary;
    metric.source_path = summaries.front().path;
    for (const auto& summary : summaries) {
      if (const std::optional<double> value = value_of(summary)) {
        metric.samples.push_back(*value);
      }
    }
    if (!metric.samples.empty()) {
      metrics.push_back(std::move(metric));
    }
  };
  add("total_time", [](const NeuronSummary& summary) { return summary.total_time_s; });
  add("total_active_time", [](const NeuronSummary& summary) { return summary.total_active_time_s; });
  for (const std::string& engine : engines) {
    add(engine + "_engine_active_time", [&engine](const NeuronSummary& summary) -> std::optional<double> {
      const auto it = summary.engine_active_time_s.find(engine);
      return it == summary.engine_active_time_s.end() ? std::nullopt : std::optional<double>(it->second);
    });
  }
  return metrics;
}

}  // namespace neuron_gate
