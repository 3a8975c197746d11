#include "profile/device_capture.hpp"

#include <algorithm>

namespace neuron_gate {

std::string device_capture_sign(const SideSamples& side) {
  if (side.manifest) {
    const auto& fields = side.manifest->fields;
    const auto activities = fields.find("profiler.activities");
    if (activities != fields.end() && !activities->second.empty() && activities->second != "CPU") {
      return "manifest profiler.activities " + activities->second;
    }
    if (std::any_of(fields.begin(), fields.end(),
                    [](const auto& field) { return field.first.rfind("neuron_config.", 0) == 0; })) {
      return "manifest neuron_config";
    }
  }
  std::size_t ntffs = 0;
  for (const NeuronCapture& capture : side.neuron.captures) {
    ntffs += capture.ntffs.size();
  }
  if (ntffs > 0) {
    return std::to_string(ntffs) + (ntffs == 1 ? " NTFF file" : " NTFF files");
  }
  for (const TraceSamples& trace : side.traces) {
    for (const std::string& category : trace.categories) {
      if (category.rfind("privateuse1_", 0) == 0) {
        return category + " events in the traces";
      }
    }
  }
  return "";
}

bool device_time_unknown(const SideSamples& side) {
  if (side.screened.device_time_lost) {
    return true;
  }
  const bool device_summary = std::any_of(side.end_to_end.begin(), side.end_to_end.end(), [](const EndToEndMetric& m) {
    return m.origin == EndToEndOrigin::device_summary;
  });
  return side.screened.kept_device_ns == 0 && side.screened.excluded_device_ns == 0 && !device_summary &&
         !device_capture_sign(side).empty();
}

}  // namespace neuron_gate
