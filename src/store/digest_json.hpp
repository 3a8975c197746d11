#pragma once
// The JSON form of a side's samples inside a digest (digest.hpp; docs/user-guide.md "Digests"): every field of
// SideSamples that read_side() reads from the files, and nothing it derives from them. Derived fields are
// recomputed on reading exactly as read_side() computes them: the side's screened time (the sum of its
// traces'), the data problems' shares of it, and the Neuron capture check (from the file list).

#include "profile/read_side.hpp"
#include "store/json_writer.hpp"
#include "store/repository_state.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace neuron_gate {

// Writes `side` as the digest's "side" object to `out` as it goes (digest_json_write.cpp), a step at a time:
// no document is built. Op and kernel names of a trace are written once, in a name table ("names", in order
// of first use by the steps, then the outside steps), and referred to by index from each step:
// "ops": [[name index, self CPU ns, device ns, calls], ...], "kernels": [[name index, device ns], ...].
// "repository" holds `repository` (the git state of the profile when it was digested), null when there is
// none. The keys come in a fixed order; the text is what nlohmann's dump of the same values
// as an ordered_json document gives (json_writer.hpp), so a side always gives the same bytes.
void write_side_json(const SideSamples& side, const std::optional<SideRepository>& repository, JsonWriter& out);

// Reads the "side" object back; `repository`, when given, receives its "repository" (nullopt for null). `path` names
// the digest in errors. Every value is checked as if it came from a hostile profile: each key's type (InputError(path,
// "\"side.traces[0].steps\" must be an array, not 5")), unknown keys and enum words, name indexes in range, times
// within ±2^62 ns, counts and calls non-negative, a side's times summing to at most 2^62 ns, every string at most
// input_limits().max_string_bytes, and at most input_limits().max_distinct_ops op names. The label is "".
SideSamples side_from_json(const nlohmann::json& value, const std::string& path,
                           std::optional<SideRepository>* repository = nullptr);

// The derived fields of `side` recomputed from the rest, as read_side() computes them: screened time
// summed over the traces, each screened data problem's cpu_share and device_share, and the Neuron
// captures found among the inventory's files and folders.
void recompute_side_totals(SideSamples& side);

}  // namespace neuron_gate
