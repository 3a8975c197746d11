#pragma once
// Printed `prof.key_averages().table()` output (PyTorch profiler_util.py `_build_table`), read back
// into values. Column spans come from the dash line above the header; every cell carries its own
// unit; times become exact integer nanoseconds. See NEURON-FORMATS.md section 4.

#include "util/units.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The device columns of one row, all in ns (`Self <DEV>`, `<DEV> total`, `<DEV> time avg`). A field
// is nullopt when its column is absent (PyTorch <= 1.6 tables have no self device time; trimmed
// tables drop columns). The backend name is KeyAveragesTable::device_backend.
struct KeyAveragesDeviceTimes {
  std::optional<Nanoseconds> self_ns;
  std::optional<Nanoseconds> total_ns;
  std::optional<Nanoseconds> avg_ns;

  bool operator==(const KeyAveragesDeviceTimes&) const = default;
};

// One printed row. Every field but `name` is nullopt when its column is absent from the table.
// Percentages are checked but not kept (they are derived from the times). Memory is in bytes,
// rounded from the printed 1024-based `Kb`/`Mb`/`Gb` value with two decimals.
struct KeyAveragesRow {
  std::string name;             // as printed, alignment spaces removed (may contain spaces)
  bool name_truncated = false;  // name is 52 characters + "..." (distinct ops can share the label)
  std::optional<std::string> overload_name;
  std::optional<Nanoseconds> self_cpu_ns;                // `Self CPU` (old: `Self CPU total`); may be negative
  std::optional<Nanoseconds> cpu_total_ns;               // `CPU total`
  std::optional<Nanoseconds> cpu_time_avg_ns;            // `CPU time avg`
  std::optional<KeyAveragesDeviceTimes> device;          // present iff the table has device time columns
  std::optional<std::int64_t> cpu_memory_bytes;          // `CPU Mem`
  std::optional<std::int64_t> self_cpu_memory_bytes;     // `Self CPU Mem`
  std::optional<std::int64_t> device_memory_bytes;       // `<DEV> Mem`
  std::optional<std::int64_t> self_device_memory_bytes;  // `Self <DEV> Mem`
  std::optional<std::int64_t> calls;                     // `# of Calls` (old: `Number of Calls`)
  std::optional<std::int64_t> node_id;                   // `Node ID`
  std::optional<std::string> input_shapes;               // `Input Shapes` text as printed, e.g. "[[4, 512], []]"
  std::optional<std::string> source_location;            // `Source Location`, continuation lines joined by '\n'
  std::optional<std::int64_t> total_flops;               // `Total <k>FLOPs` times its scale, rounded; nullopt for `--`
  std::size_t line = 0;                                  // 1-based line of the row in the parsed text

  bool operator==(const KeyAveragesRow&) const = default;
};

// Something legal but suspicious, reported and never repaired: a truncated name shared by two
// rows, a negative self time, an unreadable footer, an unknown column.
struct KeyAveragesWarning {
  std::size_t line = 0;  // 1-based line in the parsed text
  std::string message;   // lowercase, no final period, e.g. `negative self CPU time "-10.000us" for "aten::div_"`

  bool operator==(const KeyAveragesWarning&) const = default;
};

// One printed table, rows in printed order (never merged or dropped).
struct KeyAveragesTable {
  std::vector<std::string> columns;           // header texts in column order, e.g. "Self CPU %"
  std::optional<std::string> device_backend;  // "CUDA", "XPU", "NEURON", ... from `Self <DEV>` etc.
  std::vector<KeyAveragesRow> rows;
  std::optional<Nanoseconds> self_cpu_time_total_ns;     // footer `Self CPU time total:`
  std::optional<Nanoseconds> self_device_time_total_ns;  // footer `Self <DEV> time total:`
  std::optional<Nanoseconds> device_time_total_ns;       // old footer `<DEV> time total:` (PyTorch <= 1.7)
  std::optional<std::string> caption;                    // the caller's `header=` text between `=` lines, if any
  bool top_level_events_only = false;                    // "This report only display top-level ops statistics" shown
  std::size_t first_line = 0;                            // 1-based line of the dash line opening the table
  std::vector<KeyAveragesWarning> warnings;
  std::size_t names_with_invalid_utf8 = 0;  // invalid UTF-8 sequences replaced by U+FFFD in names

  bool operator==(const KeyAveragesTable&) const = default;
};

// Parses the one table in `text` (other text before and after it is ignored). `path` only names the
// source in errors. Throws InputError(path, "line N: ...", byte offset) for a malformed table (a
// cell that is not a number of its column's kind, a missing dash line), when there is no table, or
// when there is more than one (use parse_key_averages_tables).
KeyAveragesTable parse_key_averages_table(std::string_view text, const std::string& path);

// Reads the file (plain text) and parses its one table. Throws InputError when it cannot be read.
KeyAveragesTable parse_key_averages_table(const std::filesystem::path& file);

// Parses every table in `text`, in order; an empty result when there is none. Throws InputError
// like parse_key_averages_table for a malformed table.
std::vector<KeyAveragesTable> parse_key_averages_tables(std::string_view text, const std::string& path);

// Content sniffing for file discovery: true when some line of `text` is a dash line (two or more
// runs of '-' two spaces apart, from column 0) and the next line's first word is `Name`. Pass the
// whole file or at least its first few KB (a caller's `header=` text may come first).
bool looks_like_key_averages_table(std::string_view text);

// Exact decimal text with a unit to ns: "1.200ms" -> 1200000, "-10.000us" -> -10000, "15.185s",
// "7ns"; rounded half away from zero at the ns. nullopt when not a number with one of the units
// `s`, `ms`, `us`, `ns`, or out of int64 range.
std::optional<Nanoseconds> parse_table_time_ns(std::string_view cell);

}  // namespace neuron_gate
