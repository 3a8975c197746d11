#include "store/baseline_store.hpp"

#include "input/git_handles.hpp"
#include "input/git_source.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <deque>
#include <unordered_set>
#include <vector>

namespace neuron_gate {
namespace {

constexpr std::string_view k_message_prefix = "neuron-gate baseline for ";

using Signature = std::unique_ptr<git_signature, git::Deleter<git_signature, git_signature_free>>;
using TreeBuilder = std::unique_ptr<git_treebuilder, git::Deleter<git_treebuilder, git_treebuilder_free>>;

std::string shown(const std::string& text) {
  return "\"" + valid_utf8(text) + "\"";
}

}  // namespace

void check_baseline_ref(const std::string& ref) {
  ensure_libgit2();
  char normalized[1024];
  if (ref.rfind("refs/", 0) != 0 || ref.size() >= sizeof normalized ||
      git_reference_normalize_name(normalized, sizeof normalized, ref.c_str(), GIT_REFERENCE_FORMAT_NORMAL) != 0 ||
      ref != normalized) {
    throw InputError(ref, "not a valid ref name for a baseline: write the full name under refs/, e.g. "
                          "refs/neuron-gate/baselines/main");
  }
  for (const std::string_view taken : {"refs/heads/", "refs/tags/", "refs/remotes/"}) {
    if (ref.rfind(taken, 0) == 0) {
      throw InputError(ref, "is a branch, tag or remote-tracking ref, which a baseline chain must never move (it "
                            "is not checked out): use a ref of its own, e.g. refs/neuron-gate/baselines/main");
    }
  }
}

namespace {

// The commit `revision` names, or an InputError naming it.
git::Commit commit_named(git_repository* repository, const std::string& revision, const std::string& what) {
  git_object* object = nullptr;
  if (git_revparse_single(&object, repository, revision.c_str()) != 0) {
    throw InputError(what, "no commit " + shown(revision) + " in the git repository " +
                               valid_utf8(git::shown_path(repository)) + " (" + valid_utf8(git::last_error()) + ")");
  }
  const git::Object guard(object);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, object, GIT_OBJECT_COMMIT) != 0) {
    throw InputError(what, shown(revision) + " names no commit in the git repository " +
                               valid_utf8(git::shown_path(repository)));
  }
  return git::Commit(reinterpret_cast<git_commit*>(peeled));
}

bool work_tree_dirty(git_repository* repository) {
  if (git_repository_is_bare(repository) != 0) {
    return false;
  }
  git_status_options options{};  // GIT_STATUS_OPTIONS_INIT spelled out (clang: missing field initializers)
  options.version = GIT_STATUS_OPTIONS_VERSION;
  options.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;  // untracked files are not listed
  git_status_list* status = nullptr;
  if (git_status_list_new(&status, repository, &options) != 0) {
    throw InputError(git::shown_path(repository), "cannot read the work tree's status: " + git::last_error());
  }
  const bool dirty = git_status_list_entrycount(status) > 0;
  git_status_list_free(status);
  return dirty;
}

// The profiled commit of a save: `request.commit`, else HEAD (refusing a dirty work tree unless allowed).
std::string profiled_commit(git_repository* repository, const BaselineSaveRequest& request) {
  const std::string shown_repository = valid_utf8(git::shown_path(repository));
  if (!request.commit.empty()) {
    return git::hex(*git_commit_id(commit_named(repository, request.commit, request.commit).get()));
  }
  git_oid head;
  if (git_reference_name_to_id(&head, repository, "HEAD") != 0) {
    throw InputError(shown_repository,
                     "HEAD names no commit (an empty repository?): name the profiled commit with --commit");
  }
  if (!request.allow_dirty && work_tree_dirty(repository)) {
    throw InputError(shown_repository,
                     "the work tree has uncommitted changes to tracked files, so the profile may not be "
                     "of HEAD " +
                         git::hex(head) +
                         ": commit them, name the commit with --commit, or "
                         "pass --allow-dirty");
  }
  return git::hex(head);
}

Signature signature_of(git_repository* repository) {
  git_signature* signature = nullptr;
  if (git_signature_default(&signature, repository) != 0 &&
      git_signature_now(&signature, "neuron-gate", "neuron-gate@localhost") != 0) {
    throw InputError(git::shown_path(repository), "cannot make a commit signature: " + git::last_error());
  }
  return Signature(signature);
}

[[noreturn]] void write_failed(const std::string& ref, const std::string& what) {
  throw InputError(ref, "cannot " + what + ": " + valid_utf8(git::last_error()));
}

