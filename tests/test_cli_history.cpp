// `neuron-gate history` (issue 20 item 5) on a scratch repository built with libgit2: twelve commits on
// main, ten of them with a stored baseline under refs/neuron-gate/baselines/main in the layout `baseline
// save` writes (docs/user-guide.md "Stored baselines": one `<sha>.ngdigest` blob per profiled commit in the ref's tip
// tree). The baselines are the bundled examples A and A2 (the same code, two processes) alternating, with
// every latency sample 3% higher from the sixth baseline on: history marks that commit, and only it.
#include "cli_helpers.hpp"
#include "formats/discover.hpp"
#include "git_test_repo.hpp"
#include "profile/read_side.hpp"
#include "store/baseline_history.hpp"
#include "store/digest.hpp"

#include <doctest/doctest.h>
#include <git2.h>

#include <filesystem>
#include <fstream>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;
namespace ng = neuron_gate;

TEST_SUITE_BEGIN("cli::history");

namespace {

const ng::SideSamples& side_of(const std::string& variant) {
  static const ng::SideSamples a = ng::read_side("base", ng::discover_profile(example("A")), {});
  static const ng::SideSamples a2 = ng::read_side("base", ng::discover_profile(example("A2")), {});
  return variant == "A" ? a : a2;
}

// Stores `bytes` as `<commit>.ngdigest` in a new commit on `ref` (parent: the ref's tip, if any), as
// docs/user-guide.md "Stored baselines" lays it out.
void store_baseline(const fs::path& dir, const std::string& ref, const std::string& commit, const std::string& bytes) {
  git_repository* repo = nullptr;
  REQUIRE(git_repository_open(&repo, dir.string().c_str()) == 0);
  git_commit* parent = nullptr;
  git_tree* parent_tree = nullptr;
  git_reference* existing = nullptr;
  if (git_reference_lookup(&existing, repo, ref.c_str()) == 0) {
    REQUIRE(git_commit_lookup(&parent, repo, git_reference_target(existing)) == 0);
    REQUIRE(git_commit_tree(&parent_tree, parent) == 0);
    git_reference_free(existing);
  }
  git_oid blob;
  REQUIRE(git_blob_create_from_buffer(&blob, repo, bytes.data(), bytes.size()) == 0);
  git_treebuilder* builder = nullptr;
  REQUIRE(git_treebuilder_new(&builder, repo, parent_tree) == 0);
  REQUIRE(git_treebuilder_insert(nullptr, builder, (commit + ".ngdigest").c_str(), &blob, GIT_FILEMODE_BLOB) == 0);
  git_oid tree_id;
  REQUIRE(git_treebuilder_write(&tree_id, builder) == 0);
  git_treebuilder_free(builder);
  git_tree* tree = nullptr;
  REQUIRE(git_tree_lookup(&tree, repo, &tree_id) == 0);
  git_signature* signature = nullptr;
  REQUIRE(git_signature_new(&signature, "neuron-gate", "neuron-gate@localhost", 1764633600, 0) == 0);
  const git_commit* parents[] = {parent};
  git_oid id;
  const std::string message = "neuron-gate baseline for " + commit + "\n";
  REQUIRE(git_commit_create(&id, repo, ref.c_str(), signature, signature, nullptr, message.c_str(), tree,
                            parent != nullptr ? 1 : 0, parents) == 0);
  git_signature_free(signature);
  git_tree_free(tree);
  git_tree_free(parent_tree);
  git_commit_free(parent);
  git_repository_free(repo);
}

// Twelve commits on main; baselines for commits 1..10 (0 and 11 have none); latency x `factor` from the
// sixth baseline (commit 6) on. Subjects carry Markdown and HTML, as a pull request's title may.
struct HistoryRepo {
  fs::path dir;
  GitTestRepo repo;
  std::vector<std::string> commits;
  HistoryRepo(const std::string& name, double factor) : dir(scratch(name) / "repo"), repo(dir) {
    for (int i = 0; i < 12; ++i) {
      repo.write("code.txt", "version " + std::to_string(i) + "\n");
      const std::string subject =
          i == 6 ? "speed | <b>up</b> the `norm` ![x](http://e.invalid/x.png)" : "change " + std::to_string(i);
      commits.push_back(repo.commit("HEAD", subject,
                                    commits.empty() ? std::vector<std::string>{} : std::vector{commits.back()},
                                    1764633600 + i * 60));
    }
    for (int i = 1; i <= 10; ++i) {
      ng::SideSamples side = side_of(i % 2 == 1 ? "A" : "A2");
      if (i >= 6) {
        for (auto& metric : side.end_to_end) {
          for (double& sample : metric.samples) {
            sample *= metric.name == "latency" ? factor : 1.0;
          }
        }
      }
      store_baseline(dir, "refs/neuron-gate/baselines/main", commits[static_cast<std::size_t>(i)],
                     ng::digest_bytes(side));
    }
  }
};

}  // namespace

