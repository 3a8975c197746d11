#pragma once
// Faults in a profile's data that the readers read around: each kind is counted per file, with its first
// example (and byte offset where the reader knows it), and reaches `inspect` and the reports' Data problems
// section (issue 15 item 5). Past a small share they are an input error instead (data_problem_gate()).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

enum class DataProblemKind {
  bad_duration,       // ph "X" whose dur is missing, null, a non-numeric string ("n/a"), NaN or not a number
  bad_timestamp,      // ph "X" whose ts is missing, null, a non-numeric string or not a number
  time_out_of_range,  // ts outside [-2^60, 2^62] ns or dur above 2^60 ns (beyond a century)
  missing_name,       // ph "X" without a string name
  name_truncated,     // a name longer than the name limit, cut (see input_limits.hpp)
  invalid_utf8,       // invalid UTF-8 in a name, replaced by U+FFFD
};

// One kind of fault in one file: how often, and the first example.
struct DataProblem {
  DataProblemKind kind = DataProblemKind::bad_duration;
  std::string file;                    // the file's path as read
  std::int64_t count = 0;              // occurrences in the file
  std::optional<std::uint64_t> byte;   // (decompressed) byte offset just after the first example's event
  std::string example;                 // e.g. `aten::mul "dur": null`; valid UTF-8, may hold any character
  bool operator==(const DataProblem&) const = default;
};

// Events of one op in one file: how many were malformed (excluded) and how many were read.
struct MalformedOp {
  std::int64_t malformed = 0;
  std::int64_t read = 0;
  bool operator==(const MalformedOp&) const = default;
};

// Short description of a kind: "events whose dur is not a number (missing, null, a string, NaN)", ...
const char* data_problem_text(DataProblemKind kind);

// Stable identifier of a kind for JSON: "bad_duration", "bad_timestamp", "time_out_of_range",
// "missing_name", "name_truncated", "invalid_utf8".
const char* data_problem_id(DataProblemKind kind);

// One line for a report or `inspect`: "FILE: 3 events whose dur is not a number (...): excluded; first:
// aten::mul \"dur\": null near byte 120". Raw profile text: renderers escape it.
std::string data_problem_line(const DataProblem& problem);

// Adds one occurrence of `kind` in `file` to `problems` (one entry per kind and file, in first-seen order),
// keeping the first example.
void count_data_problem(std::vector<DataProblem>& problems, DataProblemKind kind, const std::string& file,
                        std::optional<std::uint64_t> byte, const std::string& example);

// The share of events of one op (or of a whole file) that may be malformed before the data is refused:
// 1% (README "Data problems"). Above it, read_side() throws InputError naming the file, the op, the count
// and the first example: a metric whose events vanished must never pass silently.
inline constexpr double k_max_malformed_share = 0.01;

} // namespace neuron_gate
