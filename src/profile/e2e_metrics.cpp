#include "profile/e2e_metrics.hpp"

#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace neuron_gate {

bool looks_like_e2e_json(std::string_view head) {
  return head.find("\"neuron-gate.e2e/1\"") != std::string_view::npos;
}

std::vector<EndToEndMetric> parse_e2e_json(std::string_view text, const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw InputError(path, std::string("not valid JSON: ") + error.what(), error.byte > 0 ? error.byte - 1 : 0);
  } catch (const nlohmann::json::out_of_range& error) {
    // nlohmann/json reports a number beyond double (1e400) without a byte offset.
    throw InputError(path, std::string("number out of range: ") + error.what());
  }
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "neuron-gate.e2e/1") {
    throw InputError(path, "not an end-to-end file: expected \"schema\": \"neuron-gate.e2e/1\"");
  }
  if (!doc.contains("metrics") || !doc["metrics"].is_array()) {
    throw InputError(path, "\"metrics\" must be an array");
  }
  std::vector<EndToEndMetric> metrics;
  std::set<std::string> names;
  for (const auto& entry : doc["metrics"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
      throw InputError(path, "every metric needs a string \"name\"");
    }
    EndToEndMetric metric;
    metric.name = entry["name"].get<std::string>();
    metric.source_path = path;
    if (!names.insert(metric.name).second) {
      throw InputError(path, "metric \"" + metric.name + "\" appears twice");
    }
    if (!entry.contains("unit") || !entry["unit"].is_string()) {
      throw InputError(path, "metric \"" + metric.name + "\" needs a string \"unit\"");
    }
    metric.unit = entry["unit"].get<std::string>();
    const std::string better = entry.value("better", std::string("lower"));
    if (better == "lower") {
      metric.better = Better::lower;
    } else if (better == "higher") {
      metric.better = Better::higher;
    } else {
      throw InputError(path, "metric \"" + metric.name + "\": \"better\" must be \"lower\" or \"higher\", not \"" +
                                 better + "\"");
    }
    if (!entry.contains("samples") || !entry["samples"].is_array() || entry["samples"].empty()) {
      throw InputError(path, "metric \"" + metric.name + "\" needs a non-empty \"samples\" array");
    }
    for (const auto& value : entry["samples"]) {
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        throw InputError(path, "metric \"" + metric.name + "\": sample " + value.dump() + " is not a finite number");
      }
      metric.samples.push_back(value.get<double>());
    }
    metrics.push_back(std::move(metric));
  }
  return metrics;
}

std::vector<EndToEndMetric> read_e2e_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, "cannot open");
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_e2e_json(text.str(), path);
}

} // namespace neuron_gate
