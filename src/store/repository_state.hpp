#pragma once
// The git state behind each side of a comparison (issue 20 item 1), gathered with libgit2: which
// commit and branch the profile sits in, whether its work tree had changes, the commit its run
// manifest records, and whether base is an ancestor of head. Whether that is worth a warning is
// compare/baseline_ancestry's decision; report/ only words it. Every string here comes from a
// repository and is hostile (branch names, commit messages): renderers escape them.

#include "formats/discover.hpp"
#include "formats/manifest.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// One side's repository state.
struct SideRepository {
  std::string side;     // "base" or "head"
  std::string commit;   // 40 hex: HEAD of the repository the profile lies in, or the commit of a git: REF
  std::string summary;  // first line of that commit's message
  bool dirty = false;   // the work tree has changes to tracked files (never for a git: profile)
  // The checked-out branch's short name ("main", "feature/x"), or for a git: profile its REF when that
  // names a branch or remote branch; "" when detached or not a branch.
  std::string branch;
  std::string repository;        // the repository's work tree (git folder when bare), as shown
  bool object_database = false;  // read from the object database (a git:REF:PATH profile)
  std::string manifest_commit;   // the commit the side's run manifest records ("" when none)
  bool operator==(const SideRepository&) const = default;
};

// Base against head in history: is the commit base profiled an ancestor of head's?
struct Ancestry {
  std::string base_commit, head_commit;  // 40 hex: each side's manifest commit when it has one, else its
                                         // repository commit
  bool base_from_manifest = false, head_from_manifest = false;
  bool base_is_ancestor = true;  // base == head counts as an ancestor
  std::string merge_base;        // 40 hex; "" when the histories share no commit
  std::size_t base_only = 0;     // commits reachable from base and not from head
  std::size_t head_only = 0;     // commits reachable from head and not from base
  std::string repository;        // where the two were looked up, as shown
  bool operator==(const Ancestry&) const = default;
};

// Both sides' states; `ancestry` when both commits were found in one repository.
struct RepositoryStates {
  std::vector<SideRepository> sides;  // base, then head; a side in no repository is left out
  std::optional<Ancestry> ancestry;
  bool operator==(const RepositoryStates&) const = default;
};

// What a side read from digests says of its repository (load_side's `recorded`, digest_side.hpp): the
// state of the profile's repository when it was digested, nullopt when it lay in none. Such a side's paths
// are the digest maker's: its state is taken from here, never looked up on this machine.
struct RecordedRepository {
  std::optional<SideRepository> state;  // side "" (set when gathered), manifest_commit ""
  bool operator==(const RecordedRepository&) const = default;
};

// Gathers the state of both sides. A folder profile's repository is the one at or above its folder, or
// `repository_dir` (--repo) when given; a git: profile's is the one it was read from. The ancestry is
// looked up in head's repository (else base's) when both commits are found there. Never throws: a side
// without a repository, a manifest commit that is not in the repository, or a libgit2 failure leaves
// out what cannot be known. A side with a RecordedRepository takes its recorded state (and its
// manifest's commit); the ancestry is then looked up in the other side's repository.
RepositoryStates gather_repository_states(const ProfileInventory& base, const ProfileInventory& head,
                                          const std::optional<RunManifest>& base_manifest,
                                          const std::optional<RunManifest>& head_manifest,
                                          const std::string& repository_dir,
                                          const std::optional<RecordedRepository>& base_recorded = std::nullopt,
                                          const std::optional<RecordedRepository>& head_recorded = std::nullopt);

}  // namespace neuron_gate
