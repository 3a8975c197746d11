#include "profile/baseline_history.hpp"

#include "profile/git_handles.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

#include <git2.h>

namespace neuron_gate {
namespace {

using Revwalk = std::unique_ptr<git_revwalk, git::Deleter<git_revwalk, git_revwalk_free>>;

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

} // namespace

std::vector<StoredBaselineEntry> stored_baselines_along(const std::string& repository_dir, const std::string& baseline_ref,
                                                        const std::string& along, std::size_t limit,
                                                        std::size_t max_commits) {
  const git::Repository repository = git::open_repository(baseline_ref, repository_dir);
  const git::Commit tip = commit_of(repository.get(), baseline_ref, "baseline ref");
  git_tree* tree_object = nullptr;
  if (git_commit_tree(&tree_object, tip.get()) != 0) {
    throw InputError(baseline_ref, "cannot read the tree of the baseline ref: " + git::last_error());
  }
  const git::Tree tree(tree_object);
  const git::Commit start = commit_of(repository.get(), along, "revision");
  git_revwalk* walk_object = nullptr;
  if (git_revwalk_new(&walk_object, repository.get()) != 0) {
    throw InputError(along, "cannot walk history: " + git::last_error());
  }
  const Revwalk walk(walk_object);
  git_revwalk_simplify_first_parent(walk.get());
  if (git_revwalk_push(walk.get(), git_commit_id(start.get())) != 0) {
    throw InputError(along, "cannot walk history: " + git::last_error());
  }
  std::vector<StoredBaselineEntry> found;
  const std::string folder = git_repository_path(repository.get());
  git_oid oid;
  for (std::size_t position = 0; position < max_commits && found.size() < limit && git_revwalk_next(&oid, walk.get()) == 0;
       ++position) {
    const std::string commit = git::hex(oid);
    const git_tree_entry* entry = git_tree_entry_byname(tree.get(), (commit + ".ngdigest").c_str());
    if (entry == nullptr || git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
      continue;
    }
    git_commit* code_commit = nullptr;
    std::string summary;
    std::int64_t time = 0;
    if (git_commit_lookup(&code_commit, repository.get(), &oid) == 0) {
      const git::Commit guard(code_commit);
      const char* text = git_commit_summary(code_commit);
      summary = text != nullptr ? valid_utf8(text) : std::string();
      time = static_cast<std::int64_t>(git_commit_time(code_commit));
    }
    found.push_back({commit, summary, time, position, GitBlob{folder, git::hex(*git_tree_entry_id(entry))},
                     "git:" + baseline_ref + ":" + commit + ".ngdigest"});
  }
  return found;
}

} // namespace neuron_gate
