#include "formats/discover.hpp"

#include "formats/neuron_artifacts.hpp"
#include "input/byte_source.hpp"
#include "input/walk.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>

namespace neuron_gate {
namespace {

constexpr std::size_t k_sniff_bytes = 1 << 20;
// Benchmark tools and Neuron summaries put the keys that tell them apart in their first few KiB.
constexpr std::size_t k_small_sniff_bytes = 64 << 10;

// First bytes of a file (at most k_sniff_bytes), decompressed when it is gzip, through the one byte source.
// A first chunk that holds them all (a plain file's chunk is as long) is looked at where it lies, valid
// until source.next(); otherwise they are gathered in `storage`.
std::string_view read_head(ByteSource& source, std::string& storage) {
  const std::string& path = source.path();
  std::string_view chunk = source.next();
  if (chunk.size() >= k_sniff_bytes) {
    return chunk.substr(0, k_sniff_bytes);
  }
  while (!chunk.empty()) {
    storage.append(chunk.substr(0, k_sniff_bytes - storage.size()));
    if (storage.size() >= k_sniff_bytes) {
      break;
    }
    chunk = source.next();
  }
  if (source.is_gzip() && storage.empty()) {
    throw InputError(path, "gzip data ends early (nothing decompressed)");
  }
  return storage;
}

std::size_t first_significant(std::string_view head) {
  std::size_t i = 0;
  if (head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0xEF && static_cast<unsigned char>(head[1]) == 0xBB &&
      static_cast<unsigned char>(head[2]) == 0xBF) {
    i = 3;
  }
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) {
    ++i;
  }
  return i;
}

// `file` (path and blob set) classified from its first bytes; `name` is its file name. Neuron binaries are
// told by name and not opened.
DiscoveredFile classify_file(const std::string& name, const DiscoveredFile& file) {
  std::unique_ptr<ByteSource> source;
  std::string storage;
  std::string_view head;
  if (!is_neuron_binary_name(name)) {
    source = open_profile_file(file, RawHash::skipped);  // a look only: its hash is not kept
    head = read_head(*source, storage);
  }
  DiscoveredFile classified = classify_file_head(name, head);
  classified.path = file.path;
  classified.git_blob = file.git_blob;
  return classified;
}

// The files and folders of a walk (of a folder, or of a git tree with `blobs` parallel to its entries)
// into `inventory`, each regular file classified by its content. The files are sniffed on the worker
// threads (util/parallel.hpp), each into its own slot, and kept in walk order; the first error in walk
// order is the one thrown, as when they were sniffed one after another.
void add_walk(ProfileInventory& inventory, const WalkResult& walk, const std::vector<GitBlob>& blobs) {
  inventory.names_with_invalid_utf8 = walk.names_with_invalid_utf8;
  std::vector<DiscoveredFile> files(walk.entries.size());
  const std::vector<std::exception_ptr> errors = parallel_for(walk.entries.size(), [&](std::size_t i) {
    const WalkEntry& entry = walk.entries[i];
    if (entry.kind == WalkEntryKind::directory) {
      return;
    }
    DiscoveredFile file;
    file.path = entry.path;
    file.git_blob = i < blobs.size() ? blobs[i] : GitBlob{};
    if (entry.kind == WalkEntryKind::skipped) {
      file.ignored_reason = entry.skipped_reason;
      file.regular = false;
    } else {
      file = classify_file(entry.relative_path, file);
      file.size_bytes = entry.size_bytes;
    }
    file.relative_path = entry.relative_path;
    file.outside_link = entry.outside_link;
    files[i] = std::move(file);
  });
  for (std::size_t i = 0; i < walk.entries.size(); ++i) {
    if (errors[i]) {
      std::rethrow_exception(errors[i]);
    }
    if (walk.entries[i].kind == WalkEntryKind::directory) {
      inventory.folders.push_back(walk.entries[i].relative_path);
    } else {
      inventory.files.push_back(std::move(files[i]));
    }
  }
}

}  // namespace

