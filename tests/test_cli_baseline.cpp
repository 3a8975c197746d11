// Stored baselines (issue 20 item 4): `baseline save` commits digests to a ref of a scratch repository
// built with libgit2, never touching the work tree, the index or HEAD; `compare git:REF:@merge-base`
// finds the digest nearest the head commit and gives the report the profile folder gives; bad refs,
// refs that are no baseline chain and folders outside any repository are input errors (exit 2).
#include "cli_helpers.hpp"
#include "git_test_repo.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_SUITE_BEGIN("cli::baseline");

namespace {

constexpr const char* k_ref = "refs/neuron-gate/baselines/main";

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// What a save may not change: HEAD's target, the index file's bytes, the status of every path.
struct RepoSnapshot {
  std::string head, index, status;
  bool operator==(const RepoSnapshot&) const = default;
};

RepoSnapshot snapshot(const fs::path& dir) {
  git_repository* repo = nullptr;
  REQUIRE(git_repository_open(&repo, dir.string().c_str()) == 0);
  RepoSnapshot shot;
  git_reference* head = nullptr;
  REQUIRE(git_reference_lookup(&head, repo, "HEAD") == 0);
  shot.head = git_reference_symbolic_target(head) != nullptr ? git_reference_symbolic_target(head) : "";
  git_reference_free(head);
  git_oid id;
  REQUIRE(git_reference_name_to_id(&id, repo, "HEAD") == 0);
  shot.head += std::string(" ") + git_oid_tostr_s(&id);
  shot.index = file_bytes(dir / ".git" / "index");
  git_status_options options{};
  options.version = GIT_STATUS_OPTIONS_VERSION;
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
  git_status_list* status = nullptr;
  REQUIRE(git_status_list_new(&status, repo, &options) == 0);
  for (std::size_t i = 0; i < git_status_list_entrycount(status); ++i) {
    const git_status_entry* entry = git_status_byindex(status, i);
    const git_diff_delta* delta = entry->index_to_workdir != nullptr ? entry->index_to_workdir : entry->head_to_index;
    shot.status += std::to_string(entry->status) + " " + delta->new_file.path + "\n";
  }
  git_status_list_free(status);
  git_repository_free(repo);
  return shot;
}

// The baseline ref's chain, newest first: each commit's message, parent count and top-level tree names.
struct ChainCommit {
  std::string message;
  unsigned parents = 0;
  std::vector<std::string> names;
};

std::vector<ChainCommit> chain(const fs::path& dir, const std::string& blob_name = "",
                               std::string* blob_bytes = nullptr) {
  git_repository* repo = nullptr;
  REQUIRE(git_repository_open(&repo, dir.string().c_str()) == 0);
  std::vector<ChainCommit> commits;
  git_oid id;
  REQUIRE(git_reference_name_to_id(&id, repo, k_ref) == 0);
  for (bool more = true; more;) {
    git_commit* commit = nullptr;
    REQUIRE(git_commit_lookup(&commit, repo, &id) == 0);
    ChainCommit c{git_commit_message(commit), git_commit_parentcount(commit), {}};
    git_tree* tree = nullptr;
    REQUIRE(git_commit_tree(&tree, commit) == 0);
    for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
      c.names.push_back(git_tree_entry_name(git_tree_entry_byindex(tree, i)));
    }
    if (blob_bytes != nullptr && commits.empty()) {
      const git_tree_entry* entry = git_tree_entry_byname(tree, blob_name.c_str());
      REQUIRE(entry != nullptr);
      git_blob* blob = nullptr;
      REQUIRE(git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) == 0);
      *blob_bytes = std::string(static_cast<const char*>(git_blob_rawcontent(blob)), git_blob_rawsize(blob));
      git_blob_free(blob);
    }
    git_tree_free(tree);
    more = c.parents == 1;
    if (more) {
      id = *git_commit_parent_id(commit, 0);
    }
    git_commit_free(commit);
    commits.push_back(c);
  }
  git_repository_free(repo);
  return commits;
}

CliResult save(const fs::path& profile, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"baseline", "save", profile.string(), "--ref", k_ref};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

}  // namespace

