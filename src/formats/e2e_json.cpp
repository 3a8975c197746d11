#include "formats/e2e_json.hpp"

#include "input/json_input.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

namespace neuron_gate {

bool looks_like_e2e_json(std::string_view head) {
  return head.find("\"neuron-gate.e2e/1\"") != std::string_view::npos;
}

bool sniff_e2e_json(const FileHead& head) {
  return head.first == '{' && looks_like_e2e_json(head.whole);
}

namespace {

// `better` of a metric entry ("lower" when absent).
Better direction_of(const nlohmann::json& entry, const std::string& name, const std::string& where,
                    const std::string& path) {
  const JsonFields fields(path);
  const std::string better = entry.contains("better") ? fields.string(entry["better"], where + ".better") : "lower";
  if (better == "lower") {
    return Better::lower;
  }
  if (better == "higher") {
    return Better::higher;
  }
  throw InputError(path, "metric \"" + name + "\": \"better\" must be \"lower\" or \"higher\", not \"" + better + "\"");
}

// The samples of a metric entry, from `samples` (one run) or `runs` (one list per process).
void read_samples(const nlohmann::json& entry, EndToEndMetric& metric, const std::string& path) {
  const bool has_samples = entry.contains("samples"), has_runs = entry.contains("runs");
  if (has_samples == has_runs) {
    throw InputError(path, "metric \"" + metric.name + "\" needs either a non-empty \"samples\" array or \"runs\" " +
                               "(a list of sample lists, one per process), " +
                               (has_runs ? "not both" : "found neither"));
  }
  std::vector<const nlohmann::json*> lists;
  if (has_samples) {
    lists.push_back(&entry["samples"]);
  } else if (!entry["runs"].is_array() || entry["runs"].empty()) {
    throw InputError(path, "metric \"" + metric.name + "\": \"runs\" must be a non-empty array of sample lists");
  } else {
    for (const auto& run : entry["runs"]) {
      lists.push_back(&run);
    }
  }
  for (const nlohmann::json* list : lists) {
    if (!list->is_array() || list->empty()) {
      throw InputError(path, "metric \"" + metric.name + "\" needs non-empty sample arrays" +
                                 (has_runs ? " in \"runs\"" : " (\"samples\")"));
    }
    for (const auto& value : *list) {
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        throw InputError(path, "metric \"" + metric.name + "\": sample " + JsonFields::shown(value) +
                                   " is not a finite number");
      }
      metric.samples.push_back(value.get<double>());
    }
    metric.run_sizes.push_back(list->size());
  }
  metric.runs = metric.run_sizes.size();
}

// One entry of "metrics"; `where` is "metrics[i]".
EndToEndMetric read_metric(const nlohmann::json& entry, const std::string& where, const std::string& path) {
  if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
    throw InputError(path, "every metric needs a string \"name\" (" + where + " has none)");
  }
  EndToEndMetric metric;
  metric.name = entry["name"].get<std::string>();
  metric.source_path = path;
  if (!entry.contains("unit") || !entry["unit"].is_string()) {
    throw InputError(path, "metric \"" + metric.name + "\" needs a string \"unit\"");
  }
  metric.unit = entry["unit"].get<std::string>();
  metric.better = direction_of(entry, metric.name, where, path);
  if (entry.contains("gates")) {
    if (!entry["gates"].is_boolean()) {
      throw InputError(path, "metric \"" + metric.name + "\": \"gates\" must be true or false, not " +
                                 JsonFields::shown(entry["gates"]));
    }
    metric.gates = entry["gates"].get<bool>();
  }
  read_samples(entry, metric, path);
  return metric;
}

}  // namespace

std::vector<EndToEndMetric> parse_e2e_json(std::string_view text, const std::string& path) {
  const nlohmann::json doc = parse_json_input(text, path).value;
  const JsonFields fields(path);
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "neuron-gate.e2e/1") {
    throw InputError(path, "not an end-to-end file: expected \"schema\": \"neuron-gate.e2e/1\"");
  }
  if (!doc.contains("metrics")) {
    throw InputError(path, "\"metrics\" must be an array");
  }
  std::vector<EndToEndMetric> metrics;
  std::set<std::string> names;
  const nlohmann::json& entries = fields.array(doc["metrics"], "metrics");
  for (std::size_t index = 0; index < entries.size(); ++index) {
    EndToEndMetric metric = read_metric(entries[index], "metrics[" + std::to_string(index) + "]", path);
    if (!names.insert(metric.name).second) {
      throw InputError(path, "metric \"" + metric.name + "\" appears twice");
    }
    metrics.push_back(std::move(metric));
  }
  return metrics;
}

std::vector<EndToEndMetric> read_e2e_json(const std::string& path) {
  return parse_e2e_json(read_input_text(path).text, path);
}

}  // namespace neuron_gate