// The ref's tip when it exists (it must be a baseline chain), else null.
git::Commit current_tip(git_repository* repository, const std::string& ref) {
  git_oid tip;
  const int found = git_reference_name_to_id(&tip, repository, ref.c_str());
  if (found == GIT_ENOTFOUND) {
    return git::Commit();
  }
  git_commit* commit = nullptr;
  if (found != 0 || git_commit_lookup(&commit, repository, &tip) != 0) {
    throw InputError(ref, "exists but does not point to a commit: not a neuron-gate baseline ref");
  }
  git::Commit owned(commit);
  const char* message = git_commit_message(commit);
  if (message == nullptr || std::string_view(message).rfind(k_message_prefix, 0) != 0) {
    throw InputError(ref, "exists and its tip " + git::hex(tip) + " is not a neuron-gate baseline commit (message \"" +
                              std::string(k_message_prefix) + "...\"): refusing to write over it");
  }
  git_tree* tree_raw = nullptr;
  if (git_commit_tree(&tree_raw, commit) != 0) {
    throw InputError(ref, "cannot read the tree of its tip " + git::hex(tip) + ": " + valid_utf8(git::last_error()));
  }
  const git::Tree tree(tree_raw);
  for (std::size_t i = 0; i < git_tree_entrycount(tree.get()); ++i) {
    const git_tree_entry* entry = git_tree_entry_byindex(tree.get(), i);
    const std::string name = git_tree_entry_name(entry);
    const bool digest_name = name.size() == 40 + 9 && name.compare(40, 9, ".ngdigest") == 0 &&
                             name.find_first_not_of("0123456789abcdef") == 40;
    if (!digest_name || git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
      throw InputError(ref, "exists and its tip " + git::hex(tip) + " holds " + shown(name) +
                                ", which a neuron-gate baseline chain never does (only <commit>.ngdigest files): "
                                "refusing to write over it");
    }
  }
  return owned;
}

}  // namespace

std::string baseline_blob_name(const std::string& commit) {
  return commit + ".ngdigest";
}

SavedBaseline save_baseline(const BaselineSaveRequest& request, const std::string& digest) {
  check_baseline_ref(request.ref);
  const git::Repository owned =
      git::open_repository(request.repository_dir.empty() ? "." : request.repository_dir, request.repository_dir);
  git_repository* repository = owned.get();
  SavedBaseline saved;
  saved.ref = request.ref;
  saved.repository = valid_utf8(git::shown_path(repository));
  saved.commit = profiled_commit(repository, request);
  const git::Commit tip = current_tip(repository, request.ref);

  git::Tree previous;
  if (tip) {
    git_tree* tree = nullptr;
    if (git_commit_tree(&tree, tip.get()) != 0) {
      write_failed(request.ref, "read the tree of its tip");
    }
    previous.reset(tree);
  }
  // From the first object written to the ref moved, a signal waits: libgit2 writes each object through a
  // temporary file in .git/objects that an interrupted write would leave behind.
  const SignalsDeferred deferred;
  git_oid blob;
  if (git_blob_create_from_buffer(&blob, repository, digest.data(), digest.size()) != 0) {
    write_failed(request.ref, "write the digest blob");
  }
  git_treebuilder* builder_raw = nullptr;
  if (git_treebuilder_new(&builder_raw, repository, previous.get()) != 0) {
    write_failed(request.ref, "build the tree");
  }
  const TreeBuilder builder(builder_raw);
  const std::string name = baseline_blob_name(saved.commit);
  saved.replaced = git_treebuilder_get(builder.get(), name.c_str()) != nullptr;
  git_oid tree_id;
  if (git_treebuilder_insert(nullptr, builder.get(), name.c_str(), &blob, GIT_FILEMODE_BLOB) != 0 ||
      git_treebuilder_write(&tree_id, builder.get()) != 0) {
    write_failed(request.ref, "write the tree");
  }
  saved.stored = git_treebuilder_entrycount(builder.get());
  git_tree* tree_raw = nullptr;
  if (git_tree_lookup(&tree_raw, repository, &tree_id) != 0) {
    write_failed(request.ref, "read the written tree");
  }
  const git::Tree tree(tree_raw);

  const Signature signature = signature_of(repository);
  const std::string message = std::string(k_message_prefix) + saved.commit + "\n";
  const git_commit* parents[1] = {tip.get()};
  git_oid commit_id;
  if (git_commit_create(&commit_id, repository, nullptr, signature.get(), signature.get(), nullptr, message.c_str(),
                        tree.get(), tip ? 1 : 0, parents) != 0) {
    write_failed(request.ref, "write the baseline commit");
  }
  // Move the ref only from the tip read above (or create it only if it still does not exist).
  git_reference* reference = nullptr;
  const std::string log = "neuron-gate baseline save " + saved.commit;
  const int moved = tip ? git_reference_create_matching(&reference, repository, request.ref.c_str(), &commit_id, 1,
                                                        git_commit_id(tip.get()), log.c_str())
                        : git_reference_create(&reference, repository, request.ref.c_str(), &commit_id, 0, log.c_str());
  if (moved != 0) {
    write_failed(request.ref, "move the ref (did another save move it meanwhile? run again)");
  }
  git_reference_free(reference);
  saved.saved_commit = git::hex(commit_id);
  return saved;
}