TEST_CASE("baseline save commits one digest per profiled commit to the ref, never the work tree, index or HEAD") {
  const fs::path dir = scratch("baseline-save") / "repo";
  GitTestRepo repo(dir);
  repo.copy_folder(example("A"), "perf/A");
  repo.write("README", "one\n");
  const std::string c1 = repo.commit("HEAD", "one", {}, 1764633600);
  repo.write("README", "two\n");
  const std::string c2 = repo.commit("HEAD", "two", {c1}, 1764633700);
  fs::copy(example("A2"), dir / "untracked-A2", fs::copy_options::recursive);  // an untracked profile

  const RepoSnapshot before = snapshot(dir);
  const CliResult first = save(dir / "perf/A", {"--commit", c1});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("as the baseline of commit " + c1 + " in refs/neuron-gate/baselines/main") != std::string::npos);
  const CliResult second = save(dir / "untracked-A2");  // HEAD (c2); untracked files do not make it dirty
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  const CliResult again = save(dir / "perf/A", {"--commit", c1});  // replaces c1's digest
  REQUIRE(again.exit_code == 0);
  CHECK(again.out.find("2 digests; it replaced the one stored for that commit") != std::string::npos);
  CHECK(snapshot(dir) == before);

  std::string stored_c1;
  const std::vector<ChainCommit> commits = chain(dir, c1 + ".ngdigest", &stored_c1);
  REQUIRE(commits.size() == 3);
  CHECK(commits[0].message == "neuron-gate baseline for " + c1 + "\n");
  CHECK(commits[1].message == "neuron-gate baseline for " + c2 + "\n");
  CHECK(commits[2].parents == 0);
  CHECK(commits[2].names == std::vector<std::string>{c1 + ".ngdigest"});
  std::vector<std::string> both{c1 + ".ngdigest", c2 + ".ngdigest"};
  std::sort(both.begin(), both.end());
  CHECK(commits[0].names == both);
  // The blob is exactly what `digest` writes for the same profile.
  const fs::path digest = dir.parent_path() / "A.ngdigest";
  REQUIRE(run({"digest", (dir / "perf/A").string(), "-o", digest.string()}).exit_code == 0);
  CHECK(stored_c1 == file_bytes(digest));
  CHECK(file_bytes(digest).size() > 100);
}

