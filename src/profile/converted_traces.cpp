#include "profile/converted_traces.hpp"

#include <nlohmann/json.hpp>

#include <optional>

namespace neuron_gate {

namespace {

// A metadata value that is a JSON string, unquoted; nullopt when absent or not a string.
std::optional<std::string> string_value(const TraceSamples& trace, const std::string& key) {
  const auto found = trace.metadata.find(key);
  if (found == trace.metadata.end()) {
    return std::nullopt;
  }
  const nlohmann::json value = nlohmann::json::parse(found->second, nullptr, false);
  if (!value.is_string()) {
    return std::nullopt;
  }
  return value.get<std::string>();
}

}  // namespace

std::vector<std::string> converted_trace_assumptions(const std::vector<TraceSamples>& traces) {
  std::vector<std::string> lines;
  for (const TraceSamples& trace : traces) {
    const std::optional<std::string> source = string_value(trace, "neuron_gate_source");
    if (!source) {
      continue;
    }
    std::string line = trace.path + ": " + *source;
    if (const auto device_time = string_value(trace, "neuron_gate_device_time")) {
      line += "; device time: " + *device_time;
    }
    if (const auto assumed = string_value(trace, "neuron_gate_assumed")) {
      line += "; assumed: " + *assumed;
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace neuron_gate
