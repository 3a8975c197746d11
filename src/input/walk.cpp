#include "input/walk.hpp"

#include "util/error.hpp"
#include "util/input_limits.hpp"
#include "util/utf8.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <utility>

namespace neuron_gate {
namespace {

using FileId = std::pair<dev_t, ino_t>;

// Filesystems whose files are not data (reading some blocks or never ends): never walked.
bool is_pseudo_filesystem(const std::string& path) {
  struct statfs info {};
  if (::statfs(path.c_str(), &info) != 0) {
    return false;
  }
  constexpr std::array<long, 10> magics = {
      0x9fa0,      // proc
      0x62656572,  // sysfs
      0x1cd1,      // devpts
      0x64626720,  // debugfs
      0x74726163,  // tracefs
      0x27e0eb,    // cgroup
      0x63677270,  // cgroup2
      0x73636673,  // securityfs
      0xcafe4a11,  // bpf
      0x6e736673,  // nsfs
  };
  const long type = static_cast<long>(info.f_type);
  return std::find(magics.begin(), magics.end(), type) != magics.end();
}

std::string real_path(const std::string& path) {
  std::unique_ptr<char, void (*)(void*)> resolved(::realpath(path.c_str(), nullptr), std::free);
  return resolved ? std::string(resolved.get()) : std::string();
}

const char* special_kind(mode_t mode) {
  if (S_ISFIFO(mode)) {
    return "a FIFO (named pipe), never read";
  }
  if (S_ISCHR(mode)) {
    return "a character device, never read";
  }
  if (S_ISBLK(mode)) {
    return "a block device, never read";
  }
  if (S_ISSOCK(mode)) {
    return "a socket, never read";
  }
  return "not a regular file, never read";
}

// The names in a folder, sorted, hidden ones (".git") left out. false when it cannot be read.
bool list_folder(const std::string& path, std::vector<std::string>& names) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), ::closedir);
  if (!dir) {
    return false;
  }
  while (const dirent* entry = ::readdir(dir.get())) {
    if (entry->d_name[0] != '.') {
      names.emplace_back(entry->d_name);
    }
  }
  std::sort(names.begin(), names.end());
  return true;
}

class Walker {
 public:
  explicit Walker(std::string root) : m_root(std::move(root)), m_root_real(real_path(m_root)) {
    m_result.root = m_root;
  }