TEST_CASE("history marks a 3% latency step at the sixth of ten stored baselines, and nothing else") {
  HistoryRepo history("history-step", 1.03);
  const fs::path json_path = history.dir.parent_path() / "history.json";
  const CliResult result =
      run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string(), "--json", json_path.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const json report = json::parse(read_text(json_path.string()));
  CHECK(report["schema"] == "neuron-gate.history/1");
  REQUIRE(report["baselines"].size() == 10);
  CHECK(report["baselines"][0]["commit"] == history.commits[10]);
  CHECK(report["baselines"][0]["position"] == 1);  // commit 11, the tip, has no baseline
  CHECK(report["baselines"][9]["commit"] == history.commits[1]);
  REQUIRE(report["shifts"].size() == 1);
  const json& shift = report["shifts"][0];
  CHECK(shift["metric"] == "latency");
  CHECK(shift["commit"] == history.commits[6]);
  CHECK(shift["change"].get<double>() == doctest::Approx(0.03).epsilon(0.01));
  CHECK(shift["worse"] == true);
  CHECK(shift["p_value"].get<double>() == doctest::Approx(2.0 / 252.0));
  // The Markdown: the shift in words and the ▲ at commit 6's row; the subject's markup is text.
  CHECK(result.out.find("latency +3.0% (worse) from `" + history.commits[6].substr(0, 10) + "`") != std::string::npos);
  CHECK(result.out.find("▲ +3.0%") != std::string::npos);
  CHECK(result.out.find("<b>") == std::string::npos);
  CHECK(result.out.find("![x]") == std::string::npos);
  CHECK(result.out.find("speed \\| ") != std::string::npos);
}

TEST_CASE("history of baselines of the same code marks no shift, and --along walks another revision") {
  HistoryRepo history("history-flat", 1.0);
  const CliResult result = run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("**No shift** in the deciding metrics.") != std::string::npos);
  const CliResult older = run(
      {"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string(), "--along", history.commits[4]});
  REQUIRE(older.exit_code == 0);
  CHECK(older.out.find("4 stored baselines over the last 4 first-parent commits") != std::string::npos);
  // Two baselines: no metric can be tested, and the report says so rather than "Holm over 0 metrics".
  const CliResult two =
      run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string(), "--limit", "2"});
  REQUIRE(two.exit_code == 0);
  CHECK(two.out.find("2 stored baselines over the last 3 first-parent commits. No deciding metric has the 3 or more "
                     "baselines with differing medians that Pettitt's test needs, so no shift can be marked.") !=
        std::string::npos);
  CHECK(two.out.find("Holm over 0") == std::string::npos);
  CHECK(two.out.find("No shift") == std::string::npos);
}

