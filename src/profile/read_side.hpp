#pragma once
// Step 2 of the pipeline: read everything one side's inventory holds into samples. Base and head go
// through this same code (after bloaty's ScanAndRollup), and are compared only afterwards.

#include "profile/discover.hpp"
#include "profile/e2e_metrics.hpp"
#include "profile/manifest.hpp"
#include "profile/neuron_artifacts.hpp"
#include "profile/trace_samples.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace neuron_gate {

// All samples of one side of a comparison.
struct SideSamples {
  std::string label;                 // "base" or "head"
  ProfileInventory inventory;
  // One per trace file, in path order. Where a side has no trace, one per printed key_averages
  // table instead (a table is one run; tables without `Input Shapes` are preferred). Each carries
  // its rank where one is known (assign_ranks in ranks.hpp).
  std::vector<TraceSamples> traces;
  bool samples_from_tables = false;  // traces[] were built from key_averages tables
  std::vector<EndToEndMetric> end_to_end;  // merged by name across e2e files, samples in path order
  // Op name -> `Input Shapes` texts from by-shape key_averages tables (used for the inputs condition
  // where traces carry no shapes).
  std::map<std::string, std::set<std::string>> table_input_shapes;
  std::optional<RunManifest> manifest;  // neuron-gate.json, at most one per side
  NeuronArtifacts neuron;               // NEFF/NTFF captures found, with problems
  std::vector<std::string> table_warnings;  // "file:line: message" from key_averages tables
  bool operator==(const SideSamples&) const = default;
};

// Reads every trace, table, end-to-end file and manifest of `inventory`, and checks Neuron
// artifacts. Throws InputError (file, byte offset) on the first file that cannot be read, when two
// end-to-end files give one metric different units or directions, or when a side has two manifests.
SideSamples read_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options);

} // namespace neuron_gate
