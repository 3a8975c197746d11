#pragma once
// A scratch git repository built with libgit2 for the tests of `git:REF:PATH` profiles and of the
// provenance's commits (issue 20): files are written to the work tree, staged and committed to a
// branch with a fixed author and time, so commit ids are the same on every run.

#include <doctest/doctest.h>
#include <git2.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace neuron_gate::testing {

class GitTestRepo {
 public:
  explicit GitTestRepo(const std::filesystem::path& dir) : m_dir(dir) {
    git_libgit2_init();
    git_repository_init_options options;
    REQUIRE(git_repository_init_options_init(&options, GIT_REPOSITORY_INIT_OPTIONS_VERSION) == 0);
    options.flags = GIT_REPOSITORY_INIT_MKPATH;
    options.initial_head = "main";  // not the user's init.defaultBranch
    REQUIRE(git_repository_init_ext(&m_repo, dir.string().c_str(), &options) == 0);
  }
  ~GitTestRepo() {
    git_repository_free(m_repo);
    git_libgit2_shutdown();
  }
  GitTestRepo(const GitTestRepo&) = delete;
  GitTestRepo& operator=(const GitTestRepo&) = delete;

  const std::filesystem::path& dir() const { return m_dir; }

  // Copies the folder `from` to `to` (relative to the work tree); with `gzip`, every file gzipped as NAME.gz.
  void copy_folder(const std::filesystem::path& from, const std::string& to, bool gzip = false) {
    namespace fs = std::filesystem;
    for (const auto& entry : fs::recursive_directory_iterator(from)) {
      const fs::path target = m_dir / to / fs::relative(entry.path(), from);
      if (entry.is_directory()) {
        fs::create_directories(target);
      } else if (gzip) {
        fs::create_directories(target.parent_path());
        write_gzip(entry.path(), target.string() + ".gz");
      } else {
        fs::create_directories(target.parent_path());
        fs::copy_file(entry.path(), target, fs::copy_options::overwrite_existing);
      }
    }
  }

  void write(const std::string& relative, const std::string& text) {
    const std::filesystem::path target = m_dir / relative;
    std::filesystem::create_directories(target.parent_path());
    std::ofstream(target, std::ios::binary) << text;
  }

  // Stages every file of the work tree and commits it to `ref` ("HEAD" or "refs/heads/x") with `parents`
  // (hex ids; none for a root commit). Returns the new commit's id (hex). `seconds` makes ids distinct.
  std::string commit(const std::string& ref, const std::string& message, const std::vector<std::string>& parents,
                     git_time_t seconds = 1764633600) {
    git_index* index = nullptr;
    REQUIRE(git_repository_index(&index, m_repo) == 0);
    REQUIRE(git_index_add_all(index, nullptr, 0, nullptr, nullptr) == 0);
    REQUIRE(git_index_write(index) == 0);
    git_oid tree_id;
    REQUIRE(git_index_write_tree(&tree_id, index) == 0);
    git_index_free(index);
    git_tree* tree = nullptr;
    REQUIRE(git_tree_lookup(&tree, m_repo, &tree_id) == 0);
    std::vector<git_commit*> parent_commits;
    for (const std::string& hex : parents) {
      git_oid id;
      REQUIRE(git_oid_fromstr(&id, hex.c_str()) == 0);
      git_commit* parent = nullptr;
      REQUIRE(git_commit_lookup(&parent, m_repo, &id) == 0);
      parent_commits.push_back(parent);
    }
    git_signature* author = nullptr;
    REQUIRE(git_signature_new(&author, "Test", "test@example.com", seconds, 0) == 0);
    git_oid commit_id;
    std::vector<const git_commit*> const_parents(parent_commits.begin(), parent_commits.end());
    const int rc = git_commit_create(&commit_id, m_repo, ref.c_str(), author, author, nullptr, message.c_str(), tree,
                                     const_parents.size(), const_parents.data());
    INFO((git_error_last() != nullptr ? git_error_last()->message : ""));
    REQUIRE(rc == 0);
    git_signature_free(author);
    for (git_commit* parent : parent_commits) {
      git_commit_free(parent);
    }
    git_tree_free(tree);
    return git_oid_tostr_s(&commit_id);
  }

  // Points HEAD at `ref` (symbolic) and checks its tree out (forced), as `git checkout BRANCH` does.
  void checkout(const std::string& ref) {
    REQUIRE(git_repository_set_head(m_repo, ref.c_str()) == 0);
    git_checkout_options options;
    git_checkout_options_init(&options, GIT_CHECKOUT_OPTIONS_VERSION);
    options.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
    REQUIRE(git_checkout_head(m_repo, &options) == 0);
  }

 private:
  static void write_gzip(const std::filesystem::path& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string text = bytes.str();
    gzFile out = gzopen(to.c_str(), "wb");
    REQUIRE(out != nullptr);
    REQUIRE(gzwrite(out, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
    REQUIRE(gzclose(out) == Z_OK);
  }

  std::filesystem::path m_dir;
  git_repository* m_repo = nullptr;
};

}  // namespace neuron_gate::testing
