#include "formats/benchmark_formats.hpp"

#include "formats/neuron_summary.hpp"
#include "input/json_input.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

namespace neuron_gate {

namespace {

// Parses JSON reading bare NaN/Infinity tokens as null: Google Benchmark writes NaN for a statistic of zeros (the
// cv of a counter that stayed 0). Byte offsets in errors are those of the original text.
nlohmann::json parse_json(std::string_view text, const std::string& path) {
  JsonReadOptions options;
  options.non_finite_as_null = true;
  return parse_json_input(text, path, options).value;
}

std::string_view skip_bom_and_space(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") {
    head.remove_prefix(3);
  }
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? std::string_view() : head.substr(first);
}

// The first key of a JSON object text ("" when the text does not start with `{"`). Keys of the tools we sniff
// hold no escapes.
std::string_view first_key(std::string_view object_text) {
  if (object_text.empty() || object_text.front() != '{') {
    return {};
  }
  const std::size_t open = object_text.find_first_not_of(" \t\r\n", 1);
  if (open == std::string_view::npos || object_text[open] != '"') {
    return {};
  }
  const std::size_t close = object_text.find('"', open + 1);
  return close == std::string_view::npos ? std::string_view() : object_text.substr(open + 1, close - open - 1);
}

bool contains(std::string_view text, std::string_view quoted_key) {
  return text.find(quoted_key) != std::string_view::npos;
}

std::optional<std::string> string_field(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_string()) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

// Pre-1.5 Google Benchmark wrote no run_type: aggregates are only told by their name suffix.
bool is_google_aggregate(const nlohmann::json& entry) {
  if (const auto run_type = string_field(entry, "run_type")) {
    return *run_type == "aggregate";
  }
  if (entry.contains("aggregate_name")) {
    return true;
  }
  const std::string name = string_field(entry, "name").value_or("");
  for (const std::string_view suffix : {"_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS"}) {
    if (name.size() > suffix.size() && std::string_view(name).substr(name.size() - suffix.size()) == suffix) {
      return true;
    }
  }
  return false;
}

bool is_true(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  return it != entry.end() && it->is_boolean() && it->get<bool>();
}

// A sample value: a finite number is a sample, null (a NaN token in the file) is none, anything else throws.
std::optional<double> sample_value(const nlohmann::json& value, const std::string& what, const std::string& path) {
  if (value.is_null()) {
    return std::nullopt;
  }
  if (!value.is_number()) {
    throw InputError(path, what + " is not a number: " + value.dump());
  }
  const double number = value.get<double>();
  if (!std::isfinite(number)) {
    return std::nullopt;
  }
  return number;
}

EndToEndMetric make_metric(std::string name, std::string unit, Better better, const std::string& path) {
  EndToEndMetric metric;
  metric.name = std::move(name);
  metric.unit = std::move(unit);
  metric.better = better;
  metric.source_path = path;
  return metric;
}

// The measures of one Google Benchmark `run_name`, filled repetition by repetition.
struct GoogleBenchmarkRun {
  std::string time_unit;
  EndToEndMetric real_time;
  EndToEndMetric cpu_time;
  EndToEndMetric items_per_second;
  EndToEndMetric bytes_per_second;
};

const nlohmann::json& top_level_array(const nlohmann::json& document, const char* key, const char* tool,
                                      const std::string& path) {
  if (!document.is_object() || !document.contains(key) || !document[key].is_array()) {
    throw InputError(path, std::string("not ") + tool + " JSON: no \"" + key + "\" array in the top-level object");
  }
  return document[key];
}

// The time unit of a Google Benchmark entry (default ns); an input error unless ns, us, ms or s.
std::string google_time_unit(const nlohmann::json& entry, const std::string& name, const std::string& path) {
  static const std::set<std::string> k_time_units = {"ns", "us", "ms", "s"};
  if (entry.contains("time_unit") && !entry["time_unit"].is_string()) {
    throw InputError(path, "benchmark \"" + name + "\": \"time_unit\" is not a string: " + entry["time_unit"].dump());
  }
  std::string time_unit = string_field(entry, "time_unit").value_or("ns");
  if (k_time_units.count(time_unit) == 0) {
    throw InputError(path,
                     "benchmark \"" + name + "\": unknown time unit \"" + time_unit + "\" (expected ns, us, ms or s)");
  }
  return time_unit;
}

// One repetition of a Google Benchmark entry: a sample of real_time and cpu_time (both required) and of
// the rates where present.
void add_repetition(const nlohmann::json& entry, const std::string& name, GoogleBenchmarkRun& run,
                    const std::string& path) {
  const std::pair<const char*, EndToEndMetric*> measures[] = {{"real_time", &run.real_time},
                                                              {"cpu_time", &run.cpu_time},
                                                              {"items_per_second", &run.items_per_second},
                                                              {"bytes_per_second", &run.bytes_per_second}};
  for (const auto& [key, metric] : measures) {
    const auto value = entry.find(key);
    if (value == entry.end()) {
      // Rates are there only when the benchmark calls SetItemsProcessed / SetBytesProcessed.
      if (metric == &run.real_time || metric == &run.cpu_time) {
        throw InputError(path, "benchmark \"" + name + "\" has no \"" + key + "\"");
      }
      continue;
    }
    if (const auto sample = sample_value(*value, "benchmark \"" + name + "\": \"" + key + "\"", path)) {
      metric->samples.push_back(*sample);
    }
  }
}

}  // namespace

