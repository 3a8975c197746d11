#pragma once
// The one directory walk of a profile (DESIGN.md section 1): every later step (discovery by content,
// Neuron artifact checks, provenance) uses its inventory, so a file has one name everywhere.
//
// Symlink policy (issue 22 item 8): links inside a profile are followed to regular files and folders;
// each file and folder is listed once, by its path inside the profile as walked (the real path wins over
// a link to it: links are followed after the real tree); loops and repeats are detected by device and
// inode. A link that leads outside the profile is followed too, and every entry reached through it
// carries `outside_link` ("r -> /data/run7") so that `inspect` names it; an outside folder is not walked
// when it is `/`, holds the profile root, or lies on a pseudo-filesystem (/proc, /sys, devpts, cgroup,
// debugfs, tracefs, securityfs, bpf). Special files (FIFOs, devices, sockets) are listed as skipped
// and never opened. Hidden entries (".git", ".cache", ...) are skipped. The walk is bounded by
// input_limits().max_walk_entries (an InputError beyond) and max_walk_depth (deeper folders skipped,
// listed).

#include <cstdint>
#include <string>
#include <vector>

namespace neuron_gate {

enum class WalkEntryKind {
  file,       // a regular file (possibly reached through links)
  directory,  // a folder walked
  skipped,    // listed, never read: a special file, a loop, a broken link, a folder not walked
};

// One entry of the walk.
struct WalkEntry {
  std::string path;           // as opened: the root joined with the raw relative path (links unresolved)
  std::string relative_path;  // inside the profile, '/'-separated, invalid UTF-8 replaced by U+FFFD
  WalkEntryKind kind = WalkEntryKind::file;
  std::uintmax_t size_bytes = 0;  // regular files only
  // "LINK -> TARGET" (LINK relative, TARGET absolute) when reached through a link leading outside the
  // profile; "" otherwise.
  std::string outside_link;
  std::string skipped_reason;  // why a skipped entry was not read ("a FIFO, never read", ...)
  bool operator==(const WalkEntry&) const = default;
};

// The inventory of one walk, sorted by relative path.
struct WalkResult {
  std::string root;
  std::vector<WalkEntry> entries;
  std::size_t names_with_invalid_utf8 = 0;  // file and folder names whose invalid bytes were replaced
  bool operator==(const WalkResult&) const = default;
};

// Walks the folder `root` under the policy above. Throws InputError(root, ...) when `root` is not a
// readable folder or the walk visits more than max_walk_entries entries. Never throws
// std::filesystem errors.
WalkResult walk_profile(const std::string& root);

}  // namespace neuron_gate
