// `git:REF:PATH` profiles (issue 20 item 2): the bundled examples committed to a scratch repository
// built with libgit2 give, read from the object database, the reports the folders give; a bad ref, a
// bad path and a folder outside any repository are input errors (exit 2) naming them.
#include "cli_helpers.hpp"
#include "git_test_repo.hpp"
#include "util/input_limits.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_SUITE_BEGIN("cli::git");

namespace {

// The trace files of an example (relative paths, sorted): named by the capture, so found, not written here.
std::vector<std::string> example_traces(const std::string& variant) {
  std::vector<std::string> traces;
  for (const auto& entry : fs::recursive_directory_iterator(example(variant))) {
    if (entry.path().string().ends_with(".pt.trace.json")) {
      traces.push_back(fs::relative(entry.path(), example(variant)).string());
    }
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// A repository with perf/A, perf/Areg (the examples as they are) and perf/Agz (A with every file gzipped).
struct ExampleRepo {
  fs::path dir;
  GitTestRepo repo;
  std::string commit;
  explicit ExampleRepo(const std::string& name) : dir(scratch(name) / "repo"), repo(dir) {
    repo.copy_folder(example("A"), "perf/A");
    repo.copy_folder(example("Areg"), "perf/Areg");
    repo.copy_folder(example("A"), "perf/Agz", true);
    repo.write("README", "profiles\n");
    commit = repo.commit("HEAD", "profiles", {});
    // The work tree no longer holds them: nothing may be read from a checkout.
    fs::remove_all(dir / "perf");
  }
};

struct GitCompared {
  CliResult result;
  std::string markdown;
  json report;
};

GitCompared compare(const std::string& base, const std::string& head, const fs::path& out,
                    std::vector<std::string> extra = {}) {
  fs::create_directories(out);
  std::vector<std::string> args{"compare",    base,
                                head,         "--no-git",
                                "--today",    "2026-12-01",
                                "--markdown", (out / "r.md").string(),
                                "--json",     (out / "r.json").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  GitCompared compared;
  compared.result = run(args);
  if (fs::exists(out / "r.json")) {
    compared.markdown = read_text((out / "r.md").string());
    compared.report = json::parse(read_text((out / "r.json").string()));
  }
  return compared;
}

}  // namespace

TEST_CASE("git:REF:PATH sides give the report the folders give (A vs Areg: regression)") {
  const ExampleRepo example_repo("git-same");
  const fs::path out = example_repo.dir.parent_path();
  const GitCompared from_git =
      compare("git:HEAD:perf/A", "git:HEAD:perf/Areg", out / "git", {"--repo", example_repo.dir.string()});
  const GitCompared from_folders = compare(example("A"), example("Areg"), out / "dir");
  INFO(from_git.result.err);
  REQUIRE(from_git.result.exit_code == 1);
  REQUIRE(from_folders.result.exit_code == 1);
  CHECK(from_git.report["verdict"] == from_folders.report["verdict"]);
  CHECK(from_git.report["metrics"] == from_folders.report["metrics"]);  // verdicts, p-values, CIs, medians
  CHECK(from_git.report["metrics"].size() > 5);
  // Everything but the specs: the same files (relative paths, sizes, SHA-256), sections and numbers.
  const auto normal = [](std::string text, const std::string& base, const std::string& head) {
    return replaced(replaced(text, head, "HEAD-SPEC"), base, "BASE-SPEC");
  };
  CHECK(normal(from_git.markdown, "git:HEAD:perf/A", "git:HEAD:perf/Areg") ==
        normal(from_folders.markdown, example("A"), example("Areg")));
  CHECK(normal(from_git.report.dump(1), "git:HEAD:perf/A", "git:HEAD:perf/Areg") ==
        normal(from_folders.report.dump(1), example("A"), example("Areg")));
  CHECK(from_git.markdown.find("git:HEAD:perf/A") != std::string::npos);
}

TEST_CASE("git: gzipped blobs, a branch name and a commit id as REF, and the current directory's repository") {
  const ExampleRepo example_repo("git-gz");
  const fs::path out = example_repo.dir.parent_path();
  const GitCompared from_folders = compare(example("A"), example("Areg"), out / "dir");
  const GitCompared gz = compare("git:main:perf/Agz/", "git:" + example_repo.commit + ":perf/Areg", out / "gz",
                                 {"--repo", example_repo.dir.string()});
  INFO(gz.result.err);
  REQUIRE(gz.result.exit_code == 1);
  CHECK(gz.report["verdict"] == from_folders.report["verdict"]);
  CHECK(gz.report["metrics"] == from_folders.report["metrics"]);
  std::size_t gzipped = 0;
  for (const json& file : gz.report["provenance"]["files"]) {
    gzipped += file["side"] == "base" && file["path"].get<std::string>().ends_with(".pt.trace.json.gz")
                   ? std::size_t{1}
                   : std::size_t{0};
  }
  CHECK(gzipped == example_traces("A").size());

  // No --repo: the repository containing the current directory (a folder inside its work tree).
  fs::create_directories(example_repo.dir / "sub");
  const fs::path before = fs::current_path();
  fs::current_path(example_repo.dir / "sub");
  const GitCompared found = compare("git:HEAD:perf/A", "git:HEAD:perf/Areg", out / "cwd");
  fs::current_path(before);
  INFO(found.result.err);
  CHECK(found.result.exit_code == 1);
  CHECK(found.report["metrics"] == from_folders.report["metrics"]);
}

TEST_CASE("inspect git:REF:PATH lists what inspect of the folder lists — a single blob is a one-file profile") {
  const ExampleRepo example_repo("git-inspect");
  const CliResult git = run({"inspect", "git:HEAD:perf/A", "--repo", example_repo.dir.string()});
  const CliResult folder = run({"inspect", example("A")});
  INFO(git.err);
  REQUIRE(git.exit_code == 0);
  REQUIRE(folder.exit_code == 0);
  CHECK(replaced(git.out, "git:HEAD:perf/A", "SPEC") == replaced(folder.out, example("A"), "SPEC"));

  const CliResult one =
      run({"inspect", "git:HEAD:perf/Agz/" + example_traces("A").front() + ".gz", "--repo", example_repo.dir.string()});
  INFO(one.err);
  CHECK(one.exit_code == 0);
  CHECK(one.out.find(fs::path(example_traces("A").front()).filename().string() + ".gz") != std::string::npos);
}

TEST_CASE("a git: side with run manifests (two operating points) reads them from the blobs") {
  const fs::path dir = scratch("git-points") / "repo";
  GitTestRepo repo(dir);
  for (const std::string point : {"bs4", "bs8"}) {
    repo.copy_folder(example("A"), "perf/P/" + point);
    repo.write("perf/P/" + point + "/neuron-gate.json",
               "{\"schema\": \"neuron-gate.manifest/1\", \"operating_point\": \"" + point + "\"}");
  }
  repo.commit("HEAD", "two points", {});
  const CliResult git = run({"compare", "git:HEAD:perf/P", (dir / "perf/P").string(), "--repo", dir.string(),
                             "--no-git", "--today", "2026-12-01"});
  INFO(git.err);
  CHECK(git.exit_code == 0);
  CHECK(git.out.find("bs8") != std::string::npos);
  fs::remove_all(dir / "perf");
  const CliResult gone = run(
      {"compare", "git:HEAD:perf/P", "git:HEAD:perf/P", "--repo", dir.string(), "--no-git", "--today", "2026-12-01"});
  INFO(gone.err);
  CHECK(gone.exit_code == 0);
  CHECK(gone.out.find("bs4") != std::string::npos);
}

TEST_CASE("a bad ref, a bad path and a folder outside any repository exit 2 naming them") {
  const ExampleRepo example_repo("git-errors");
  const std::string repo = example_repo.dir.string();
  const CliResult bad_ref = run({"compare", "git:no-such-branch:perf/A", example("Areg"), "--repo", repo});
  CHECK(bad_ref.exit_code == 2);
  CHECK(bad_ref.err.find("git:no-such-branch:perf/A: no ref or commit \"no-such-branch\" in the git repository " +
                         repo) != std::string::npos);

  const CliResult bad_path = run({"compare", example("A"), "git:HEAD:perf/nowhere", "--repo", repo});
  CHECK(bad_path.exit_code == 2);
  CHECK(bad_path.err.find("git:HEAD:perf/nowhere: no \"perf/nowhere\" in HEAD (commit " +
                          example_repo.commit.substr(0, 12) + ") of the git repository " + repo) != std::string::npos);

  const fs::path outside = example_repo.dir.parent_path() / "not-a-repository";
  fs::create_directories(outside);
  const CliResult no_repo = run({"inspect", "git:HEAD:perf/A", "--repo", outside.string()});
  CHECK(no_repo.exit_code == 2);
  CHECK(no_repo.err.find("git:HEAD:perf/A: not in a git repository: none at or above " + outside.string()) !=
        std::string::npos);

  const fs::path before = fs::current_path();
  fs::current_path(outside);
  const CliResult no_cwd_repo = run({"inspect", "git:HEAD:perf/A"});
  fs::current_path(before);
  CHECK(no_cwd_repo.exit_code == 2);
  CHECK(no_cwd_repo.err.find("not in a git repository: none contains the current directory " + outside.string() +
                             " (name one with --repo DIR)") != std::string::npos);

  const CliResult malformed = run({"inspect", "git:HEAD", "--repo", repo});
  CHECK(malformed.exit_code == 2);
  CHECK(malformed.err.find("git:HEAD: not a git profile: expected git:REF:PATH") != std::string::npos);
  const CliResult dotdot = run({"inspect", "git:HEAD:perf/../perf/A", "--repo", repo});
  CHECK(dotdot.exit_code == 2);
  CHECK(dotdot.err.find("bad path \"perf/../perf/A\"") != std::string::npos);
}

TEST_CASE("errors inside a git: profile name the file as git:REF:PATH/inner/file, with JSON byte offsets and limits") {
  const fs::path dir = scratch("git-bad-file") / "repo";
  GitTestRepo repo(dir);
  repo.copy_folder(example("A"), "perf/A");
  repo.write("perf/A/e2e.json", "{\"schema\": \"neuron-gate.e2e/1\", \"metrics\": [}");
  repo.commit("HEAD", "broken e2e", {});
  const CliResult broken = run({"inspect", "git:HEAD:perf/A", "--repo", dir.string()});
  CHECK(broken.exit_code == 2);
  CHECK(broken.err.find("git:HEAD:perf/A/e2e.json:byte 44: not valid JSON") != std::string::npos);
  // The same bytes on disk (the work tree still holds them) give the same message but for the path.
  const CliResult on_disk = run({"inspect", (dir / "perf/A").string()});
  CHECK(on_disk.exit_code == 2);
  CHECK(replaced(broken.err, "git:HEAD:perf/A", "P") == replaced(on_disk.err, (dir / "perf/A").string(), "P"));

  ::setenv("NEURON_GATE_MAX_FILE_BYTES", "1000", 1);
  neuron_gate::reload_input_limits();
  const CliResult limited = run({"inspect", "git:HEAD:perf/A/" + example_traces("A").front(), "--repo", dir.string()});
  ::unsetenv("NEURON_GATE_MAX_FILE_BYTES");
  neuron_gate::reload_input_limits();
  CHECK(limited.exit_code == 2);
  CHECK(limited.err.find("git:HEAD:perf/A/" + example_traces("A").front() +
                         ":byte 1000: larger than the input limit of 1000 bytes") != std::string::npos);
}

namespace {

// The open hypotheses of a JSON report, joined.
std::string hypotheses(const json& report) {
  std::string all;
  for (const json& line : report["open_hypotheses"]) {
    all += line.dump() + "\n";
  }
  return all;
}

const json& side_commit(const json& report, const std::string& side) {
  for (const json& commit : report["provenance"]["git_commits"]) {
    if (commit["side"] == side) {
      return commit;
    }
  }
  FAIL("no git commit of " << side);
  static const json none;
  return none;
}

}  // namespace

TEST_CASE("base not an ancestor of head: an open hypothesis naming the merge base, and provenance per side") {
  const fs::path dir = scratch("git-history") / "repo";
  GitTestRepo repo(dir);
  repo.copy_folder(example("A"), "perf/A");
  repo.copy_folder(example("A2"), "perf/A2");
  repo.write("README", "one\n");
  // root <- feature (head's change); root <- main2 (main moved on after feature branched).
  const std::string root = repo.commit("HEAD", "profiles", {}, 1764633600);
  const std::string feature = repo.commit("refs/heads/feature", "head's change", {root}, 1764633700);
  const std::string main2 = repo.commit("refs/heads/main", "main moves on", {root}, 1764633800);
  const std::string hostile = "refs/heads/x/<b>&`|</b>";
  repo.commit(hostile, "hostile branch", {root}, 1764633900);
  const fs::path out = dir.parent_path();
  const std::string repo_arg = dir.string();

  const GitCompared diverged =
      compare("git:main:perf/A", "git:feature:perf/A2", out / "diverged", {"--repo", repo_arg});
  INFO(diverged.result.err);
  REQUIRE(diverged.result.exit_code == 0);
  // compare() passes --no-git: the git state is left out, as before.
  CHECK(diverged.report["provenance"]["git_commits"].empty());
  CHECK(hypotheses(diverged.report).find("not an ancestor") == std::string::npos);

  const auto with_git = [&](const std::string& base, const std::string& head, const std::string& name) {
    fs::create_directories(out / name);
    GitCompared compared;
    compared.result = run({"compare", base, head, "--repo", repo_arg, "--today", "2026-12-01", "--json",
                           (out / name / "r.json").string(), "--markdown", (out / name / "r.md").string(), "--html",
                           (out / name / "r.html").string()});
    if (fs::exists(out / name / "r.json")) {
      compared.report = json::parse(read_text((out / name / "r.json").string()));
      compared.markdown = read_text((out / name / "r.md").string());
    }
    return compared;
  };
  const GitCompared wrong = with_git("git:main:perf/A", "git:feature:perf/A2", "wrong");
  INFO(wrong.result.err);
  REQUIRE(wrong.result.exit_code == 0);
  const std::string text = hypotheses(wrong.report);
  CHECK(text.find("Base is not an ancestor of head: base profiled commit `" + main2.substr(0, 12) + "`, head `" +
                  feature.substr(0, 12) + "`; their merge base is `" + root.substr(0, 12) +
                  "`, and base holds 1 commit head does not (head holds 1 commit base does not)") != std::string::npos);
  CHECK(wrong.markdown.find("merge base is `" + root.substr(0, 12) + "`") != std::string::npos);
  const json& base_commit = side_commit(wrong.report, "base");
  CHECK(base_commit["commit"] == main2);
  CHECK(base_commit["branch"] == "main");
  CHECK(base_commit["object_database"] == true);
  CHECK(base_commit["dirty"] == false);
  CHECK(side_commit(wrong.report, "head")["branch"] == "feature");
  CHECK(side_commit(wrong.report, "head")["commit"] == feature);

  // Base at the merge base itself (an ancestor): no warning.
  const GitCompared right = with_git("git:" + root + ":perf/A", "git:feature:perf/A2", "right");
  REQUIRE(right.result.exit_code == 0);
  CHECK(hypotheses(right.report).find("not an ancestor") == std::string::npos);
  CHECK(side_commit(right.report, "base")["branch"] == nullptr);  // a commit id is no branch

  // Folders on disk in the work tree (branch main, HEAD main2; copied, not committed: untracked files do not
  // make a tree dirty). Base: a run manifest recording root, which differs from the repository's commit; the
  // manifest's commit is what base profiled, and root is an ancestor of feature: no warning.
  repo.copy_folder(example("A"), "disk/A");
  repo.write("disk/A/neuron-gate.json", "{\"schema\": \"neuron-gate.manifest/1\", \"commit\": \"" + root + "\"}");
  const GitCompared manifest = with_git((dir / "disk/A").string(), "git:feature:perf/A2", "manifest");
  INFO(manifest.result.err);
  REQUIRE(manifest.result.exit_code == 0);
  CHECK(hypotheses(manifest.report).find("not an ancestor") == std::string::npos);
  const json& disk = side_commit(manifest.report, "base");
  CHECK(disk["manifest_commit"] == root);
  CHECK(disk["commit"] == main2);  // HEAD of the work tree (main)
  CHECK(disk["branch"] == "main");
  CHECK(disk["dirty"] == false);
  CHECK(disk["object_database"] == false);
  CHECK(disk["repository"] == dir.string());
  CHECK(manifest.markdown.find("- base git commit `" + main2.substr(0, 12) +
                               "` main moves on, branch `main`, repository `" + dir.string() +
                               "`; run manifest commit `" + root + "`") != std::string::npos);
  // The same folder without the manifest's commit: the repository's commit main2 is what base profiled.
  repo.write("disk/A/neuron-gate.json", "{\"schema\": \"neuron-gate.manifest/1\"}");
  const GitCompared no_manifest = with_git((dir / "disk/A").string(), "git:feature:perf/A2", "no-manifest");
  REQUIRE(no_manifest.result.exit_code == 0);
  CHECK(hypotheses(no_manifest.report)
            .find("base profiled commit `" + main2.substr(0, 12) + "`, head `" + feature.substr(0, 12) +
                  "`; their merge base is `" + root.substr(0, 12)) != std::string::npos);
  CHECK(side_commit(no_manifest.report, "base")["manifest_commit"] == nullptr);

  // Head: a folder in a work tree with a changed tracked file (dirty); base: clean, from the object database.
  repo.copy_folder(example("A2"), "disk/A2");
  repo.write("README", "changed\n");
  const GitCompared dirty = with_git("git:main:perf/A", (dir / "disk/A2").string(), "dirty");
  INFO(dirty.result.err);
  REQUIRE(dirty.result.exit_code == 0);
  CHECK(side_commit(dirty.report, "base")["dirty"] == false);
  CHECK(side_commit(dirty.report, "head")["dirty"] == true);
  CHECK(side_commit(dirty.report, "head")["commit"] == main2);
  CHECK(hypotheses(dirty.report).find("not an ancestor") == std::string::npos);  // the same commit
  CHECK(dirty.markdown.find("- head git commit `" + main2.substr(0, 12) +
                            "` main moves on, branch `main` (work tree has uncommitted changes)") != std::string::npos);
}

TEST_CASE("branch names and commit messages are escaped in every format") {
  const fs::path dir = scratch("git-hostile") / "repo";
  GitTestRepo repo(dir);
  repo.copy_folder(example("A"), "perf/A");
  repo.copy_folder(example("A2"), "perf/A2");
  const std::string root = repo.commit("HEAD", "profiles", {});
  const std::string message = "<script>x</script> [l](http://e.com) \u202e @team ::error::no\n\nbody";
  repo.commit("refs/heads/x/<b>&`|</b>", message, {root}, 1764633900);
  const fs::path out = dir.parent_path() / "out";
  fs::create_directories(out);
  const CliResult result = run({"compare", "git:x/<b>&`|</b>:perf/A", "git:main:perf/A2", "--repo", dir.string(),
                                "--today", "2026-12-01", "--json", (out / "r.json").string(), "--markdown",
                                (out / "r.md").string(), "--html", (out / "r.html").string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const json report = json::parse(read_text((out / "r.json").string()));
  const json& base = side_commit(report, "base");
  CHECK(base["branch"] == "x/<b>&`|</b>");
  CHECK(base["summary"] == "<script>x</script> [l](http://e.com) \u202e @team ::error::no");
  // Base (x, a child of root) is not an ancestor of head (root): the warning names root as the merge base.
  CHECK(hypotheses(report).find("their merge base is `" + root.substr(0, 12) +
                                "`, and base holds 1 commit head does not "
                                "(head holds 0 commits base does not)") != std::string::npos);
  const std::string html = read_text((out / "r.html").string());
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(html.find("<script>") == std::string::npos);
  CHECK(html.find("branch <code>x/&lt;b&gt;&amp;`|&lt;/b&gt;</code>") != std::string::npos);
  const std::string markdown = read_text((out / "r.md").string());
  // In Markdown the branch is a code span (shown literally); the message is text, its markup escaped.
  CHECK(markdown.find("branch ``x/<b>&`|</b>``") != std::string::npos);
  CHECK(markdown.find("<script>") == std::string::npos);
  CHECK(
      markdown.find(
          "&lt;script&gt;x&lt;/script&gt; \\[l\\](http:/\u2060/e.com) \ufffd @\u2060team ::\u2060error::no, branch") !=
      std::string::npos);
  CHECK(markdown.find("\u202e") == std::string::npos);
  CHECK(markdown.find("\n::error") == std::string::npos);
}

TEST_CASE("a run manifest's commit must be a commit id") {
  const fs::path dir = scratch("git-manifest-commit");
  fs::copy(example("A"), dir / "A", fs::copy_options::recursive);
  std::ofstream(dir / "A" / "neuron-gate.json") << R"({"schema": "neuron-gate.manifest/1", "commit": "main"})";
  const CliResult bad = run({"inspect", (dir / "A").string()});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("\"commit\" must be a git commit id (7 to 64 hex digits), not \"main\"") != std::string::npos);
}

TEST_SUITE_END();
