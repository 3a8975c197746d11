#pragma once
// Step 2 of the pipeline: read everything one side's inventory holds into samples. Base and head go
// through this same code (after bloaty's ScanAndRollup), and are compared only afterwards.

#include "formats/data_problems.hpp"
#include "formats/discover.hpp"
#include "formats/end_to_end_metric.hpp"
#include "formats/manifest.hpp"
#include "formats/neuron_artifacts.hpp"
#include "profile/trace_samples.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// All samples of one side of a comparison.
struct SideSamples {
  std::string label;  // "base" or "head"
  ProfileInventory inventory;
  // One per trace file, in path order. Where a side has no trace, one per printed key_averages
  // table instead (a table is one run; tables without `Input Shapes` are preferred). Each carries
  // its rank where one is known (assign_ranks in ranks.hpp).
  std::vector<TraceSamples> traces;
  bool samples_from_tables = false;  // traces[] were built from key_averages tables
  // Merged by name across e2e.json, benchmark-tool and Neuron summary files, samples in path order.
  // Neuron summaries give "device total_time" etc. in ms (origin device_summary).
  std::vector<EndToEndMetric> end_to_end;
  // Op name -> `Input Shapes` texts from by-shape key_averages tables (used for the inputs condition
  // where traces carry no shapes).
  std::map<std::string, std::set<std::string>> table_input_shapes;
  std::optional<RunManifest> manifest;      // neuron-gate.json, at most one per side
  NeuronArtifacts neuron;                   // NEFF/NTFF captures found, with problems
  std::vector<std::string> table_warnings;  // "file:line: message" from key_averages tables
  // Relative path -> what the Provenance says of a file beyond its kind: for a Neuron summary the
  // Explorer and schema versions and the number of executions ("explorer_version 2.21.0,
  // profile_schema_version 1.2.0; 2 executions"), for e2e.json and a benchmark tool's file the number
  // of metrics ("2 metrics").
  std::map<std::string, std::string> file_details;
  // "relative/path: message" for values skipped or assumptions made while reading (a Neuron summary's
  // NaN fields, several summaries in one file); shown in the report.
  std::vector<std::string> read_warnings;
  // Faults in the data, counted per kind and file with a first example (data_problems.hpp): malformed
  // events of the traces, cut names, invalid UTF-8 in names and file names. Rendered by `inspect` and the
  // reports' Data problems section.
  std::vector<DataProblem> data_problems;
  // Self CPU and device time of the side's traces kept in the samples and excluded by the event screen;
  // the screened problems' cpu_share / device_share are their time over this side's (kept + excluded).
  ScreenedTime screened{};
  bool operator==(const SideSamples&) const = default;
};

// The row that carries device time no op was found for (device_attribution.hpp), one per event
// category: "device time not attributed to an op (kernel)". Measured and shown like an op's device time,
// never judged on its own: the device class total `all ops` holds it and gates (compare/unattributed.hpp).
inline constexpr const char* k_unattributed_row = "device time not attributed to an op";
std::string unattributed_row_name(const std::string& category);

// True for a name made by unattributed_row_name (it starts with k_unattributed_row). Such a row has device
// time only: no self CPU metric is made for it.
bool is_unattributed_row(std::string_view name);

// Adds those rows to every step (and outside_steps) of `trace`: device_ns = the step's
// unattributed_by_category entry, self CPU 0, calls 0; and trace.screened_unattributed to
// trace.screened_ops under the same names. read_side calls it for every trace.
void add_unattributed_rows(TraceSamples& trace);

// Sets each screened data problem's cpu_share / device_share: its excluded time over the side's self CPU /
// device time (side.screened kept + excluded); 0 when the side has none; device_time_lost has device share 1.
void set_screened_shares(SideSamples& side);

// The Neuron captures (find_neuron_artifacts) among the inventory's regular files and its folders.
NeuronArtifacts neuron_artifacts_of(const ProfileInventory& inventory);

// Reads every trace, table, end-to-end file (e2e.json, Google Benchmark, hyperfine, pytest-benchmark,
// Neuron summary) and manifest of `inventory`, and checks Neuron artifacts. Throws InputError (file,
// byte offset) on the first file that cannot be read (pytest-benchmark JSON saved without
// --benchmark-save-data is one), when two end-to-end files give one metric different units or
// directions (naming both files), when a side has two manifests, when more than
// k_max_malformed_share of a trace's events are malformed without a name (naming the count and the first
// example; named ones are screened as their op's data problem), and when the side holds more distinct op names than
// input_limits().max_distinct_ops (naming the file that crossed the limit).
SideSamples read_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options);

// One side for read_sides: its label ("base", "head", ...) and its inventory (not owned; outlives the call).
struct SideToRead {
  std::string label;
  const ProfileInventory* inventory = nullptr;
};

// read_side for several sides at once: the trace files of all of them are read in parallel on
// worker_threads() threads (util/parallel.hpp), then each side is put together in path order, sides in
// the order given. The result, and the error thrown (the first in path order of the first side that has
// one, as read_side one after another would throw it), do not depend on the thread count. `after_each`,
// when set, is called on each side once it is put together, before the next one (a caller's check that
// would have run between two read_side calls throws in the same order). Peak memory: every trace's
// samples (as read_side) plus, per thread, one trace being read.
std::vector<SideSamples> read_sides(std::span<const SideToRead> sides, const TraceReadOptions& options,
                                    const std::function<void(const SideSamples&)>& after_each = {});

}  // namespace neuron_gate