TEST_CASE("compare against git:REF:@merge-base: the nearest stored ancestor, its distance, the folder's report") {
  const fs::path dir = scratch("baseline-compare") / "repo";
  GitTestRepo repo(dir);
  repo.copy_folder(example("A"), "perf/A");
  repo.write("README", "one\n");
  const std::string c1 = repo.commit("HEAD", "one", {}, 1764633600);
  repo.write("README", "two\n");
  const std::string c2 = repo.commit("HEAD", "two", {c1}, 1764633700);
  const std::string f1 = repo.commit("refs/heads/feature", "feature one", {c2}, 1764633800);
  const std::string f2 = repo.commit("refs/heads/feature", "feature two", {f1}, 1764633900);
  REQUIRE(save(dir / "perf/A", {"--commit", c1}).exit_code == 0);
  const fs::path out = dir.parent_path();

  const auto compare = [&](const std::string& base, const std::string& name, std::vector<std::string> extra) {
    fs::create_directories(out / name);
    std::vector<std::string> args{"compare",
                                  base,
                                  example("Areg"),
                                  "--repo",
                                  dir.string(),
                                  "--today",
                                  "2026-12-01",
                                  "--json",
                                  (out / name / "r.json").string(),
                                  "--markdown",
                                  (out / name / "r.md").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult result = run(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 1);  // A -> Areg: a regression
    return json::parse(read_text((out / name / "r.json").string()));
  };
  const json stored =
      compare(std::string("git:") + k_ref + ":@merge-base", "stored", {"--head-commit", f2, "--no-git"});
  const json folder = compare(example("A"), "folder", {"--no-git"});
  CHECK(stored["verdict"] == folder["verdict"]);
  CHECK(stored["metrics"] == folder["metrics"]);  // verdicts, p-values, CIs, medians
  CHECK(stored["metrics"].size() > 5);
  CHECK(stored["provenance"]["files"] == folder["provenance"]["files"]);
  const json& found = stored["provenance"]["stored_baseline"];
  CHECK(found["commit"] == c1);
  CHECK(found["head_commit"] == f2);
  CHECK(found["distance"] == 3);
  CHECK(found["ref"] == k_ref);
  CHECK(folder["provenance"].contains("stored_baseline") == false);
  CHECK(read_text((out / "stored" / "r.md").string())
            .find("- base is the digest stored for commit `" + c1.substr(0, 12) + "` in `" + k_ref + "` (tip `") !=
        std::string::npos);
  CHECK(read_text((out / "stored" / "r.md").string())
            .find("the stored baseline nearest head commit `" + f2.substr(0, 12) +
                  "`, 3 commits before it (4 commits looked at)") != std::string::npos);

  // A nearer save wins; the base side's git commit is the profiled commit, an ancestor of head: no warning.
  REQUIRE(save(dir / "perf/A", {"--commit", c2}).exit_code == 0);
  const json nearer = compare(std::string("git:") + k_ref + ":@merge-base", "nearer", {"--head-commit", f2});
  CHECK(nearer["provenance"]["stored_baseline"]["commit"] == c2);
  CHECK(nearer["provenance"]["stored_baseline"]["distance"] == 2);
  CHECK(nearer["provenance"]["git_commits"][0]["side"] == "base");
  CHECK(nearer["provenance"]["git_commits"][0]["commit"] == c2);
  CHECK(nearer["provenance"]["git_commits"][0]["summary"] == "two");
  for (const json& line : nearer["open_hypotheses"]) {
    CHECK(line.get<std::string>().find("not an ancestor") == std::string::npos);
  }
  // Without --head-commit the walk starts at HEAD (main, c2): distance 0.
  const json at_head = compare(std::string("git:") + k_ref + ":@merge-base", "at-head", {"--no-git"});
  CHECK(at_head["provenance"]["stored_baseline"]["distance"] == 0);
  CHECK(at_head["provenance"]["stored_baseline"]["head_commit"] == c2);

  // Two parents at the same distance: the smaller commit id wins, whatever the committer times (which
  // the committer sets: issue 39 item 1).
  REQUIRE(save(dir / "perf/A", {"--commit", f2}).exit_code == 0);
  const std::string merge = repo.commit("refs/heads/merged", "merge", {c2, f2}, 1764634000);
  const json tie = compare(std::string("git:") + k_ref + ":@merge-base", "tie", {"--head-commit", merge, "--no-git"});
  CHECK(tie["provenance"]["stored_baseline"]["commit"] == std::min(c2, f2));
  CHECK(tie["provenance"]["stored_baseline"]["distance"] == 1);
}

// Issue 39 item 1: on the PR's merge commit, a walk over both parents can reach a digest the PR stored for
// its own head (refs/neuron-gate/baselines/* are writable by every collaborator). --base-commit walks the
// base's first parents only and accepts a digest only when it records the commit it is stored for.
TEST_CASE("--base-commit: a digest the PR stored for its own head is never the baseline") {
  const fs::path dir = scratch("baseline-base-commit") / "repo";
  GitTestRepo repo(dir);
  repo.copy_folder(example("A"), "perf/A");
  repo.copy_folder(example("Areg"), "perf/Areg");
  const std::string base = repo.commit("HEAD", "base", {}, 1764633600);
  REQUIRE(save(dir / "perf/A", {}).exit_code == 0);  // the honest baseline of the base commit (records it)
  // The PR: its head commit dated far in the future, a digest of its own regressed profile stored for it.
  const std::string pr = repo.commit("refs/heads/pr", "pr", {base}, 2000000000);
  REQUIRE(save(dir / "perf/Areg", {"--commit", pr}).exit_code == 0);
  const std::string merge = repo.commit("refs/heads/pr-merge", "merge", {base, pr}, 2000000100);
  const fs::path out = dir.parent_path();
  const auto compare = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{"compare",
                                  std::string("git:") + k_ref + ":@merge-base",
                                  example("Areg"),
                                  "--repo",
                                  dir.string(),
                                  "--no-git",
                                  "--quiet",
                                  "--json",
                                  (out / (name + ".json")).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const CliResult from_base = compare("from-base", {"--base-commit", base});
  INFO(from_base.err);
  CHECK(from_base.exit_code == 1);  // A -> Areg: the regression the honest baseline shows
  const json report = json::parse(read_text((out / "from-base.json").string()));
  CHECK(report["provenance"]["stored_baseline"]["commit"] == base);
  CHECK(report["provenance"]["stored_baseline"]["from_base_commit"] == true);
  CHECK(report["provenance"]["stored_baseline"]["distance"] == 0);
  // From the merge commit over both parents the PR's digest can win (it did by committer time, exit 0).
  const CliResult from_merge = compare("from-merge", {"--head-commit", merge});
  CHECK((from_merge.exit_code == 0) == (std::min(base, pr) == pr));
  // A later base commit without a digest of its own: its first parent's.
  repo.write("README", "later\n");
  const std::string later = repo.commit("HEAD", "later", {base}, 1764633700);
  const CliResult first_parent = compare("first-parent", {"--base-commit", later});
  CHECK(first_parent.exit_code == 1);
  CHECK(json::parse(read_text((out / "first-parent.json").string()))["provenance"]["stored_baseline"]["distance"] == 1);
  // A digest stored for the base commit that records another commit (made in a checkout of `later`) is refused.
  REQUIRE(save(dir / "perf/Areg", {"--commit", base}).exit_code == 0);
  const CliResult forged = compare("forged", {"--base-commit", base});
  CHECK(forged.exit_code == 2);
  CHECK(forged.err.find("the digest stored for commit " + base + " records commit " + later) != std::string::npos);
  CHECK(compare("both", {"--base-commit", base, "--head-commit", merge}).exit_code == 2);  // one or the other
}

TEST_CASE("baseline save and lookup errors: bad ref, not a baseline ref, no repository, dirty tree, none stored") {
  const fs::path dir = scratch("baseline-errors") / "repo";
  GitTestRepo repo(dir);
  repo.copy_folder(example("A"), "perf/A");
  repo.write("README", "one\n");
  const std::string c1 = repo.commit("HEAD", "one", {}, 1764633600);
  const fs::path profile = dir / "perf/A";

  const auto fails = [](const CliResult& result, const std::string& message) {
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(message) != std::string::npos);
  };
  fails(run({"baseline", "save", profile.string(), "--ref", "main"}),
        "main: not a valid ref name for a baseline: write the full name under refs/");
  fails(run({"baseline", "save", profile.string(), "--ref", "refs/neuron-gate/baselines/a..b"}),
        "refs/neuron-gate/baselines/a..b: not a valid ref name");
  fails(run({"baseline", "save", profile.string(), "--ref", "refs/heads/main"}),
        "refs/heads/main: is a branch, tag or remote-tracking ref, which a baseline chain must never move");
  fails(run({"baseline", "save", profile.string(), "--ref", "refs/tags/v1"}), "refs/tags/v1: is a branch, tag");
  // A ref of its own whose tip only looks like a baseline commit (its message) but holds other files.
  const std::string lookalike =
      repo.commit("refs/neuron-gate/baselines/lookalike", "neuron-gate baseline for x", {c1}, 1764634000);
  fails(run({"baseline", "save", profile.string(), "--ref", "refs/neuron-gate/baselines/lookalike"}),
        "refs/neuron-gate/baselines/lookalike: exists and its tip " + lookalike + " holds \"");
  fails(save(profile, {"--commit", "nosuchbranch"}), "no commit \"nosuchbranch\" in the git repository");
  const fs::path outside = dir.parent_path() / "outside";
  fs::create_directories(outside);
  fs::copy(example("A"), outside / "A", fs::copy_options::recursive);
  fails(save(outside / "A"), "not in a git repository: none at or above " + (outside / "A").string());
  fails(run({"baseline", "save"}), "PROFILE is required");

  repo.write("README", "changed\n");
  fails(save(profile),
        "the work tree has uncommitted changes to tracked files, so the profile may not be of HEAD " + c1);
  CHECK(save(profile, {"--allow-dirty"}).exit_code == 0);

  const auto compare = [&](const std::string& base, std::vector<std::string> extra, const fs::path& in = {}) {
    std::vector<std::string> args{"compare", base,      example("A2"), "--repo", (in.empty() ? dir : in).string(),
                                  "--quiet", "--no-git"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  fails(compare("git:refs/neuron-gate/baselines/other:@merge-base", {}),
        "git:refs/neuron-gate/baselines/other:@merge-base: no baseline ref \"refs/neuron-gate/baselines/other\"");
  fails(compare(std::string("git:") + k_ref + ":@merge-base", {"--head-commit", "nosuch"}), "no commit \"nosuch\"");
  fails(compare(std::string("git:") + k_ref + ":@merge-base", {}, outside),
        "not in a git repository: none at or above " + outside.string());
  // A history that shares nothing with the stored commits.
  const std::string lone = repo.commit("refs/heads/lone", "unrelated root", {}, 1764634100);
  fails(compare(std::string("git:") + k_ref + ":@merge-base", {"--head-commit", lone}),
        "no stored baseline in \"refs/neuron-gate/baselines/main\" (1 digests) for " + lone +
            " or any of its ancestors (1 commits looked at");
}

TEST_SUITE_END();
