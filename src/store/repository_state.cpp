#include "store/repository_state.hpp"

#include "input/git_handles.hpp"
#include "input/git_source.hpp"
#include "util/utf8.hpp"

#include <filesystem>

namespace neuron_gate {
namespace {

// A side's state and the repository it was found in (kept open for the ancestry).
struct Found {
  SideRepository state;
  git::Repository repository;
};

std::string commit_summary(git_repository* repository, const git_oid& oid) {
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repository, &oid) != 0) {
    return "";
  }
  const git::Commit guard(commit);
  const char* summary = git_commit_summary(commit);
  return summary != nullptr ? valid_utf8(summary) : std::string();
}

bool work_tree_dirty(git_repository* repository) {
  if (git_repository_is_bare(repository) != 0) {
    return false;
  }
  // What GIT_STATUS_OPTIONS_INIT does, spelled out: clang reports the macro's unnamed zero fields
  // (-Wmissing-field-initializers). Untracked files are not counted: changes to tracked files only.
  git_status_options options{};
  options.version = GIT_STATUS_OPTIONS_VERSION;
  options.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  git_status_list* status = nullptr;
  if (git_status_list_new(&status, repository, &options) != 0) {
    return false;
  }
  const bool dirty = git_status_list_entrycount(status) > 0;
  git_status_list_free(status);
  return dirty;
}

// The short name of `ref` when it names a local or remote branch, else "".
std::string branch_named(git_repository* repository, const std::string& ref) {
  git_reference* reference = nullptr;
  if (git_reference_dwim(&reference, repository, ref.c_str()) != 0) {
    return "";
  }
  const git::Reference guard(reference);
  return git_reference_is_branch(reference) != 0 || git_reference_is_remote(reference) != 0
             ? valid_utf8(git_reference_shorthand(reference))
             : std::string();
}

// A git:REF:PATH side: the commit REF resolved to, in the repository it was read from.
std::optional<Found> git_side(const ProfileInventory& inventory) {
  git_repository* repository = nullptr;
  git_oid oid;
  if (inventory.git_commit.empty() || git_repository_open(&repository, inventory.git_repository.c_str()) != 0) {
    return std::nullopt;
  }
  Found found{{}, git::Repository(repository)};
  if (git_oid_fromstr(&oid, inventory.git_commit.c_str()) != 0) {
    return std::nullopt;
  }
  found.state.commit = inventory.git_commit;
  found.state.summary = commit_summary(repository, oid);
  found.state.branch = branch_named(repository, parse_git_spec(inventory.spec).ref);
  found.state.repository = inventory.git_repository_shown;
  found.state.object_database = true;
  return found;
}

// A side on disk: HEAD of the repository at or above its folder (or `repository_dir`).
std::optional<Found> disk_side(const ProfileInventory& inventory, const std::string& repository_dir) {
  std::error_code ec;
  std::string start = repository_dir;
  if (start.empty()) {
    start = std::filesystem::is_directory(inventory.spec, ec)
                ? inventory.spec
                : std::filesystem::path(inventory.spec).parent_path().string();
  }
  git_repository* repository = nullptr;
  if (git_repository_open_ext(&repository, start.empty() ? "." : start.c_str(), 0, nullptr) != 0) {
    return std::nullopt;
  }
  Found found{{}, git::Repository(repository)};
  git_oid oid;
  if (git_reference_name_to_id(&oid, repository, "HEAD") != 0) {
    return std::nullopt;  // no commit yet
  }
  found.state.commit = git::hex(oid);
  found.state.summary = commit_summary(repository, oid);
  git_reference* head = nullptr;
  if (git_repository_head(&head, repository) == 0) {
    const git::Reference guard(head);
    if (git_reference_is_branch(head) != 0) {
      found.state.branch = valid_utf8(git_reference_shorthand(head));
    }
  }
  found.state.dirty = work_tree_dirty(repository);
  found.state.repository = valid_utf8(git::shown_path(repository));
  return found;
}