std::string_view benchmark_format_name(BenchmarkFormat format) {
  switch (format) {
  case BenchmarkFormat::google_benchmark:
    return "google-benchmark";
  case BenchmarkFormat::hyperfine:
    return "hyperfine";
  case BenchmarkFormat::pytest_benchmark:
    return "pytest-benchmark";
  case BenchmarkFormat::unknown:
    break;
  }
  return "unknown";
}

BenchmarkFormat sniff_benchmark_format(std::string_view head) {
  head = skip_bom_and_space(head);
  const std::string_view key = first_key(head);
  if (key.empty()) {
    return BenchmarkFormat::unknown;
  }
  if (key == "context" && (contains(head, "\"num_cpus\"") || contains(head, "\"benchmarks\""))) {
    return BenchmarkFormat::google_benchmark;
  }
  if (key == "results" && contains(head, "\"command\"")) {
    return BenchmarkFormat::hyperfine;
  }
  if (contains(head, "\"machine_info\"") || (contains(head, "\"benchmarks\"") && contains(head, "\"fullname\""))) {
    return BenchmarkFormat::pytest_benchmark;
  }
  return BenchmarkFormat::unknown;
}

std::vector<EndToEndMetric> parse_google_benchmark_json(std::string_view text, const std::string& path) {
  const nlohmann::json document = parse_json(text, path);
  const nlohmann::json& entries = top_level_array(document, "benchmarks", "Google Benchmark", path);
  std::vector<std::string> order;
  std::map<std::string, GoogleBenchmarkRun> runs;
  std::size_t aggregates = 0;
  std::size_t failed = 0;
  for (std::size_t index = 0; index < entries.size(); ++index) {
    const nlohmann::json& entry = entries[index];
    if (!entry.is_object()) {
      throw InputError(path, "benchmark entry " + std::to_string(index) + " is not an object: " + entry.dump());
    }
    if (is_google_aggregate(entry)) {
      ++aggregates;
      continue;
    }
    if (is_true(entry, "error_occurred") || is_true(entry, "skipped")) {
      ++failed;
      continue;
    }
    // `run_name` groups the repetitions; older versions only wrote `name`, which is the same for iterations.
    const std::string name = string_field(entry, "run_name").value_or(string_field(entry, "name").value_or(""));
    if (name.empty()) {
      throw InputError(path, "benchmark entry " + std::to_string(index) + " has no string \"name\"");
    }
    const std::string time_unit = google_time_unit(entry, name, path);
    auto [it, inserted] = runs.try_emplace(name);
    GoogleBenchmarkRun& run = it->second;
    if (inserted) {
      order.push_back(name);
      run.time_unit = time_unit;
      run.real_time = make_metric(name + " real_time", time_unit, Better::lower, path);
      run.cpu_time = make_metric(name + " cpu_time", time_unit, Better::lower, path);
      run.items_per_second = make_metric(name + " items_per_second", "items/s", Better::higher, path);
      run.bytes_per_second = make_metric(name + " bytes_per_second", "bytes/s", Better::higher, path);
    } else if (run.time_unit != time_unit) {
      throw InputError(path, "benchmark \"" + name + "\": the time unit changes from \"" + run.time_unit + "\" to \"" +
                                 time_unit + "\" between repetitions");
    }
    add_repetition(entry, name, run, path);
  }
  std::vector<EndToEndMetric> metrics;
  for (const std::string& name : order) {
    GoogleBenchmarkRun& run = runs[name];
    for (EndToEndMetric* metric : {&run.real_time, &run.cpu_time, &run.items_per_second, &run.bytes_per_second}) {
      if (!metric->samples.empty()) {
        metrics.push_back(std::move(*metric));
      }
    }
  }
  if (metrics.empty()) {
    if (aggregates > 0) {
      throw InputError(path, "only aggregate entries (mean, median, stddev, cv): rerun without "
                             "--benchmark_report_aggregates_only to keep each repetition");
    }
    if (failed > 0) {
      throw InputError(path, "every benchmark entry reports an error or was skipped");
    }
    throw InputError(path, "no benchmark entries in \"benchmarks\"");
  }
  return metrics;
}

