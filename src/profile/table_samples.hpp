#pragma once
// A printed key_averages() table as samples: one table is one run, and gives one sample per op
// (DESIGN.md section 2), in the same TraceSamples shape a trace gives.

#include "formats/key_averages_table.hpp"
#include "profile/trace_samples.hpp"

#include <map>
#include <set>
#include <string>

namespace neuron_gate {

// Which rows' `Self <DEV>` a table's device time is read from. PyTorch lists a kernel twice: inside
// its launching op's `Self <DEV>` and as a row of its own (no CPU time), so summing every row counts
// each kernel twice (PyTorch's profiler recipe: aten::thnn_conv2d_forward 10.484 ms, and its im2col and
// sgemm kernels again; footer 11.666 ms).
enum class TableDeviceRows {
  all,         // every row: the rows' Self <DEV> sum to the footer's Self <DEV> time total (within 1% + 1 µs),
               // or there is no footer to tell
  ops_only,    // the rows sum past the footer: rows with CPU time only, since the rows without (kernels,
               // copies) are the same time again, already in their launching op's Self <DEV>
  unreadable,  // the rows sum past the footer and there are no CPU columns: ops and kernels cannot be told
               // apart, so no device time is read
};
TableDeviceRows table_device_rows(const KeyAveragesTable& table);

// What table_device_rows() decided, for the side's warnings; "" for `all`.
std::string table_device_rows_note(const KeyAveragesTable& table);

// One run's sample from a table: a single step named "table" holding, per op row, Self CPU, Self
// <DEV> (from the rows table_device_rows() names) and # of Calls (rows of one name, as in a by-shape table, are summed
// unless `by_shape`, which keys them "name <Input Shapes>"). Step time is the footer's Self CPU time total when
// present. `Input Shapes` go to input_shapes; negative self times are recorded as data problems, not dropped.
TraceSamples samples_from_table(const KeyAveragesTable& table, const std::string& path, bool by_shape);

// Op name -> distinct `Input Shapes` texts of a by-shape table (empty for a table without the column).
std::map<std::string, std::set<std::string>> table_input_shapes(const KeyAveragesTable& table);

}  // namespace neuron_gate