std::vector<std::string> top_level_json_keys(std::string_view head, std::size_t max_keys) {
  std::vector<std::string> keys;
  const std::size_t start = first_significant(head);
  if (start >= head.size() || head[start] != '{') {
    return keys;
  }
  // Depth 1 is the top-level object; a string at depth 1 where a key is expected is a key.
  int depth = 0;
  bool expect_key = false;
  for (std::size_t i = start; i < head.size() && keys.size() < max_keys; ++i) {
    const char c = head[i];
    if (c == '"') {
      std::size_t end = i + 1;
      while (end < head.size() && head[end] != '"') {
        end += head[end] == '\\' ? std::size_t{2} : std::size_t{1};
      }
      if (end >= head.size()) {
        break;  // cut off inside a string
      }
      if (depth == 1 && expect_key) {
        keys.emplace_back(head.substr(i + 1, end - i - 1));
        expect_key = false;
      }
      i = end;
    } else if (c == '{' || c == '[') {
      ++depth;
      expect_key = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      if (--depth <= 0) {
        break;
      }
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  return keys;
}

DiscoveredFile classify_file_head(const std::string& name, std::string_view head) {
  DiscoveredFile file;
  file.relative_path = name;
  const std::size_t start = first_significant(head);
  FileHead sniffed;
  sniffed.name = name;
  sniffed.whole = head;
  sniffed.text = head.substr(std::min(start, head.size()));
  sniffed.small = head.substr(0, k_small_sniff_bytes);
  sniffed.first = start < head.size() ? head[start] : '\0';
  for (const FileKindRow& row : file_kinds()) {
    if (row.sniff != nullptr && row.sniff(sniffed)) {
      file.kind = row.kind;
      return file;
    }
  }
  if (start >= head.size()) {
    file.ignored_reason = "empty file";
  } else if (sniffed.first == '{') {
    constexpr std::size_t k_keys_named = 6;
    const std::vector<std::string> seen = top_level_json_keys(sniffed.small, k_keys_named + 1);
    std::string keys;
    for (std::size_t i = 0; i < std::min(seen.size(), k_keys_named); ++i) {
      keys += (keys.empty() ? "\"" : ", \"") + seen[i] + "\"";
    }
    keys += seen.size() > k_keys_named ? ", …" : "";
    file.ignored_reason = "JSON that neuron-gate does not read: " +
                          (keys.empty() ? std::string("no top-level keys") : "top-level keys " + keys) +
                          " (not a trace, e2e.json, manifest, benchmark-tool or Neuron summary JSON)";
  } else if (head.find('\0') != std::string_view::npos) {
    file.ignored_reason = "binary file";
  } else {
    file.ignored_reason = "text that is neither JSON, a key_averages table nor a Neuron summary-text";
  }
  return file;
}

std::unique_ptr<ByteSource> open_profile_file(const DiscoveredFile& file, RawHash hash) {
  if (!file.git_blob.oid.empty()) {
    return open_git_blob(file.git_blob, file.path, hash);
  }
  return std::make_unique<ByteSource>(file.path, hash);
}

ProfileInventory discover_profile(const std::string& spec, const std::string& repository_dir) {
  namespace fs = std::filesystem;
  ProfileInventory inventory;
  inventory.spec = spec;
  if (is_git_spec(spec)) {
    const GitTreeWalk git = walk_git_spec(spec, repository_dir);
    inventory.git_repository = git.repository;
    inventory.git_repository_shown = git.repository_shown;
    inventory.git_commit = git.commit;
    add_walk(inventory, git.walk, git.blobs);
    return inventory;
  }
  std::error_code ec;
  const fs::file_status status = fs::status(spec, ec);
  if (ec || !fs::exists(status)) {
    throw InputError(spec, "no such file or directory");
  }
  if (fs::is_regular_file(status)) {
    const std::string name = fs::path(spec).filename().string();
    DiscoveredFile file;
    file.path = spec;
    file = classify_file(name, file);
    file.relative_path = valid_utf8(name, &inventory.names_with_invalid_utf8);
    file.size_bytes = fs::file_size(spec, ec);
    inventory.files.push_back(std::move(file));
    return inventory;
  }
  if (!fs::is_directory(status)) {
    throw InputError(spec, "not a regular file or directory (a FIFO, device or socket is never read)");
  }
  add_walk(inventory, walk_profile(spec), {});
  return inventory;
}

}  // namespace neuron_gate
