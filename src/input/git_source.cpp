#include "input/git_source.hpp"

#include "input/git_handles.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"
#include "util/utf8.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <map>
#include <mutex>
#include <new>
#include <numeric>

namespace neuron_gate {
namespace {

struct GitLibrary {
  GitLibrary() { git_libgit2_init(); }
  ~GitLibrary() { git_libgit2_shutdown(); }
  GitLibrary(const GitLibrary&) = delete;
  GitLibrary& operator=(const GitLibrary&) = delete;
};

std::string current_directory() {
  char buffer[PATH_MAX];
  return ::getcwd(buffer, sizeof buffer) != nullptr ? valid_utf8(buffer) : std::string(".");
}

// One path component is fine: not empty, not "." or "..".
bool bad_component(std::string_view path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// Walks a tree object like walk.cpp walks a folder.
class TreeWalker {
 public:
  TreeWalker(git_repository* repository, std::string spec, std::string prefix)
      : m_repository(repository), m_spec(std::move(spec)), m_prefix(std::move(prefix)) {}

  void walk(const git_tree* tree, const std::string& raw_relative, std::size_t depth) {
    const std::size_t count = git_tree_entrycount(tree);
    for (std::size_t i = 0; i < count; ++i) {
      const git_tree_entry* entry = git_tree_entry_byindex(tree, i);
      const std::string name = git_tree_entry_name(entry);
      if (name.empty() || name[0] == '.') {
        continue;  // hidden entries, as on disk
      }
      count_entry();
      const std::string child = raw_relative.empty() ? name : raw_relative + "/" + name;
      visit(entry, child, depth + 1);
    }
  }

  GitTreeWalk finish() {
    std::vector<std::size_t> order(m_entries.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return m_entries[a].relative_path < m_entries[b].relative_path; });
    GitTreeWalk result;
    result.walk = std::move(m_result);
    for (const std::size_t i : order) {
      result.walk.entries.push_back(std::move(m_entries[i]));
      result.blobs.push_back(std::move(m_blobs[i]));
    }
    return result;
  }

 private:
  void visit(const git_tree_entry* entry, const std::string& raw_relative, std::size_t depth) {
    const git_object_t type = git_tree_entry_type(entry);
    if (type == GIT_OBJECT_TREE) {
      if (depth > input_limits().max_walk_depth) {
        skip(raw_relative, "deeper than " + std::to_string(input_limits().max_walk_depth) +
                               " folders (NEURON_GATE_MAX_WALK_DEPTH): not walked");
        return;
      }
      git::check_loose_object(m_repository, *git_tree_entry_id(entry), path_of(raw_relative));
      git_tree* subtree = nullptr;
      if (git_tree_lookup(&subtree, m_repository, git_tree_entry_id(entry)) != 0) {
        throw InputError(path_of(raw_relative), "cannot read the tree object: " + git::last_error());
      }
      const git::Tree guard(subtree);
      add(raw_relative, WalkEntryKind::directory, 0, {});
      walk(subtree, raw_relative, depth);
    } else if (type == GIT_OBJECT_BLOB && git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK) {
      skip(raw_relative, "a symbolic link stored in the git tree: not followed");
    } else if (type == GIT_OBJECT_BLOB) {
      add(raw_relative, WalkEntryKind::file, blob_size(entry, raw_relative), git::hex(*git_tree_entry_id(entry)));
    } else if (type == GIT_OBJECT_COMMIT) {
      skip(raw_relative, "a submodule (a commit of another repository): not read");
    } else {
      skip(raw_relative, "an entry of unknown mode in the git tree: not read");
    }
  }

  std::uintmax_t blob_size(const git_tree_entry* entry, const std::string& raw_relative) {
    git_odb* odb = nullptr;
    if (git_repository_odb(&odb, m_repository) != 0) {
      throw InputError(path_of(raw_relative), "cannot open the object database: " + git::last_error());
    }
    const git::Odb guard(odb);
    std::size_t size = 0;
    git_object_t type = GIT_OBJECT_ANY;
    if (git_odb_read_header(&size, &type, odb, git_tree_entry_id(entry)) != 0) {
      throw InputError(path_of(raw_relative), "cannot read the blob: " + git::last_error());
    }
    return size;
  }

  std::string path_of(const std::string& raw_relative) const { return m_prefix + valid_utf8(raw_relative); }

  void add(const std::string& raw_relative, WalkEntryKind kind, std::uintmax_t size, std::string oid,
           std::string reason = {}) {
    WalkEntry entry;
    entry.path = path_of(raw_relative);
    entry.relative_path = valid_utf8(raw_relative, &m_result.names_with_invalid_utf8);
    entry.kind = kind;
    entry.size_bytes = size;
    entry.skipped_reason = std::move(reason);
    m_entries.push_back(std::move(entry));
    m_blobs.push_back(oid.empty() ? GitBlob{} : GitBlob{git_repository_path(m_repository), std::move(oid)});
  }

  void skip(const std::string& raw_relative, std::string reason) {
    add(raw_relative, WalkEntryKind::skipped, 0, {}, std::move(reason));
  }

  void count_entry() {
    if (++m_visited > input_limits().max_walk_entries) {
      throw InputError(m_spec, "more than " + std::to_string(input_limits().max_walk_entries) +
                                   " files and folders under the profile (the walk limit; raise it with "
                                   "NEURON_GATE_MAX_WALK_ENTRIES if the profile is genuine)");
    }
  }

  git_repository* m_repository;
  std::string m_spec;
  std::string m_prefix;  // "git:REF:PATH/"
  WalkResult m_result;
  std::vector<WalkEntry> m_entries;
  std::vector<GitBlob> m_blobs;
  std::uint64_t m_visited = 0;
};

// REF resolved to an object, or an InputError naming REF and the repository.
git::Object resolve_ref(git_repository* repository, const std::string& spec, const GitSpec& parsed) {
  git_object* object = nullptr;
  if (git_revparse_single(&object, repository, parsed.ref.c_str()) != 0) {
    throw InputError(spec, "no ref or commit \"" + valid_utf8(parsed.ref) + "\" in the git repository " +
                               valid_utf8(git::shown_path(repository)) + " (" + valid_utf8(git::last_error()) + ")");
  }
  return git::Object(object);
}

// The commit REF names (hex), "" when it names a tree.
std::string commit_of(git_object* object) {
  git_object* commit = nullptr;
  if (git_object_peel(&commit, object, GIT_OBJECT_COMMIT) != 0) {
    return "";
  }
  const git::Object guard(commit);
  return git::hex(*git_object_id(commit));
}

// The single-file walk of a PATH that names a blob.
GitTreeWalk single_blob(git_repository* repository, const std::string& spec, const GitSpec& parsed,
                        const git_tree_entry* entry) {
  GitTreeWalk result;
  WalkEntry file;
  const std::size_t slash = parsed.path.rfind('/');
  file.path = spec;
  file.relative_path = valid_utf8(slash == std::string::npos ? parsed.path : parsed.path.substr(slash + 1),
                                  &result.walk.names_with_invalid_utf8);
  git_odb* odb = nullptr;
  std::size_t size = 0;
  git_object_t type = GIT_OBJECT_ANY;
  if (git_repository_odb(&odb, repository) != 0 ||
      git_odb_read_header(&size, &type, git::Odb(odb).get(), git_tree_entry_id(entry)) != 0) {
    throw InputError(spec, "cannot read the blob: " + git::last_error());
  }
  file.size_bytes = size;
  result.walk.entries.push_back(std::move(file));
  result.blobs.push_back(GitBlob{git_repository_path(repository), git::hex(*git_tree_entry_id(entry))});
  result.single_file = true;
  return result;
}

}  // namespace

void ensure_libgit2() {
  static const GitLibrary library;
}

bool is_git_spec(std::string_view spec) {
  return spec.substr(0, 4) == "git:";
}

GitSpec parse_git_spec(const std::string& spec) {
  const std::string rest = spec.substr(std::min<std::size_t>(4, spec.size()));
  const std::size_t colon = rest.find(':');
  if (!is_git_spec(spec) || colon == std::string::npos || colon == 0) {
    throw InputError(spec, "not a git profile: expected git:REF:PATH, e.g. git:origin/main:perf/baseline "
                           "(PATH may be empty for the whole tree)");
  }
  GitSpec parsed{rest.substr(0, colon), rest.substr(colon + 1)};
  while (parsed.path.starts_with("./")) {
    parsed.path.erase(0, 2);
  }
  while (!parsed.path.empty() && parsed.path.back() == '/') {
    parsed.path.pop_back();
  }
  if (parsed.path == ".") {
    parsed.path.clear();
  }
  if (!parsed.path.empty() && bad_component(parsed.path)) {
    throw InputError(spec, "bad path \"" + valid_utf8(parsed.path) +
                               "\" in a git profile: '/'-separated names inside REF's tree, without \".\", \"..\" "
                               "or empty parts");
  }
  return parsed;
}

GitTreeWalk walk_git_spec(const std::string& spec, const std::string& repository_dir) {
  const GitSpec parsed = parse_git_spec(spec);
  const git::Repository repository = git::open_repository(spec, repository_dir);
  const git::Object object = resolve_ref(repository.get(), spec, parsed);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, object.get(), GIT_OBJECT_TREE) != 0) {
    throw InputError(spec, "\"" + valid_utf8(parsed.ref) + "\" names a " +
                               git_object_type2string(git_object_type(object.get())) + ", not a commit or tree");
  }
  const git::Object tree_object(peeled);
  const auto* root = reinterpret_cast<const git_tree*>(tree_object.get());
  const std::string commit = commit_of(object.get());
  const std::string where = valid_utf8(parsed.ref) + (commit.empty() ? "" : " (commit " + commit.substr(0, 12) + ")");
  GitTreeWalk result;
  if (parsed.path.empty()) {
    TreeWalker walker(repository.get(), spec, "git:" + parsed.ref + ":");
    walker.walk(root, "", 0);
    result = walker.finish();
  } else {
    git_tree_entry* found = nullptr;
    if (git_tree_entry_bypath(&found, root, parsed.path.c_str()) != 0) {
      throw InputError(spec, "no \"" + valid_utf8(parsed.path) + "\" in " + where + " of the git repository " +
                                 valid_utf8(git::shown_path(repository.get())));
    }
    const git::TreeEntry entry(found);
    const git_object_t type = git_tree_entry_type(entry.get());
    if (type == GIT_OBJECT_TREE) {
      git::check_loose_object(repository.get(), *git_tree_entry_id(entry.get()), spec);
      git_tree* tree = nullptr;
      if (git_tree_lookup(&tree, repository.get(), git_tree_entry_id(entry.get())) != 0) {
        throw InputError(spec, "cannot read the tree object: " + git::last_error());
      }
      const git::Tree guard(tree);
      TreeWalker walker(repository.get(), spec, "git:" + parsed.ref + ":" + parsed.path + "/");
      walker.walk(tree, "", 0);
      result = walker.finish();
    } else if (type == GIT_OBJECT_BLOB && git_tree_entry_filemode(entry.get()) != GIT_FILEMODE_LINK) {
      result = single_blob(repository.get(), spec, parsed, entry.get());
    } else {
      throw InputError(spec, "\"" + valid_utf8(parsed.path) + "\" in " + where +
                                 " is a symbolic link or submodule, not a folder or file");
    }
  }
  result.walk.root = spec;
  result.repository = git_repository_path(repository.get());
  result.repository_shown = valid_utf8(git::shown_path(repository.get()));
  result.commit = commit;
  return result;
}

