#pragma once
// The columns of a printed `key_averages()` table and the values of their cells: what each header
// means (PyTorch 1.5 to 2.x wordings, any device backend) and how a cell's text becomes a number
// (times in exact integer ns, memory in bytes, counts, FLOPs). Internal to the key_averages reader
// (key_averages_table.cpp); NEURON-FORMATS.md section 4.

#include "formats/key_averages_table.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace neuron_gate::key_averages {

// What a column holds, from its header text.
enum class ColumnKind {
  name,
  overload_name,
  self_cpu_percent,
  self_cpu,
  cpu_total_percent,
  cpu_total,
  cpu_time_avg,
  self_device,
  self_device_percent,
  device_total_percent,
  device_total,
  device_time_avg,
  cpu_memory,
  self_cpu_memory,
  device_memory,
  self_device_memory,
  calls,
  node_id,
  input_shapes,
  source_location,
  flops,
  unknown,
};

// The kind of one header text and, for `Total <k>FLOPs`, the power of ten of its scale; sets `device`
// to the backend word of a device column ("CUDA", "NEURON"). Unknown headers are ColumnKind::unknown.
std::pair<ColumnKind, int> classify_header(std::string_view header, std::string& device);

// True for a device backend word: upper case as PyTorch prints `use_device.upper()`, and not "CPU".
bool is_device_word(std::string_view word);

// Removes `prefix` from the front of `text` when it is there; true when it was.
bool strip_prefix(std::string_view& text, std::string_view prefix);

// Removes `suffix` from the end of `text` when it is there; true when it was.
bool strip_suffix(std::string_view& text, std::string_view suffix);

// True for the device time columns (self, total, average and their percentages).
bool is_device_time_column(ColumnKind kind);

// "[-]digits[.digits]" times numerator / denominator, rounded half away from zero, computed in
// integers so "1.200" * 10^6 is exactly 1200000. nullopt on bad syntax or int64 overflow.
std::optional<std::int64_t> scale_decimal(std::string_view text, std::int64_t numerator, std::int64_t denominator);

// base^exponent for small non-negative exponents (1024^3, 10^15).
std::int64_t power_of(std::int64_t base, int exponent);

// One non-empty cell of a numeric column, with what reading it needs.
struct CellRead {
  ColumnKind kind = ColumnKind::unknown;
  int flops_exponent = 0;       // Total KFLOPs -> 3, MFLOPs -> 6, ...
  std::string_view text;        // trimmed cell text
  std::size_t line_number = 0;  // 1-based, for warnings
};

// Reads the cell into `row` (times, memory, calls, node id, FLOPs; percentages checked, not kept);
// a negative self time is kept and warned about in `table`. Returns what the text failed to be ("a
// time", "a memory size", "a percentage", "a call count", "a node id", "a FLOP count"), nullopt
// when read.
std::optional<std::string> read_number_cell(const CellRead& cell, KeyAveragesRow& row, KeyAveragesTable& table);

}  // namespace neuron_gate::key_averages
