#include "profile/read_side.hpp"

#include "util/error.hpp"

#include <algorithm>

namespace neuron_gate {

SideSamples read_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options) {
  SideSamples side;
  side.label = label;
  side.inventory = inventory;
  for (const DiscoveredFile& file : inventory.files) {
    if (file.kind == FileKind::trace) {
      side.traces.push_back(read_trace_samples(file.path, options));
    } else if (file.kind == FileKind::end_to_end) {
      for (EndToEndMetric& metric : read_e2e_json(file.path)) {
        auto existing = std::find_if(side.end_to_end.begin(), side.end_to_end.end(),
                                     [&](const EndToEndMetric& m) { return m.name == metric.name; });
        if (existing == side.end_to_end.end()) {
          side.end_to_end.push_back(std::move(metric));
          continue;
        }
        if (existing->unit != metric.unit || existing->better != metric.better) {
          throw InputError(file.path, "metric \"" + metric.name + "\" has unit \"" + metric.unit +
                                          "\" here but \"" + existing->unit + "\" in " + existing->source_path);
        }
        existing->samples.insert(existing->samples.end(), metric.samples.begin(), metric.samples.end());
      }
    }
  }
  return side;
}

} // namespace neuron_gate