std::unique_ptr<ByteSource> open_git_blob(const GitBlob& blob, const std::string& name, RawHash hash) {
  ensure_libgit2();
  // One repository stays open between blobs: a profile's files all come from one.
  static std::mutex mutex;
  static std::map<std::string, git::Repository> open;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = open.find(blob.repository);
  if (it == open.end()) {
    git_repository* repository = nullptr;
    if (git_repository_open(&repository, blob.repository.c_str()) != 0) {
      throw InputError(name,
                       "cannot open the git repository " + valid_utf8(blob.repository) + ": " + git::last_error());
    }
    it = open.emplace(blob.repository, git::Repository(repository)).first;
  }
  git_oid oid;
  git_odb* odb = nullptr;
  std::size_t size = 0;
  git_object_t type = GIT_OBJECT_ANY;
  if (git_oid_fromstr(&oid, blob.oid.c_str()) != 0 || git_repository_odb(&odb, it->second.get()) != 0 ||
      git_odb_read_header(&size, &type, git::Odb(odb).get(), &oid) != 0) {
    throw InputError(name, "cannot read the blob " + blob.oid + ": " + git::last_error());
  }
  const std::uint64_t limit = input_limits().max_file_bytes;
  if (size > limit) {
    throw InputError(name,
                     "larger than the input limit of " + byte_count_text(limit) +
                         " as stored (raise it with NEURON_GATE_MAX_FILE_BYTES if the file is genuine)",
                     limit);
  }
  git::check_loose_object(it->second.get(), oid, name);
  git_blob* object = nullptr;
  if (git_blob_lookup(&object, it->second.get(), &oid) != 0) {
    throw InputError(name, "cannot read the blob " + blob.oid + ": " + git::last_error());
  }
  const git::Blob guard(object);
  try {
    std::string bytes(static_cast<const char*>(git_blob_rawcontent(object)),
                      static_cast<std::size_t>(git_blob_rawsize(object)));
    return std::make_unique<ByteSource>(name, std::move(bytes), hash);
  } catch (const std::bad_alloc&) {
    throw InputError(name, "out of memory while reading the blob of " + byte_count_text(size) +
                               " (see docs/user-guide.md \"Limits\")");
  }
}