namespace {

// The top-level "<40 hex>.ngdigest" names of a tree, as the 40 hex.
std::unordered_set<std::string> stored_commits(git_tree* tree) {
  std::unordered_set<std::string> commits;
  const std::size_t count = git_tree_entrycount(tree);
  for (std::size_t i = 0; i < count; ++i) {
    const git_tree_entry* entry = git_tree_entry_byindex(tree, i);
    const std::string name = git_tree_entry_name(entry);
    if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB && name.size() == 40 + 9 && name.ends_with(".ngdigest") &&
        name.find_first_not_of("0123456789abcdef") == 40) {
      commits.insert(name.substr(0, 40));
    }
  }
  return commits;
}

struct Candidate {
  git_oid id;
};

}  // namespace

FoundBaseline find_nearest_baseline(const std::string& spec, const std::string& repository_dir, const std::string& ref,
                                    const std::string& head, const std::string& base_commit) {
  const git::Repository owned = git::open_repository(spec, repository_dir);
  git_repository* repository = owned.get();
  FoundBaseline found;
  found.ref = ref;
  git_object* ref_object = nullptr;
  if (git_revparse_single(&ref_object, repository, ref.c_str()) != 0) {
    throw InputError(
        spec, "no baseline ref " + shown(ref) + " in the git repository " + valid_utf8(git::shown_path(repository)) +
                  " (fetch it: git fetch origin 'refs/neuron-gate/baselines/*:refs/neuron-gate/baselines/*'; "
                  "save one with neuron-gate baseline save)");
  }
  git_object_free(ref_object);
  const git::Commit tip = commit_named(repository, ref, spec);
  found.tip = git::hex(*git_commit_id(tip.get()));
  git_tree* tree_raw = nullptr;
  if (git_commit_tree(&tree_raw, tip.get()) != 0) {
    throw InputError(spec, "cannot read the tree of " + shown(ref) + ": " + valid_utf8(git::last_error()));
  }
  const git::Tree tree(tree_raw);
  const std::unordered_set<std::string> stored = stored_commits(tree.get());
  found.from_base_commit = !base_commit.empty();
  const git::Commit start = commit_named(repository,
                                         found.from_base_commit ? base_commit
                                         : head.empty()         ? "HEAD"
                                                                : head,
                                         spec);
  found.head_commit = git::hex(*git_commit_id(start.get()));

  // Breadth-first by distance; within one distance by id. From the base commit, first parents only.
  std::vector<Candidate> level{{*git_commit_id(start.get())}};
  std::unordered_set<std::string> seen{found.head_commit};
  for (std::size_t distance = 0; !level.empty() && found.walked < k_max_baseline_walk; ++distance) {
    std::sort(level.begin(), level.end(),
              [](const Candidate& a, const Candidate& b) { return git_oid_cmp(&a.id, &b.id) < 0; });
    std::vector<Candidate> next;
    for (const Candidate& candidate : level) {
      ++found.walked;
      const std::string hex = git::hex(candidate.id);
      if (stored.count(hex) != 0) {
        found.commit = hex;
        found.distance = distance;
        found.spec = "git:" + ref + ":" + baseline_blob_name(hex);
        return found;
      }
      git_commit* commit = nullptr;
      if (git_commit_lookup(&commit, repository, &candidate.id) != 0) {
        continue;  // a shallow clone's boundary: its parents are not there
      }
      const git::Commit guard(commit);
      const unsigned parents =
          found.from_base_commit ? std::min(1U, git_commit_parentcount(commit)) : git_commit_parentcount(commit);
      for (unsigned i = 0; i < parents; ++i) {
        git_commit* parent = nullptr;
        git::check_loose_object(repository, *git_commit_parent_id(commit, i), spec);
        if (git_commit_parent(&parent, commit, i) != 0) {
          continue;  // missing in a shallow clone
        }
        const git::Commit parent_guard(parent);
        if (seen.insert(git::hex(*git_commit_id(parent))).second) {
          next.push_back({*git_commit_id(parent)});
        }
      }
    }
    level = std::move(next);
  }
  throw InputError(spec, "no stored baseline in " + shown(ref) + " (" + std::to_string(stored.size()) +
                             " digests) for " + found.head_commit + " or any of its " +
                             (found.from_base_commit ? "first-parent ancestors (" : "ancestors (") +
                             std::to_string(found.walked) + " commits looked at" +
                             (found.walked >= k_max_baseline_walk ? ", the most the walk looks at" : "") +
                             "; in a shallow clone, fetch more history)");
}

}  // namespace neuron_gate
