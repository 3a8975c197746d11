#pragma once
// Stored baselines (issue 20 item 4; docs/user-guide.md "Stored baselines"; layout in docs/DESIGN.md and
// /work/notes/baseline-layout.md): digests kept in a git repository under a dedicated ref, keyed by the
// commit they profile, so that the default branch is profiled once per push and every pull request is
// compared against the digest of its nearest profiled ancestor.
//
// Layout: REF (e.g. refs/neuron-gate/baselines/NAME) points to a chain of commits. Each save makes one
// commit whose parent is the previous tip (none for the first) and whose tree is the previous tree with
// the top-level blob `<40-hex profiled commit>.ngdigest` added or replaced; message
// `neuron-gate baseline for <sha>`; author and committer from the repository's user.name/user.email, else
// `neuron-gate <neuron-gate@localhost>`. The work tree, the index and HEAD are never touched. All git
// work is libgit2 (1.1 API).

#include <cstddef>
#include <string>
#include <string_view>

namespace neuron_gate {

// The blob name of the digest of `commit` (40 hex): "<commit>.ngdigest".
std::string baseline_blob_name(const std::string& commit);

// The PATH of a `git:REF:PATH` spec that asks for the stored baseline nearest the head commit.
inline constexpr std::string_view k_nearest_baseline_path = "@merge-base";

// What `save_baseline` did.
struct SavedBaseline {
  std::string ref;           // the ref written
  std::string commit;        // 40 hex: the commit the digest profiles (the blob's name)
  std::string saved_commit;  // 40 hex: the new tip of `ref`
  std::string repository;    // the repository's work tree (git folder when bare), as shown
  bool replaced = false;     // the tip already held a digest of `commit` (now replaced)
  std::size_t stored = 0;    // digests in the new tip's tree
};

// Where and what to save.
struct BaselineSaveRequest {
  std::string repository_dir;  // the repository at or above this folder ("" = the current directory's)
  std::string ref;             // full ref name, "refs/..."
  std::string commit;          // a revision naming the profiled commit ("" = HEAD of the repository)
  bool allow_dirty = false;    // accept a work tree with changes to tracked files when commit is HEAD
};

// Throws InputError(ref, ...) unless `ref` is a full, valid ref name under refs/ (libgit2's rules).
void check_baseline_ref(const std::string& ref);

// Commits `digest` (the bytes of a digest, store/digest.hpp) to request.ref as described at the top.
// Throws InputError naming: the folder when it is in no repository; the ref when it is not a valid ref
// name under refs/, or exists and does not point to a baseline chain (its tip's message does not start
// with "neuron-gate baseline for "), or moved while saving; the revision when it names no commit; the
// repository when HEAD is unborn, or when `commit` is "" and the work tree has changes to tracked files
// (untracked files do not count) unless allow_dirty; and libgit2's message for a failed write.
SavedBaseline save_baseline(const BaselineSaveRequest& request, const std::string& digest);

// The stored baseline nearest a head commit.
struct FoundBaseline {
  std::string ref;          // the baseline ref, as given
  std::string tip;          // 40 hex: the ref's tip when looked up
  std::string commit;       // 40 hex: the profiled commit whose digest was found
  std::string head_commit;  // 40 hex: where the walk started (the base commit when from_base_commit)
  // The walk went along first parents from the pull request's base commit (--base-commit): the PR's own
  // commits are never candidates. Else breadth-first over every parent from head_commit.
  bool from_base_commit = false;
  std::size_t distance = 0;  // commits from head_commit to commit along the path walked (0: the same)
  std::size_t walked = 0;    // commits looked at before it was found
  std::string spec;          // `git:<ref>:<commit>.ngdigest`, the spec to read it with
  bool operator==(const FoundBaseline&) const = default;
};

// Most commits the walk looks at before it gives up.
inline constexpr std::size_t k_max_baseline_walk = 100000;

// Finds, in the repository at or above `repository_dir` ("" = the current directory's), the digest in
// the tip tree of `ref` nearest a commit. With `base_commit` (a revision: the pull request's base,
// docs/stored-baselines.md "Trust model"): that commit, else its first parent, and so on — one chain, no
// ties, nothing the PR committed. Without it: `head` (a revision; "" = HEAD) itself, else its ancestors
// breadth-first by distance (shortest parent path), ties by commit id (never by committer time, which
// the committer sets). `spec` names the request in errors. Throws InputError(spec, ...) when there is no
// repository, `ref` does not resolve to a commit, a revision names no commit, or no digest is found
// within k_max_baseline_walk commits (the message says how many commits were looked at).
FoundBaseline find_nearest_baseline(const std::string& spec, const std::string& repository_dir, const std::string& ref,
                                    const std::string& head, const std::string& base_commit = "");

}  // namespace neuron_gate
