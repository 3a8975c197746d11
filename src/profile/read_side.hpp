#pragma once
// Step 2 of the pipeline: read everything one side's inventory holds into samples. Base and head go
// through this same code (after bloaty's ScanAndRollup), and are compared only afterwards.

#include "profile/discover.hpp"
#include "profile/e2e_metrics.hpp"
#include "profile/trace_samples.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// All samples of one side of a comparison.
struct SideSamples {
  std::string label;                 // "base" or "head"
  ProfileInventory inventory;
  std::vector<TraceSamples> traces;  // one per trace file, in path order
  std::vector<EndToEndMetric> end_to_end;  // merged by name across e2e files, samples in path order
  bool operator==(const SideSamples&) const = default;
};

// Reads every trace and end-to-end file of `inventory`. Throws InputError (file, byte offset) on the
// first file that cannot be read, or when two end-to-end files give one metric different units or
// directions.
SideSamples read_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options);

} // namespace neuron_gate
