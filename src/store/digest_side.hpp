#pragma once
// A side given as digests (digest.hpp): one digest, or a folder of them (one per rank, e.g. one per CI
// matrix job) combined into one side as if the ranks' files had been read together (docs/user-guide.md "Digests").

#include "profile/read_side.hpp"
#include "store/digest.hpp"
#include "store/repository_state.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace neuron_gate {

// True when the inventory's files are digests (ignored files aside); false when it holds none. Throws
// InputError(inventory.spec, ...) when it holds digests and profile files both, naming one of each.
bool is_digest_side(const ProfileInventory& inventory);

// The side's samples: read_side() for a profile; for digests, each read (read_digest) and, when there are
// several, combined (combine_digest_sides). Throws InputError naming the digest that was made with
// another --by-shape setting than `options` asks for, and as read_side / read_digest / combine do.
// `recorded`, when given, receives what the digests recorded of their repository (nullopt for a profile):
// the git state is kept beside the samples, for the command to gather the side's state from.
SideSamples load_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options,
                      std::optional<RecordedRepository>* recorded = nullptr);

// load_side for several sides: the profiles among them through read_sides (their traces read in parallel),
// the digests read after them; the result in the order given, `after_each` called on each in that order.
// `recorded`, when given, receives each side's recorded repository (load_side's), in the same order.
std::vector<SideSamples> load_sides(std::span<const SideToRead> sides, const TraceReadOptions& options,
                                    const std::function<void(const SideSamples&)>& after_each = {},
                                    std::vector<std::optional<RecordedRepository>>* recorded = nullptr);

// One side made of the digests' sides (each one rank, or a set of ranks, of one profile), as read_side()
// would have read all their files at once:
//  - each digest's files are placed under its profile root's path below the roots' common folder (digests
//    of `prof/rank-0` and `prof/rank-1` give `rank-0/...` and `rank-1/...`; the spec becomes `prof`); the
//    digests are taken in the order of their first file's path, which is the order read_side reads in
//    when the ranks' files do not interleave;
//  - traces in path order, ranks assigned again over all of them (assign_ranks), end-to-end metrics merged
//    by name (samples appended, runs summed), data problems in file order, derived totals recomputed.
// `sources` names each digest (parallel to `sides`) in errors. Throws InputError(spec or a digest, ...)
// when two digests hold the same file, the same rank, are the same digest, or hold a run manifest each,
// when a metric's unit or direction differs between them, or past the distinct-op limit. `repository`, when
// given, receives the git state of the first digest (in that order) that recorded one (infos[i].repository).
SideSamples combine_digest_sides(std::vector<SideSamples> sides, const std::vector<DigestInfo>& infos,
                                 const std::vector<std::string>& sources, const std::string& spec,
                                 std::optional<SideRepository>* repository = nullptr);

}  // namespace neuron_gate
