#pragma once
// Step 3: conditions held fixed (DESIGN.md section 3). A fingerprint of each side is built from the
// data itself; any difference not accepted by the rules makes the comparison NOT COMPARABLE.

#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace neuron_gate {

// What one side's data say about how it was captured: condition name -> value as text.
// Names: "schedule" (active steps per trace), "traces", "activities", "end_to_end_metrics",
// "record_shapes", "with_stack", "samples_from", "device_time", "ranks", "world_size", "devices", "neuron_cores",
// "artifacts", "processes" (run folders of traces and end-to-end runs: head may not have fewer than base, whose
// fewer processes would loosen the bound it is judged by), "trace_format" (each trace's schemaVersion and category
// generation: "schemaVersion 1, current categories (cpu_op, kernel, ...)"), and "manifest.<field>" for each
// run-manifest field. A condition the data cannot tell is absent. Input shapes are kept per op and compared by the rule
// of DESIGN.md section 3. "ranks": the count and ids of the traces' ranks ("2 (ranks 0, 1)", "1 (rank 1)", ranks.hpp)
// where the side has more than one rank or any known rank; "1" for `<instance-id>_pid_<pid>` folders (runs of one rank,
// issue 37) where no trace tells its rank; absent when no trace tells a rank (a plain single-process profile shows no
// ranks row). "world_size": the distinct distributedInfo.world_size values. "devices": "<count> × <names>" per distinct
// deviceProperties (count of entries, distinct names joined by "; "). One known rank against none, and world_size or
// devices known on one side only, match (shown, not verified).
struct Fingerprint {
  std::map<std::string, std::string> values;
  std::map<std::string, std::set<std::string>> input_shapes;  // op -> distinct input-shape lists
  bool has_manifest = false;
  std::set<std::string> neff_names;  // file names of the side's NEFFs, to name what the other side lacks
  // Processes the side's samples come from (the "processes" row): run folders of traces (side_runs), and
  // the fewest runs of an end-to-end metric that may gate (EndToEndMetric::runs); 0 where the side has none.
  std::size_t trace_runs = 0, e2e_runs = 0;
  bool operator==(const Fingerprint&) const = default;
};

// Builds the fingerprint of one side (steps per trace, trace count, event kinds present, ...).
Fingerprint fingerprint_side(const SideSamples& side);

// One row of the conditions table: base vs head.
struct ConditionRow {
  std::string name;  // condition name, as accepted by --allow-mismatch
  std::string base;  // value on the base side ("not recorded" when absent)
  std::string head;
  bool matches = true;
  bool accepted = false;  // differs, but the rules or --allow-mismatch accept it
  std::string note;       // why it matters or the likely cause ("" if nothing to add)
  bool verified = true;   // false: counted as matching but not checked (recorded by one side or neither)
  bool operator==(const ConditionRow&) const = default;
};

// The conditions table and whether the sides may be compared.
struct ConditionsDiff {
  std::vector<ConditionRow> rows;
  // True when every row matches or is accepted.
  bool comparable() const;
  bool operator==(const ConditionsDiff&) const = default;
};

// Compares two fingerprints row by row. A condition known on one side only is a row that does not
// match (except manifest fields: a field present in head only is shown, as unverified, and does
// not block; "manifest.workload", a name, is shown and never blocks). "inputs" means the model's
// inputs differ: when both sides' manifests list `inputs`, those rows decide and the inputs row only
// says so; else, for an op on both sides and one number of arguments, lists of base missing in head
// while head has lists base lacks (every [4,512] became [8,512]) differ; lists that only appear (a new
// call site) or only disappear are a structural change, named in the row's note, and lists of another
// argument count (an `out=` overload) too. "artifacts" matches only when both sides are complete.
// `allowed` (rules allow_mismatch
// plus --allow-mismatch) marks differing rows as accepted. Throws UsageError for an allowed name that
// is no condition (with a did-you-mean).
ConditionsDiff diff_conditions(const Fingerprint& base, const Fingerprint& head,
                               const std::vector<std::string>& allowed);

// All fixed condition names (manifest fields add "manifest.<field>"), for --allow-mismatch and docs/user-guide.md.
const std::vector<std::string>& condition_names();

}  // namespace neuron_gate
