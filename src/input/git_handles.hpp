#pragma once
// Owning handles for libgit2 objects (profile/ internal): each frees its object with libgit2's own free
// function. Include only from .cpp files that link libgit2.

#include <git2.h>

#include <memory>
#include <string>

namespace neuron_gate::git {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* object) const {
    if (object != nullptr) {
      Free(object);
    }
  }
};

using Repository = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using Object = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;
using Tree = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using TreeEntry = std::unique_ptr<git_tree_entry, Deleter<git_tree_entry, git_tree_entry_free>>;
using Blob = std::unique_ptr<git_blob, Deleter<git_blob, git_blob_free>>;
using Commit = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;
using Reference = std::unique_ptr<git_reference, Deleter<git_reference, git_reference_free>>;
using Odb = std::unique_ptr<git_odb, Deleter<git_odb, git_odb_free>>;

// libgit2's message for the last failed call, or "unknown error".
inline std::string last_error() {
  const git_error* error = git_error_last();
  return error != nullptr && error->message != nullptr ? std::string(error->message) : std::string("unknown error");
}

// The object id as 40 (SHA-1) hex digits.
inline std::string hex(const git_oid& oid) {
  return git_oid_tostr_s(&oid);
}

// The work tree of `repository`, or its git folder when it is bare, without a trailing '/'.
inline std::string shown_path(git_repository* repository) {
  const char* workdir = git_repository_workdir(repository);
  std::string path = workdir != nullptr ? workdir : git_repository_path(repository);
  while (path.size() > 1 && path.back() == '/') {
    path.pop_back();
  }
  return path;
}

// The repository at or above `dir` (the current directory when ""), opened with libgit2 (initialised
// first). Throws InputError(what, "not in a git repository: ...") naming the folder searched from.
Repository open_repository(const std::string& what, const std::string& dir);

// Throws InputError(what, "git object SHA is corrupt: ...") when `oid` is stored loose and its zlib stream
// is cut short or damaged: libgit2 1.5 (Debian 12) loops forever reading such an object (libgit2 issue
// 7342). Inflates the loose file once, in 64 KiB pieces, up to input_limits().max_file_bytes; packed and
// absent objects are left to libgit2, whose reads of them fail cleanly. Call before reading an object.
void check_loose_object(git_repository* repository, const git_oid& oid, const std::string& what);

}  // namespace neuron_gate::git