git::Repository git::open_repository(const std::string& what, const std::string& dir) {
  ensure_libgit2();
  git_repository* repository = nullptr;
  if (git_repository_open_ext(&repository, dir.empty() ? "." : dir.c_str(), 0, nullptr) != 0) {
    throw InputError(what, dir.empty() ? "not in a git repository: none contains the current directory " +
                                             current_directory() + " (name one with --repo DIR)"
                                       : "not in a git repository: none at or above " + valid_utf8(dir));
  }
  return git::Repository(repository);
}

void git::check_loose_object(git_repository* repository, const git_oid& oid, const std::string& what) {
  const std::string hex = git::hex(oid);
  const char* common = git_repository_commondir(repository);
  std::ifstream file(std::string(common != nullptr ? common : git_repository_path(repository)) + "objects/" +
                         hex.substr(0, 2) + "/" + hex.substr(2),
                     std::ios::binary);
  if (!file) {
    return;  // packed, or not here: libgit2 reads or refuses it itself
  }
  const auto corrupt = [&](const std::string& why) {
    return InputError(what, "git object " + hex + " is corrupt: its loose file " + why + " (git fsck tells more)");
  };
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) {
    throw corrupt("cannot be inflated (zlib: out of memory)");
  }
  const std::uint64_t limit = input_limits().max_file_bytes + 64;  // the content and its "blob N\0" header
  std::vector<char> in(64 * 1024);
  std::vector<unsigned char> out(64 * 1024);
  int status = Z_OK;
  while (status == Z_OK && file) {
    file.read(in.data(), static_cast<std::streamsize>(in.size()));
    stream.next_in = reinterpret_cast<unsigned char*>(in.data());
    stream.avail_in = static_cast<uInt>(file.gcount());
    do {
      stream.next_out = out.data();
      stream.avail_out = static_cast<uInt>(out.size());
      status = inflate(&stream, Z_NO_FLUSH);
    } while (status == Z_OK && stream.avail_out == 0 && stream.total_out <= limit);
    if (stream.total_out > limit) {
      break;
    }
  }
  const std::uint64_t inflated = stream.total_out;
  inflateEnd(&stream);
  if (inflated > limit) {
    throw InputError(what, "git object " + hex + " is larger than the input limit of " +
                               byte_count_text(input_limits().max_file_bytes) + " (NEURON_GATE_MAX_FILE_BYTES)");
  }
  if (status == Z_OK || status == Z_BUF_ERROR) {
    throw corrupt("ends before its zlib stream does");
  }
  if (status != Z_STREAM_END) {
    throw corrupt("is not valid zlib data");
  }
}

}  // namespace neuron_gate