  WalkResult run() {
    struct stat info {};
    if (::stat(m_root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      throw InputError(m_root, "not a directory");
    }
    walk_folder(m_root, "", info, 0, "");
    // Links last, so that a file's real path inside the profile names it, not a link to it.
    while (!m_links.empty()) {
      const Pending link = m_links.front();
      m_links.pop_front();
      follow(link);
    }
    std::sort(m_result.entries.begin(), m_result.entries.end(),
              [](const WalkEntry& a, const WalkEntry& b) { return a.relative_path < b.relative_path; });
    return std::move(m_result);
  }

 private:
  struct Pending {
    std::string path;
    std::string raw_relative;
    std::size_t depth = 0;
    std::string outside_link;
  };

  std::string shown(const std::string& raw_relative) {
    if (is_valid_utf8(raw_relative)) {
      return raw_relative;
    }
    ++m_result.names_with_invalid_utf8;
    return valid_utf8(raw_relative);
  }

  void count_entry() {
    if (++m_visited > input_limits().max_walk_entries) {
      throw InputError(m_root, "more than " + std::to_string(input_limits().max_walk_entries) +
                                   " files, folders and links under the profile (the walk limit; raise it with "
                                   "NEURON_GATE_MAX_WALK_ENTRIES if the profile is genuine)");
    }
  }

  void skip(const std::string& path, const std::string& raw_relative, std::string reason,
            const std::string& outside_link) {
    WalkEntry entry;
    entry.path = path;
    entry.relative_path = shown(raw_relative);
    entry.kind = WalkEntryKind::skipped;
    entry.skipped_reason = std::move(reason);
    entry.outside_link = outside_link;
    m_result.entries.push_back(std::move(entry));
  }

  // An entry already known to be no link (or a link already resolved to `info`).
  void visit(const std::string& path, const std::string& raw_relative, const struct stat& info, std::size_t depth,
             const std::string& outside_link) {
    if (S_ISDIR(info.st_mode)) {
      walk_folder(path, raw_relative, info, depth, outside_link);
    } else if (S_ISREG(info.st_mode)) {
      const auto [it, fresh] = m_seen.emplace(FileId{info.st_dev, info.st_ino}, raw_relative);
      if (!fresh) {
        return;  // the same file under another name (a link): listed once, by its first name
      }
      WalkEntry entry;
      entry.path = path;
      entry.relative_path = shown(raw_relative);
      entry.size_bytes = static_cast<std::uintmax_t>(info.st_size);
      entry.outside_link = outside_link;
      m_result.entries.push_back(std::move(entry));
    } else {
      skip(path, raw_relative, special_kind(info.st_mode), outside_link);
    }
  }

  void walk_folder(const std::string& path, const std::string& raw_relative, const struct stat& info, std::size_t depth,
                   const std::string& outside_link) {
    const auto [it, fresh] = m_seen.emplace(FileId{info.st_dev, info.st_ino}, raw_relative);
    if (!fresh) {
      if (!raw_relative.empty()) {
        skip(path, raw_relative,
             "a link to the folder " + (it->second.empty() ? std::string(".") : shown(it->second)) +
                 ", already listed (a loop or a second name): not walked again",
             outside_link);
      }
      return;
    }
    if (depth > input_limits().max_walk_depth) {
      skip(path, raw_relative,
           "deeper than " + std::to_string(input_limits().max_walk_depth) +
               " folders (NEURON_GATE_MAX_WALK_DEPTH): not walked",
           outside_link);
      return;
    }
    if (is_pseudo_filesystem(path)) {
      skip(path, raw_relative, "a pseudo-filesystem (/proc, /sys, ...): not walked", outside_link);
      return;
    }
    if (!raw_relative.empty()) {
      WalkEntry entry;
      entry.path = path;
      entry.relative_path = shown(raw_relative);
      entry.kind = WalkEntryKind::directory;
      entry.outside_link = outside_link;
      m_result.entries.push_back(std::move(entry));
    }
    std::vector<std::string> names;
    if (!list_folder(path, names)) {
      throw InputError(path, std::string("cannot read directory: ") + std::strerror(errno));
    }
    for (const std::string& name : names) {
      count_entry();
      const std::string child = path + "/" + name;
      const std::string child_relative = raw_relative.empty() ? name : raw_relative + "/" + name;
      struct stat child_info {};
      if (::lstat(child.c_str(), &child_info) != 0) {
        skip(child, child_relative, std::string("cannot be read: ") + std::strerror(errno), outside_link);
      } else if (S_ISLNK(child_info.st_mode)) {
        m_links.push_back({child, child_relative, depth + 1, outside_link});
      } else {
        visit(child, child_relative, child_info, depth + 1, outside_link);
      }
    }
  }

  bool inside_root(const std::string& real) const {
    return real == m_root_real ||
           (real.size() > m_root_real.size() && real.compare(0, m_root_real.size(), m_root_real) == 0 &&
            (m_root_real == "/" || real[m_root_real.size()] == '/'));
  }

  void follow(const Pending& link) {
    struct stat info {};
    if (::stat(link.path.c_str(), &info) != 0) {
      const int error = errno;
      skip(link.path, link.raw_relative,
           error == ELOOP ? "a symbolic link loop: not followed"
                          : std::string("a broken symbolic link (") + std::strerror(error) + "): not followed",
           link.outside_link);
      return;
    }
    const std::string real = real_path(link.path);
    std::string outside_link = link.outside_link;
    if (outside_link.empty() && !real.empty() && !inside_root(real)) {
      outside_link = shown(link.raw_relative) + " -> " + valid_utf8(real);
    }
    if (S_ISDIR(info.st_mode) && !real.empty() && !inside_root(real)) {
      const bool holds_root = real == "/" || inside_root_of(real);
      if (holds_root) {
        skip(link.path, link.raw_relative,
             "a link to " + valid_utf8(real) + ", a folder that holds the profile itself: not walked", outside_link);
        return;
      }
    }
    visit(link.path, link.raw_relative, info, link.depth, outside_link);
  }

  // True when the profile root lies inside the folder `real`.
  bool inside_root_of(const std::string& real) const {
    return m_root_real.size() > real.size() && m_root_real.compare(0, real.size(), real) == 0 &&
           m_root_real[real.size()] == '/';
  }

  std::string m_root;
  std::string m_root_real;
  WalkResult m_result;
  std::map<FileId, std::string> m_seen;  // device/inode -> first raw relative path
  std::deque<Pending> m_links;
  std::uint64_t m_visited = 0;
};

}  // namespace

WalkResult walk_profile(const std::string& root) {
  return Walker(root).run();
}

}  // namespace neuron_gate