std::vector<EndToEndMetric> parse_hyperfine_json(std::string_view text, const std::string& path) {
  const nlohmann::json document = parse_json(text, path);
  const nlohmann::json& results = top_level_array(document, "results", "hyperfine", path);
  std::vector<EndToEndMetric> metrics;
  std::set<std::string> commands;
  for (std::size_t index = 0; index < results.size(); ++index) {
    const nlohmann::json& result = results[index];
    if (!result.is_object() || !result.contains("command") || !result["command"].is_string()) {
      throw InputError(path, "result " + std::to_string(index) + " has no string \"command\"");
    }
    const std::string command = result["command"].get<std::string>();
    if (!commands.insert(command).second) {
      throw InputError(path, "command \"" + command + "\" appears twice");
    }
    if (!result.contains("times") || !result["times"].is_array() || result["times"].empty()) {
      throw InputError(path, "command \"" + command +
                                 "\" has no \"times\" array (per-run times, exported by hyperfine 1.3 and later)");
    }
    EndToEndMetric metric = make_metric(command, "s", Better::lower, path);
    for (const nlohmann::json& value : result["times"]) {
      if (const auto seconds = sample_value(value, "command \"" + command + "\": a time", path)) {
        metric.samples.push_back(*seconds);
      }
    }
    if (metric.samples.empty()) {
      throw InputError(path, "command \"" + command + "\" has no finite time in \"times\"");
    }
    // hyperfine starts the command anew for every time: each sample is a process (run) of its own.
    metric.runs = metric.samples.size();
    metric.run_sizes.assign(metric.samples.size(), 1);
    metrics.push_back(std::move(metric));
  }
  if (metrics.empty()) {
    throw InputError(path, "no results in \"results\"");
  }
  return metrics;
}

std::vector<EndToEndMetric> parse_pytest_benchmark_json(std::string_view text, const std::string& path) {
  const nlohmann::json document = parse_json(text, path);
  const nlohmann::json& benchmarks = top_level_array(document, "benchmarks", "pytest-benchmark", path);
  std::vector<EndToEndMetric> metrics;
  std::set<std::string> names;
  for (std::size_t index = 0; index < benchmarks.size(); ++index) {
    const nlohmann::json& benchmark = benchmarks[index];
    std::string name;
    for (const char* key : {"fullname", "name"}) {
      if (benchmark.is_object() && benchmark.contains(key) && benchmark[key].is_string()) {
        name = benchmark[key].get<std::string>();
        break;
      }
    }
    if (name.empty()) {
      throw InputError(path, "benchmark " + std::to_string(index) + " has no string \"fullname\" or \"name\"");
    }
    if (!names.insert(name).second) {
      throw InputError(path, "benchmark \"" + name + "\" appears twice");
    }
    const auto stats = benchmark.find("stats");
    if (stats == benchmark.end() || !stats->is_object()) {
      throw InputError(path, "benchmark \"" + name + "\" has no \"stats\" object");
    }
    const auto data = stats->find("data");
    if (data == stats->end() || !data->is_array() || data->empty()) {
      throw InputError(path, "benchmark \"" + name +
                                 "\" has no \"stats.data\" (per-round times): rerun pytest with --benchmark-save-data");
    }
    EndToEndMetric metric = make_metric(name, "s", Better::lower, path);
    for (const nlohmann::json& value : *data) {
      if (const auto seconds = sample_value(value, "benchmark \"" + name + "\": a time in \"stats.data\"", path)) {
        metric.samples.push_back(*seconds);
      }
    }
    if (metric.samples.empty()) {
      throw InputError(path, "benchmark \"" + name + "\" has no finite time in \"stats.data\"");
    }
    metrics.push_back(std::move(metric));
  }
  if (metrics.empty()) {
    throw InputError(path, "no benchmarks in \"benchmarks\"");
  }
  return metrics;
}

std::vector<EndToEndMetric> parse_benchmark_json(std::string_view text, const std::string& path) {
  switch (sniff_benchmark_format(text)) {
  case BenchmarkFormat::google_benchmark:
    return parse_google_benchmark_json(text, path);
  case BenchmarkFormat::hyperfine:
    return parse_hyperfine_json(text, path);
  case BenchmarkFormat::pytest_benchmark:
    return parse_pytest_benchmark_json(text, path);
  case BenchmarkFormat::unknown:
    break;
  }
  throw InputError(path, "not a benchmark file: expected Google Benchmark, hyperfine or pytest-benchmark JSON");
}

std::vector<EndToEndMetric> read_benchmark_json(const std::string& path) {
  return parse_benchmark_json(read_input_text(path).text, path);
}

}  // namespace neuron_gate
