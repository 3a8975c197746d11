#pragma once
// Step 3: conditions held fixed (DESIGN.md section 3). A fingerprint of each side is built from the
// data itself; any difference not accepted by the rules makes the comparison NOT COMPARABLE.

#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"

#include <map>
#include <string>
#include <vector>

namespace neuron_gate {

// What one side's data say about how it was captured: condition name -> value as text.
// Names: "schedule" (active steps per trace), "traces", "activities", "end_to_end_metrics",
// "record_shapes", "with_stack". A condition the data cannot tell is absent.
struct Fingerprint {
  std::map<std::string, std::string> values;
  bool operator==(const Fingerprint&) const = default;
};

// Builds the fingerprint of one side (steps per trace, trace count, event kinds present, ...).
Fingerprint fingerprint_side(const SideSamples& side);

// One row of the conditions table: base vs head.
struct ConditionRow {
  std::string name;       // condition name, as accepted by --allow-mismatch
  std::string base;       // value on the base side ("not recorded" when absent)
  std::string head;
  bool matches = true;
  bool accepted = false;  // differs, but the rules or --allow-mismatch accept it
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
// match. `allowed` (rules allow_mismatch plus --allow-mismatch) marks differing rows as accepted.
// Throws UsageError for an allowed name that is no condition (with a did-you-mean).
ConditionsDiff diff_conditions(const Fingerprint& base, const Fingerprint& head, const std::vector<std::string>& allowed);

// All condition names, for --allow-mismatch validation and the README.
const std::vector<std::string>& condition_names();

} // namespace neuron_gate
