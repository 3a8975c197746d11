#include "store/baseline_history.hpp"

#include "input/git_handles.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

#include <git2.h>

namespace neuron_gate {
namespace {

// The commit `revision` names, or an InputError naming it as `what`.
git::Commit commit_of(git_repository* repository, const std::string& revision, const std::string& what) {
  git_object* object = nullptr;
  if (git_revparse_single(&object, repository, revision.c_str()) != 0) {
    throw InputError(revision, "no " + what + " \"" + valid_utf8(revision) + "\" in " + git::shown_path(repository) +
                                   ": " + git::last_error());
  }
  const git::Object guard(object);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, object, GIT_OBJECT_COMMIT) != 0) {
    throw InputError(revision, what + " \"" + valid_utf8(revision) + "\" does not name a commit");
  }
  return git::Commit(reinterpret_cast<git_commit*>(peeled));
}

}  // namespace

StoredBaselineWalk stored_baselines_along(const std::string& repository_dir, const std::string& baseline_ref,
                                          const std::string& along, std::size_t limit, std::size_t max_commits) {
  const git::Repository repository = git::open_repository(baseline_ref, repository_dir);
  const git::Commit tip = commit_of(repository.get(), baseline_ref, "baseline ref");
  git_tree* tree_object = nullptr;
  if (git_commit_tree(&tree_object, tip.get()) != 0) {
    throw InputError(baseline_ref, "cannot read the tree of the baseline ref: " + git::last_error());
  }
  const git::Tree tree(tree_object);
  git::Commit commit = commit_of(repository.get(), along, "revision");
  const std::string folder = git_repository_path(repository.get());
  StoredBaselineWalk walk;
  while (true) {
    const std::string hex = git::hex(*git_commit_id(commit.get()));
    walk.last_commit = hex;
    const git_tree_entry* entry = git_tree_entry_byname(tree.get(), (hex + ".ngdigest").c_str());
    if (entry != nullptr && git_tree_entry_type(entry) == GIT_OBJECT_BLOB) {
      const char* text = git_commit_summary(commit.get());
      walk.entries.push_back({hex, text != nullptr ? valid_utf8(text) : std::string(),
                              static_cast<std::int64_t>(git_commit_time(commit.get())), walk.commits,
                              GitBlob{folder, git::hex(*git_tree_entry_id(entry))},
                              "git:" + baseline_ref + ":" + hex + ".ngdigest"});
    }
    ++walk.commits;
    if (walk.entries.size() >= limit || walk.commits >= max_commits || git_commit_parentcount(commit.get()) == 0) {
      walk.end = walk.entries.size() >= limit  ? HistoryWalkEnd::baseline_limit
                 : walk.commits >= max_commits ? HistoryWalkEnd::commit_limit
                                               : HistoryWalkEnd::root;
      return walk;
    }
    const git_oid parent_id = *git_commit_parent_id(commit.get(), 0);
    git::check_loose_object(repository.get(), parent_id, along);
    git_commit* parent = nullptr;
    if (git_commit_lookup(&parent, repository.get(), &parent_id) != 0) {
      if (git_repository_is_shallow(repository.get()) != 1) {
        throw InputError(along, "the parent " + git::hex(parent_id) + " of commit " + hex +
                                    " is missing from the repository (not a shallow clone): " + git::last_error());
      }
      walk.end = HistoryWalkEnd::shallow;  // a shallow clone's boundary: the parent was not fetched
      return walk;
    }
    commit = git::Commit(parent);
  }
}

}  // namespace neuron_gate