TEST_CASE("history: no repository, a ref or a revision that does not resolve are input errors naming them") {
  HistoryRepo history("history-errors", 1.0);
  const fs::path outside = scratch("history-outside");
  const CliResult no_repo = run({"history", "refs/neuron-gate/baselines/main", "--repo", outside.string()});
  CHECK(no_repo.exit_code == 2);
  CHECK(no_repo.err.find("not in a git repository") != std::string::npos);
  const CliResult bad_ref = run({"history", "refs/neuron-gate/baselines/nope", "--repo", history.dir.string()});
  CHECK(bad_ref.exit_code == 2);
  CHECK(bad_ref.err.find("refs/neuron-gate/baselines/nope") != std::string::npos);
  const CliResult bad_along =
      run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string(), "--along", "no-such-branch"});
  CHECK(bad_along.exit_code == 2);
  CHECK(bad_along.err.find("no-such-branch") != std::string::npos);
  const CliResult bad_shift = run({"history", "refs/neuron-gate/baselines/main", "--min-shift", "2"});
  CHECK(bad_shift.exit_code == 2);
}

namespace {

// The loose file of object `hex` in the repository at `dir`.
fs::path loose_object(const fs::path& dir, const std::string& hex) {
  return dir / ".git" / "objects" / hex.substr(0, 2) / hex.substr(2);
}

}  // namespace

TEST_CASE("history: a shallow clone's boundary ends the walk and says so, a missing parent elsewhere is an error") {
  HistoryRepo history("history-shallow", 1.0);
  // As `git clone --depth 7` leaves it: commit 5 is the boundary, commit 4 is not in the repository.
  fs::remove(loose_object(history.dir, history.commits[4]));
  const CliResult missing = run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("the parent " + history.commits[4] + " of commit " + history.commits[5] +
                         " is missing from the repository (not a shallow clone)") != std::string::npos);
  std::ofstream(history.dir / ".git" / "shallow") << history.commits[5] << "\n";
  const fs::path json_path = history.dir.parent_path() / "shallow.json";
  const CliResult shallow =
      run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string(), "--json", json_path.string()});
  INFO(shallow.err);
  REQUIRE(shallow.exit_code == 0);
  CHECK(shallow.out.find("6 stored baselines over the last 7 first-parent commits") != std::string::npos);
  CHECK(shallow.out.find("The walk ended at `" + history.commits[5].substr(0, 12) +
                         "`, the boundary of a shallow clone: older baselines were not looked at") !=
        std::string::npos);
  const json report = json::parse(read_text(json_path.string()));
  CHECK(report["walk"] == json({{"commits", 7}, {"end", "shallow clone"}, {"last_commit", history.commits[5]}}));
  CHECK(report["baselines"].back()["commit"] == history.commits[5]);
}

TEST_CASE("history: the commit limit ends the walk and is said, a truncated loose object is an error, not a hang") {
  HistoryRepo history("history-limits", 1.0);
  const ng::StoredBaselineWalk walk =
      ng::stored_baselines_along(history.dir.string(), "refs/neuron-gate/baselines/main", "HEAD", 100, 4);
  CHECK(walk.commits == 4);
  CHECK(walk.end == ng::HistoryWalkEnd::commit_limit);
  CHECK(walk.last_commit == history.commits[8]);
  REQUIRE(walk.entries.size() == 3);
  CHECK(walk.entries.back().commit == history.commits[8]);
  const ng::StoredBaselineWalk all =
      ng::stored_baselines_along(history.dir.string(), "refs/neuron-gate/baselines/main", "HEAD", 100);
  CHECK(all.end == ng::HistoryWalkEnd::root);
  CHECK(all.commits == 12);
  CHECK(all.entries.size() == 10);
  // libgit2 1.5 loops forever on a loose object whose zlib stream is cut short (libgit2 issue 7342): the
  // digest blob of the newest baseline, cut to 100 bytes.
  const std::string blob = all.entries.front().blob.oid;
  const fs::path file = loose_object(history.dir, blob);
  const std::string bytes = read_text(file.string());
  fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, 100);
  const CliResult cut = run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string()});
  CHECK(cut.exit_code == 2);
  CHECK(cut.err.find("git object " + blob + " is corrupt: its loose file ends before its zlib stream does") !=
        std::string::npos);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << "not zlib at all";
  const CliResult garbage = run({"history", "refs/neuron-gate/baselines/main", "--repo", history.dir.string()});
  INFO(garbage.err);
  CHECK(garbage.exit_code == 2);
  CHECK(garbage.err.find(blob) != std::string::npos);  // libgit2's own header read refuses it first
}