// The commit `hex` (abbreviated or full) names in `repository`.
std::optional<git_oid> find_commit(git_repository* repository, const std::string& hex) {
  git_oid prefix;
  if (hex.empty() || git_oid_fromstrn(&prefix, hex.c_str(), hex.size()) != 0) {
    return std::nullopt;
  }
  git_object* object = nullptr;
  if (git_object_lookup_prefix(&object, repository, &prefix, hex.size(), GIT_OBJECT_COMMIT) != 0) {
    return std::nullopt;
  }
  const git::Object guard(object);
  return *git_object_id(object);
}

std::optional<Ancestry> ancestry_of(const Found& base, const Found& head, git_repository* repository) {
  Ancestry ancestry;
  ancestry.base_from_manifest = !base.state.manifest_commit.empty();
  ancestry.head_from_manifest = !head.state.manifest_commit.empty();
  const auto base_oid =
      find_commit(repository, ancestry.base_from_manifest ? base.state.manifest_commit : base.state.commit);
  const auto head_oid =
      find_commit(repository, ancestry.head_from_manifest ? head.state.manifest_commit : head.state.commit);
  if (!base_oid || !head_oid) {
    return std::nullopt;
  }
  ancestry.base_commit = git::hex(*base_oid);
  ancestry.head_commit = git::hex(*head_oid);
  ancestry.repository = valid_utf8(git::shown_path(repository));
  if (git_oid_equal(&*base_oid, &*head_oid) != 0) {
    return ancestry;
  }
  ancestry.base_is_ancestor = git_graph_descendant_of(repository, &*head_oid, &*base_oid) == 1;
  git_oid merge_base;
  if (git_merge_base(&merge_base, repository, &*base_oid, &*head_oid) == 0) {
    ancestry.merge_base = git::hex(merge_base);
  }
  std::size_t base_only = 0, head_only = 0;
  if (git_graph_ahead_behind(&base_only, &head_only, repository, &*base_oid, &*head_oid) == 0) {
    ancestry.base_only = base_only;
    ancestry.head_only = head_only;
  }
  return ancestry;
}

}  // namespace

RepositoryStates gather_repository_states(const ProfileInventory& base, const ProfileInventory& head,
                                          const std::optional<RunManifest>& base_manifest,
                                          const std::optional<RunManifest>& head_manifest,
                                          const std::string& repository_dir,
                                          const std::optional<RecordedRepository>& base_recorded,
                                          const std::optional<RecordedRepository>& head_recorded) {
  ensure_libgit2();
  RepositoryStates states;
  std::optional<Found> found[2];
  const ProfileInventory* inventories[2] = {&base, &head};
  const std::optional<RunManifest>* manifests[2] = {&base_manifest, &head_manifest};
  const std::optional<RecordedRepository>* recorded[2] = {&base_recorded, &head_recorded};
  for (int i = 0; i < 2; ++i) {
    const ProfileInventory& inventory = *inventories[i];
    if (*recorded[i]) {
      if ((*recorded[i])->state) {
        found[i] = Found{*(*recorded[i])->state, git::Repository(nullptr)};
      }
    } else {
      found[i] = is_git_spec(inventory.spec) ? git_side(inventory) : disk_side(inventory, repository_dir);
    }
    if (found[i]) {
      found[i]->state.side = i == 0 ? "base" : "head";
      found[i]->state.manifest_commit = *manifests[i] ? (*manifests[i])->commit : "";
      states.sides.push_back(found[i]->state);
    }
  }
  if (found[0] && found[1]) {
    for (const int in : {1, 0}) {  // head's repository first; a recorded side has none here
      if (!states.ancestry && found[in]->repository) {
        states.ancestry = ancestry_of(*found[0], *found[1], found[in]->repository.get());
      }
    }
  }
  return states;
}

}  // namespace neuron_gate
