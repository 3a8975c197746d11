#pragma once
// Which rank (process of a distributed run) each trace of a side belongs to. Ranks are kept apart and
// compared rank to rank (DESIGN.md section 1): base rank k against head rank k, never pooled.

#include "profile/trace_samples.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The rank declared by a trace's metadata: `distributedInfo.rank` (a JSON integer, or a string holding
// one, as TraceSamples::metadata keeps it). nullopt when absent or not a non-negative integer.
std::optional<unsigned> rank_from_metadata(const TraceSamples& trace);

// The rank a name states: the N of `rank<N>`, `rank-<N>`, `rank_<N>` or `worker<N>` (`worker-<N>`,
// `worker_<N>`) where the word starts the name or follows a non-letter (`_rank_3`, `rank-1.123.pt.trace.json`,
// `worker0.1623143089861.pt.trace.json`); the last `rank` match, else the last `worker` one. nullopt when none.
std::optional<unsigned> rank_in_name(std::string_view name);

// rank_in_name of the file name (the part after the last '/'): `neuron_framework_trace_rank_3.json` -> 3.
std::optional<unsigned> rank_from_file_name(std::string_view path);

// rank_in_name of the folders of `path` below `common` (a prefix ending in '/', or ""), nearest folder
// first; `<instance-id>_pid_<pid>` folders are skipped (they number ranks by order, see assign_ranks).
std::optional<unsigned> rank_from_folder_names(std::string_view path, std::string_view common);

// Sets TraceSamples::rank and rank_source of every trace, first source that gives one:
//   1. "distributedInfo.rank" in the trace metadata;
//   2. "file name": rank_from_file_name (`_rank_N`, `rank-N`, `rankN`, `workerN`);
//   2b. "folder name": rank_from_folder_names below the folder all the side's traces share;
//   3. "rank folder": the nearest enclosing `<instance-id>_pid_<pid>` folder; the folders holding traces
//      are numbered 0, 1, ... in order of (parent folder, instance id, pid as a number). That order is an
//      assumption (processes of a launcher usually start in rank order), listed by rank_assumptions().
// A trace with none keeps rank nullopt and rank_source "". Never throws.
void assign_ranks(std::vector<TraceSamples>& traces);

// The distinct ranks of the traces, nullopt included when some trace has none (sorted, nullopt first).
std::set<std::optional<unsigned>> distinct_ranks(const std::vector<TraceSamples>& traces);

// True when base and head must be compared rank to rank: either side holds more than one distinct
// rank (a trace without a rank counting as one more). A single-rank side on both ends gives false, and
// then no rank appears in any metric name.
bool compare_per_rank(const std::vector<TraceSamples>& base, const std::vector<TraceSamples>& head);

// The suffix a per-rank metric name carries: " [rank 1]", or " [rank unknown]" for nullopt.
std::string rank_suffix(std::optional<unsigned> rank);

// "rank 1" / "rank unknown".
std::string rank_name(std::optional<unsigned> rank);

// The unverified readings the ranks of these traces rest on, one sentence each (empty when all ranks
// come from distributedInfo.rank or there is at most one rank).
std::vector<std::string> rank_assumptions(const std::vector<TraceSamples>& traces);

}  // namespace neuron_gate
