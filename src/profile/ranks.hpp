#pragma once
// Which rank (process of a distributed run) each trace of a side belongs to. Ranks are kept apart and
// compared rank to rank (DESIGN.md section 1): base rank k against head rank k, never pooled.

#include "formats/manifest.hpp"
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
// first (`rank-1/`, `worker3/`); `<instance-id>_pid_<pid>` folders are skipped (a process folder is a run).
std::optional<unsigned> rank_from_folder_names(std::string_view path, std::string_view common);

// The rank the run manifest states for every trace of its side ("rank": N), nullopt when it states none.
std::optional<unsigned> rank_from_manifest(const RunManifest& manifest);

// Sets TraceSamples::rank and rank_source of every trace from what says rank (NEURON-FORMATS.md §1.2), in
// this order: "distributedInfo.rank" in the trace metadata; "file name" (rank_from_file_name: `_rank_N`,
// `rank-N`, `rankN`, `workerN`); "folder name" (rank_from_folder_names below the folder all the side's traces
// share); "manifest" (`manifest`'s "rank", may be null). Process folders (`<instance-id>_pid_<pid>`, `run-NN`,
// timestamps) never give a rank: they are runs of one rank. A trace with no mark keeps rank nullopt and
// rank_source "". Throws InputError naming the trace when
//   - two of its marks state different ranks (e.g. `neuron_framework_trace_rank_1.json` holding
//     distributedInfo.rank 0), or
//   - it has no mark, lies in an `<instance-id>_pid_<pid>` folder, and the side holds several ranks: other
//     traces state at least two different ranks, or the manifest's or a trace's world_size is above 1
//     (ranks are never pooled, so the error asks for a mark).
void assign_ranks(std::vector<TraceSamples>& traces, const RunManifest* manifest = nullptr);

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
