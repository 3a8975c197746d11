#pragma once
// The stored baselines along a branch (issue 20 item 5): digests saved by `baseline save` under a ref
// such as refs/neuron-gate/baselines/main (layout: docs/user-guide.md "Stored baselines" — the ref's tip tree holds
// one blob `<40-hex profiled commit>.ngdigest` per profiled commit), looked up for each commit of the
// first-parent history of a revision. libgit2 only; nothing is checked out.

#include "input/git_source.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace neuron_gate {

// The most first-parent commits `history` walks back (docs/user-guide.md "History of stored baselines").
inline constexpr std::size_t k_max_history_commits = 10000;

// One stored baseline found along history.
struct StoredBaselineEntry {
  std::string commit;        // the profiled commit, 40 hex digits
  std::string summary;       // its subject line as stored (from the repository: treat as hostile text)
  std::int64_t time = 0;     // its commit time, s since 1970-01-01 UTC
  std::size_t position = 0;  // first-parent steps back from the revision walked (0 = the revision itself)
  GitBlob blob;              // the digest's blob (open_git_blob)
  std::string name;          // "git:REF:<sha>.ngdigest", naming the digest in errors
  bool operator==(const StoredBaselineEntry&) const = default;
};

// Why the walk along history ended.
enum class HistoryWalkEnd {
  root,            // the first commit of the history: everything was looked at
  baseline_limit,  // `limit` baselines found
  commit_limit,    // `max_commits` commits walked; older ones not looked at
  shallow,         // a shallow clone's boundary: the parent is not in the repository (fetch more history)
};

// The baselines found and how far the walk went.
struct StoredBaselineWalk {
  std::vector<StoredBaselineEntry> entries;  // newest first
  std::size_t commits = 0;                   // first-parent commits looked at
  HistoryWalkEnd end = HistoryWalkEnd::root;
  std::string last_commit;  // the oldest commit looked at (40 hex digits)
};

// The baselines of the repository at or above `repository_dir` (the current directory when "") found under
// `baseline_ref` for the first-parent history of `along` (a revision: "HEAD", "main", a commit id), newest
// first: at most `limit` of them among the first `max_commits` commits walked, commit by commit through
// first parents (a shallow boundary's commit is looked at; the walk then ends and says so). Throws
// InputError naming the ref or revision when there is no repository, `baseline_ref` does not resolve to a
// commit, `along` does not resolve to a commit, or a commit on the way is corrupt (check_loose_object).
StoredBaselineWalk stored_baselines_along(const std::string& repository_dir, const std::string& baseline_ref,
                                          const std::string& along, std::size_t limit,
                                          std::size_t max_commits = k_max_history_commits);

}  // namespace neuron_gate
