#pragma once
// Step 1 of the pipeline: find what a profile holds. A profile is a directory (walked recursively),
// or a single file; files are recognised by their content, not their names (DESIGN.md section 1).

#include "formats/file_kinds.hpp"
#include "input/byte_source.hpp"
#include "input/git_source.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// One file found under a profile root.
struct DiscoveredFile {
  std::string path;           // as opened (root joined with the relative path)
  std::string relative_path;  // relative to the profile root; the file name for a single-file profile
  FileKind kind = FileKind::ignored;
  std::uintmax_t size_bytes = 0;
  std::string ignored_reason;  // why it was ignored ("" unless kind == ignored)
  // "LINK -> TARGET" when the file was reached through a symbolic link leading outside the profile
  // (walk.hpp); "" otherwise. Shown by `inspect`.
  std::string outside_link;
  bool regular = true;  // false for an entry the walk listed without reading (FIFO, loop, broken link)
  // SHA-256 of the file's bytes as stored, set by read_side() from the bytes it read ("" before, and for
  // files read_side does not read).
  std::string sha256;
  // The blob holding the file in a `git:REF:PATH` profile (git_source.hpp); empty for a file on disk.
  GitBlob git_blob;
  bool operator==(const DiscoveredFile&) const = default;
};

// Everything found under one profile spec, sorted by relative path (deterministic).
struct ProfileInventory {
  std::string spec;  // what the user passed
  std::vector<DiscoveredFile> files;
  std::vector<std::string> folders;         // relative paths of the folders walked, sorted
  std::size_t names_with_invalid_utf8 = 0;  // file and folder names whose invalid UTF-8 was replaced
  // For a `git:REF:PATH` profile: the repository's git folder and its work tree (or the git folder when
  // bare) as shown, and the commit REF resolved to ("" when REF names a tree). All "" on disk.
  std::string git_repository, git_repository_shown, git_commit;
  bool operator==(const ProfileInventory&) const = default;
};

// Walks `spec` (a directory, with walk_profile(): the one walk and its symlink policy, or a file; or a
// `git:REF:PATH` tree or blob, with walk_git_spec() in the repository at or above `repository_dir`, else
// the current directory), and sniffs each regular file's first bytes through ByteSource (gzip is
// decompressed for the sniff; a UTF-8 BOM and white space are skipped). Entries the walk skipped
// (special files, loops, broken links, folders not walked) are listed as ignored with the walk's reason.
// Throws InputError when `spec` does not exist, is not a regular file or folder, or cannot be read (for
// `git:` specs: no repository, a bad REF or PATH, naming it).
ProfileInventory discover_profile(const std::string& spec, const std::string& repository_dir = "");

// The bytes of a discovered file: its git blob (open_git_blob) when it has one, else the file on disk
// (ByteSource(path)). Throws InputError(file.path, ...) as those do. `hash` as for ByteSource.
std::unique_ptr<ByteSource> open_profile_file(const DiscoveredFile& file, RawHash hash = RawHash::kept);

// Classifies a file from its first bytes (already decompressed; the first MiB at most); `name` is the
// file name. Text is recognised by content, never by name; the opaque Neuron binaries (.neff, .ntff,
// .pb) by their names, since their formats are not public. The kinds are tried in the order of their rows
// (file_kinds.hpp): a JSON object as a neuron-gate digest (its first key "format" is "neuron-gate digest"),
// a trace ("traceEvents"), e2e.json and run manifest (their "schema"), a benchmark tool's output (first
// 64 KiB, benchmark_formats.hpp), a Neuron summary (first 64 KiB, neuron_summary.hpp); a top-level array
// as a Neuron summary (per-NTFF objects with "total_time"), else as a legacy trace; other text as a
// key_averages table, then a Neuron summary-text. Sets kind and, for an ignored file, ignored_reason
// (for unknown JSON it names up to 6 top-level keys seen). Never throws.
DiscoveredFile classify_file_head(const std::string& name, std::string_view head);

// The keys of a JSON object's top level that appear in `head` (the text's first bytes, after an
// optional BOM and white space; a cut-off text gives the keys before the cut), in order, at most
// `max_keys`. Empty when `head` is not a JSON object. Escapes in keys are kept as written.
std::vector<std::string> top_level_json_keys(std::string_view head, std::size_t max_keys);

}  // namespace neuron_gate
