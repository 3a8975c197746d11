#pragma once
// Profiles read straight from a git object database (issue 20 item 2): the spec `git:REF:PATH` names
// the tree (a folder) or blob (one file) at PATH in the commit or tree REF resolves to, in the
// repository that contains the current directory or the one given with --repo DIR. Nothing is checked
// out: the tree is walked like a folder (same policy and limits as walk.hpp: hidden entries skipped,
// input_limits().max_walk_entries and max_walk_depth) and each blob is read through a ByteSource held
// in memory (gzip by its magic bytes), so input limits, hashes and error messages (the file named
// `git:REF:PATH/inner/file`, JSON byte offsets) are those of a file on disk. All git work is libgit2
// (1.1 API); nothing runs `git`.

#include "input/byte_source.hpp"
#include "input/walk.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace neuron_gate {

// A profile spec `git:REF:PATH` taken apart.
struct GitSpec {
  std::string ref;   // what libgit2's revparse resolves: a branch, tag, remote branch, commit id, `HEAD~2`
  std::string path;  // inside REF's tree, '/'-separated, no leading or trailing '/'; "" = the root tree
  bool operator==(const GitSpec&) const = default;
};

// True when `spec` starts with "git:" (such a spec is never read from disk; write `./git:x` for a
// folder of that name).
bool is_git_spec(std::string_view spec);

// Parses `git:REF:PATH` (REF up to the first ':' after "git:"; PATH may be empty or "." for the root;
// a leading "./" and trailing '/' are dropped). Throws InputError(spec, ...) when there is no second
// ':', REF is empty, or PATH holds an empty, "." or ".." component after the first.
GitSpec parse_git_spec(const std::string& spec);

// Where a file of a `git:` profile lives: a blob of a repository. Empty on disk.
struct GitBlob {
  std::string repository;  // the repository's git folder (git_repository_path), to reopen it
  std::string oid;         // the blob's object id, hex
  bool operator==(const GitBlob&) const = default;
};

// A `git:` profile walked: its entries (WalkEntry::path is `git:REF:PATH/inner/file`, relative_path
// `inner/file`; sizes are the blobs' sizes) and each file's blob.
struct GitTreeWalk {
  WalkResult walk;               // sorted by relative path, as walk_profile() gives it
  std::vector<GitBlob> blobs;    // parallel to walk.entries; empty oid for folders and skipped entries
  std::string repository;        // the repository's git folder
  std::string repository_shown;  // its work tree (or git folder when bare), for messages
  std::string commit;            // the commit REF resolves to (hex), "" when REF names a tree
  // PATH names a blob: `walk` holds that one file, relative_path its file name, path the spec.
  bool single_file = false;
};

// Opens the repository (at or above `repository_dir`, else at or above the current directory), resolves
// `spec` and walks the tree at PATH like a folder. Symbolic links stored in the tree are listed, not
// followed; submodules are listed, not read. Throws InputError(spec, ...) naming what is wrong: no
// repository there ("not in a git repository ..."), a REF that does not resolve ("no ref or commit
// \"REF\" ..."), a PATH missing from REF's tree ("no \"PATH\" in REF ..."), a PATH that is a submodule,
// and the walk limits.
GitTreeWalk walk_git_spec(const std::string& spec, const std::string& repository_dir);

// The bytes of `blob` as a ByteSource named `name` (the `git:REF:PATH/inner/file` shown in errors). The
// blob is held in memory whole (libgit2 inflates objects whole): its stored size is checked against
// input_limits().max_file_bytes first. Throws InputError(name, ...) when the repository or blob cannot
// be read or the blob is over the limit. `hash` as for ByteSource (RawHash::skipped for a sniff).
std::unique_ptr<ByteSource> open_git_blob(const GitBlob& blob, const std::string& name, RawHash hash = RawHash::kept);

// Initialises libgit2 once per process (shut down at exit). Every user of libgit2 calls it first.
void ensure_libgit2();

}  // namespace neuron_gate
