#pragma once
// A printed key_averages() table as samples: one table is one run, and gives one sample per op
// (DESIGN.md section 2), in the same TraceSamples shape a trace gives.

#include "profile/key_averages_table.hpp"
#include "profile/trace_samples.hpp"

#include <map>
#include <set>
#include <string>

namespace neuron_gate {

// One run's sample from a table: a single step named "table" holding, per op row, Self CPU, Self
// <DEV> and # of Calls (rows of one name, as in a by-shape table, are summed unless `by_shape`, which
// keys them "name <Input Shapes>"). Step time is the footer's Self CPU time total when present.
// `Input Shapes` go to input_shapes; negative self times are recorded as data problems, not dropped.
TraceSamples samples_from_table(const KeyAveragesTable& table, const std::string& path, bool by_shape);

// Op name -> distinct `Input Shapes` texts of a by-shape table (empty for a table without the column).
std::map<std::string, std::set<std::string>> table_input_shapes(const KeyAveragesTable& table);

} // namespace neuron_gate
