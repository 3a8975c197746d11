#pragma once
// Faults in a profile's data that the readers read around: each kind is counted per file, with its first
// example (and byte offset where the reader knows it), and reaches `inspect` and the reports' Data problems
// section (issue 15 item 5). Past a small share they are an input error instead (data_problem_gate()).

#include "util/units.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace neuron_gate {

enum class DataProblemKind {
  bad_duration,       // ph "X" whose dur is missing, null, a non-numeric string ("n/a"), NaN or not a number
  bad_timestamp,      // ph "X" whose ts is missing, null, a non-numeric string or not a number
  time_out_of_range,  // ts outside [-2^60, 2^62] ns or dur above 2^60 ns (beyond a century)
  missing_name,       // ph "X" without a string name
  name_truncated,     // a name longer than the name limit, cut (see input_limits.hpp)
  invalid_utf8,       // invalid UTF-8 in a name, replaced by U+FFFD
  // Screened events (issue 13 item 1, event_screen.hpp): read, then excluded before any sample is made.
  unfinished,             // dur == -1 µs: the event never finished
  negative_duration,      // another dur < 0 (a missing end timestamp)
  device_out_of_range,    // a device event at ts 0 or starting outside its trace's time range
  longer_than_step,       // an event longer than the step (or, outside steps, the trace) that holds it
  duplicate,              // an exact repeat: same name, thread, ts, dur > 0 and args as an earlier event
  cut_off_step,           // a last step far shorter than its siblings (cut off when the profiler stopped)
  device_time_lost,       // runtime calls with a correlation id in a trace that holds no device event
  device_events_missing,  // a launch (linked by correlation or flow) whose device event is not in the trace
  // Counted and kept (issue 38 item 9): what may be a fault of the trace or a legitimate pattern.
  overlapping_device_events,  // a device event starting before an earlier one on its stream (thread) ended
  shared_correlation,         // a device event whose correlation id another device event already carries
};

// One kind of fault in one file: how often, and the first example.
struct DataProblem {
  DataProblem() = default;
  DataProblem(DataProblemKind kind_, std::string file_, std::int64_t count_, std::optional<std::uint64_t> byte_,
              std::string example_)
      : kind(kind_), file(std::move(file_)), count(count_), byte(byte_), example(std::move(example_)) {}
  DataProblemKind kind = DataProblemKind::bad_duration;
  std::string file;                   // the file's path as read
  std::int64_t count = 0;             // occurrences in the file
  std::optional<std::uint64_t> byte;  // (decompressed) byte offset just after the first example's event
  std::string example;                // e.g. `aten::mul "dur": null`; valid UTF-8, may hold any character
  // Time the excluded occurrences carried (screened kinds; 0 where it is unknown, e.g. a missing dur):
  // the summed dur of excluded CPU-side events (ops, annotations, runtime calls) and of device events; for
  // a cut-off step its ops' self CPU and device time; for unfinished and negative-duration events an
  // estimate, the median dur of the kept events of the same name in the file (0 when there is none).
  Nanoseconds excluded_cpu_ns = 0;
  Nanoseconds excluded_device_ns = 0;
  // That time as a share of the side's self CPU / device time (kept + excluded), set by read_side;
  // device_time_lost has a device share of 1 (the side's device time is unknown).
  std::optional<double> cpu_share, device_share;
  bool operator==(const DataProblem&) const = default;
};

// Time of a trace or side kept in the samples and excluded by the screen, for the shares that decide
// whether its metrics are complete enough to judge (docs/user-guide.md "Data problems").
struct ScreenedTime {
  Nanoseconds kept_cpu_ns = 0;         // self CPU time in the samples (steps and outside steps)
  Nanoseconds kept_device_ns = 0;      // device time in the samples
  Nanoseconds excluded_cpu_ns = 0;     // sum of DataProblem::excluded_cpu_ns
  Nanoseconds excluded_device_ns = 0;  // sum of DataProblem::excluded_device_ns
  bool device_time_lost = false;       // a trace launched kernels and holds no device event
  bool operator==(const ScreenedTime&) const = default;
};

// excluded / (kept + excluded) self CPU time; 0 when there is none.
double excluded_cpu_share(const ScreenedTime& time);

// excluded / (kept + excluded) device time; 1 when device time was lost, 0 when there is none.
double excluded_device_share(const ScreenedTime& time);

// Adds `part` to `total` field by field (device_time_lost: either).
void add_screened_time(ScreenedTime& total, const ScreenedTime& part);

// Events of one op in one file: how many were malformed (excluded) and how many were read.
struct MalformedOp {
  std::int64_t malformed = 0;
  std::int64_t read = 0;
  bool operator==(const MalformedOp&) const = default;
};

// Short description of a kind: "events whose dur is not a number (missing, null, a string, NaN)", ...
const char* data_problem_text(DataProblemKind kind);

// Stable identifier of a kind for JSON: "bad_duration", "bad_timestamp", "time_out_of_range",
// "missing_name", "name_truncated", "invalid_utf8", "unfinished", "negative_duration",
// "device_out_of_range", "longer_than_step", "duplicate", "cut_off_step", "device_time_lost",
// "device_events_missing", "overlapping_device_events", "shared_correlation".
const char* data_problem_id(DataProblemKind kind);

// One line for a report or `inspect`: "FILE: 3 events whose dur is not a number (...): excluded; first:
// aten::mul \"dur\": null near byte 120". Raw profile text: renderers escape it.
std::string data_problem_line(const DataProblem& problem);

// The time a screened problem excluded, for data_problem_line and the reports: "; excluded 0.120 ms device
// time (3.10% of the side's)", "" when it carried none.
std::string excluded_time_text(const DataProblem& problem);

// Adds one occurrence of `kind` in `file` to `problems` (one entry per kind and file, in first-seen order),
// keeping the first example; returns the entry (to add excluded time to).
DataProblem& count_data_problem(std::vector<DataProblem>& problems, DataProblemKind kind, const std::string& file,
                                std::optional<std::uint64_t> byte, const std::string& example);

// The share of a file's events that may be malformed without a name (so belong to no op) before the file is
// refused: 1% (docs/user-guide.md "Data problems"). Above it, read_side() throws InputError naming the file, the
// count and the first example. Named malformed events are screened as their op's (event_screen.hpp).
inline constexpr double k_max_malformed_share = 0.01;

// True for the kinds the event screen excludes with their time (unfinished ... device_events_missing).
bool is_screened_kind(DataProblemKind kind);

}  // namespace neuron_gate
