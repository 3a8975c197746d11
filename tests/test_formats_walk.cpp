// Tests for the one directory walk (input/walk) and its symlink policy (issue 22 item 8): links inside
// followed and each file listed once, loops detected, outside links followed but named, `/` and pseudo-
// filesystems never walked, special files listed and never opened, invalid UTF-8 names replaced, the walk
// bounded. Every fixture is made by the test in a scratch folder.
#include "formats/discover.hpp"
#include "formats/neuron_artifacts.hpp"
#include "input/walk.hpp"

#include "test_files.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ng = neuron_gate;
namespace fs = std::filesystem;

using neuron_gate::testing::scratch;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> relative_paths(const ng::WalkResult& walk, ng::WalkEntryKind kind) {
  std::vector<std::string> paths;
  for (const ng::WalkEntry& entry : walk.entries) {
    if (entry.kind == kind) {
      paths.push_back(entry.relative_path);
    }
  }
  return paths;
}

const ng::WalkEntry* entry_named(const ng::WalkResult& walk, const std::string& relative) {
  const auto it = std::find_if(walk.entries.begin(), walk.entries.end(),
                               [&](const ng::WalkEntry& e) { return e.relative_path == relative; });
  return it == walk.entries.end() ? nullptr : &*it;
}

}  // namespace

TEST_SUITE_BEGIN("walk");

TEST_CASE("symlink loops end the walk cleanly: no filesystem error, each file once") {
  const fs::path root = scratch("loops");
  write(root / "a" / "trace.json", "{}");
  fs::create_directory_symlink(".", root / "self");         // a loop to the root
  fs::create_directory_symlink("../a", root / "a" / "up");  // a loop inside a
  fs::create_symlink("knot", root / "knot");                // a link to itself (ELOOP)
  const ng::WalkResult walk = ng::walk_profile(root.string());
  CHECK(relative_paths(walk, ng::WalkEntryKind::file) == std::vector<std::string>{"a/trace.json"});
  CHECK(relative_paths(walk, ng::WalkEntryKind::skipped) == std::vector<std::string>{"a/up", "knot", "self"});
  CHECK(entry_named(walk, "knot")->skipped_reason == "a symbolic link loop: not followed");
  CHECK(entry_named(walk, "self")->skipped_reason.find("a link to the folder ., already listed") == 0);
  // Discovery lists them as ignored with the reason, and never throws a filesystem error.
  const ng::ProfileInventory inventory = ng::discover_profile(root.string());
  CHECK(inventory.files.size() == 4);
  fs::remove_all(root);
}

TEST_CASE("a link inside the profile is followed — a file reached twice is listed once, by its real path") {
  const fs::path root = scratch("inside");
  write(root / "runs" / "run-1" / "trace.json", "{}");
  fs::create_directory_symlink("runs/run-1", root / "latest");
  fs::create_symlink("runs/run-1/trace.json", root / "newest.json");
  write(root / "plain" / "t.json", "{}");
  fs::create_directory_symlink("plain", root / "alias");  // the only way to it besides the real folder
  const ng::WalkResult walk = ng::walk_profile(root.string());
  CHECK(relative_paths(walk, ng::WalkEntryKind::file) ==
        std::vector<std::string>{"plain/t.json", "runs/run-1/trace.json"});
  CHECK(entry_named(walk, "latest")->kind == ng::WalkEntryKind::skipped);
  for (const ng::WalkEntry& entry : walk.entries) {
    CHECK(entry.outside_link.empty());
  }
  fs::remove_all(root);
}

TEST_CASE("a link leading outside is followed and named — `/` and /proc are never walked") {
  const fs::path root = scratch("outside");
  const fs::path elsewhere = scratch("outside-target");
  write(elsewhere / "run" / "trace.json", "{}");
  write(root / "own.json", "{}");
  fs::create_directory_symlink(elsewhere / "run", root / "r");
  fs::create_directory_symlink("/", root / "slash");
  fs::create_directory_symlink(root.parent_path(), root / "parent");  // holds the profile root
  if (fs::exists("/proc/self")) {
    fs::create_directory_symlink("/proc", root / "proc");
  }
  fs::create_symlink("/dev/zero", root / "zero.json");
  const ng::WalkResult walk = ng::walk_profile(root.string());
  const ng::WalkEntry* trace = entry_named(walk, "r/trace.json");
  REQUIRE(trace != nullptr);
  CHECK(trace->kind == ng::WalkEntryKind::file);
  CHECK(trace->outside_link == "r -> " + fs::canonical(elsewhere / "run").string());
  CHECK(entry_named(walk, "slash")->skipped_reason.find("a folder that holds the profile itself: not walked") !=
        std::string::npos);
  CHECK(entry_named(walk, "parent")->kind == ng::WalkEntryKind::skipped);
  if (fs::exists("/proc/self")) {
    CHECK(entry_named(walk, "proc")->skipped_reason == "a pseudo-filesystem (/proc, /sys, ...): not walked");
  }
  CHECK(entry_named(walk, "zero.json")->skipped_reason == "a character device, never read");
  CHECK(walk.entries.size() < 12);  // nothing under / or /proc
  fs::remove_all(root);
  fs::remove_all(elsewhere);
}

TEST_CASE("a FIFO in a profile is listed as ignored and never opened") {
  const fs::path root = scratch("fifo");
  write(root / "e2e.json", R"({"schema": "neuron-gate.e2e/1", "metrics": []})");
  REQUIRE(::mkfifo((root / "pipe.json").c_str(), 0600) == 0);
  const ng::ProfileInventory inventory = ng::discover_profile(root.string());
  REQUIRE(inventory.files.size() == 2);
  CHECK(inventory.files[1].relative_path == "pipe.json");
  CHECK(inventory.files[1].kind == ng::FileKind::ignored);
  CHECK(inventory.files[1].ignored_reason == "a FIFO (named pipe), never read");
  CHECK_FALSE(inventory.files[1].regular);
  fs::remove_all(root);
}

TEST_CASE("a file name with invalid UTF-8 is shown with U+FFFD and counted — the raw name still opens") {
  const fs::path root = scratch("utf8");
  write(root / "ok.json", "{}");
  write(root / std::string("bad\xff.json"), R"({"schema": "neuron-gate.e2e/1", "metrics": []})");
  const ng::ProfileInventory inventory = ng::discover_profile(root.string());
  REQUIRE(inventory.files.size() == 2);
  CHECK(inventory.files[0].relative_path == "bad\xEF\xBF\xBD.json");
  CHECK(inventory.files[0].kind == ng::FileKind::end_to_end);  // read through the raw path
  CHECK(inventory.names_with_invalid_utf8 == 1);
  fs::remove_all(root);
}

TEST_CASE("the walk is bounded: more entries than NEURON_GATE_MAX_WALK_ENTRIES is an input error naming the limit") {
  const fs::path root = scratch("bounded");
  for (int i = 0; i < 20; ++i) {
    write(root / ("f" + std::to_string(i) + ".json"), "{}");
  }
  ::setenv("NEURON_GATE_MAX_WALK_ENTRIES", "10", 1);
  ng::reload_input_limits();
  CHECK_THROWS_WITH_AS(ng::walk_profile(root.string()),
                       doctest::Contains("more than 10 files, folders and links under the profile"), ng::InputError);
  ::unsetenv("NEURON_GATE_MAX_WALK_ENTRIES");
  ng::reload_input_limits();
  CHECK(ng::walk_profile(root.string()).entries.size() == 20);
  fs::remove_all(root);
}

TEST_CASE("discovery and the Neuron artifact check share one inventory: a symlinked rank folder keeps its name") {
  const fs::path root = scratch("rank-link");
  const fs::path elsewhere = scratch("rank-link-target");
  write(elsewhere / "20261130_120000_000" / "neff_1.neff", "x");
  write(elsewhere / "20261130_120000_000" / "1_instid_0_vnc_0.ntff", "y");
  fs::create_directory_symlink(elsewhere, root / "i-0abc_pid_42");
  const ng::ProfileInventory inventory = ng::discover_profile(root.string());
  REQUIRE(inventory.files.size() == 2);
  CHECK(inventory.files[0].relative_path == "i-0abc_pid_42/20261130_120000_000/1_instid_0_vnc_0.ntff");
  const std::vector<ng::ArtifactFile> files = ng::list_artifact_files(root.string());
  CHECK(ng::find_rank_folders(files) == std::vector<ng::RankFolder>{{"i-0abc_pid_42", "i-0abc", 42}});
  fs::remove_all(root);
  fs::remove_all(elsewhere);
}

TEST_SUITE_END();

TEST_CASE("git:REF:PATH specs are taken apart — a malformed one is an input error naming it") {
  using neuron_gate::GitSpec;
  using neuron_gate::parse_git_spec;
  CHECK(neuron_gate::is_git_spec("git:HEAD:perf"));
  CHECK_FALSE(neuron_gate::is_git_spec("./git:HEAD:perf"));
  CHECK(parse_git_spec("git:origin/main:perf/baseline") == GitSpec{"origin/main", "perf/baseline"});
  CHECK(parse_git_spec("git:HEAD~2:./perf/baseline/") == GitSpec{"HEAD~2", "perf/baseline"});
  CHECK(parse_git_spec("git:v1.0:") == GitSpec{"v1.0", ""});
  CHECK(parse_git_spec("git:abc123:.") == GitSpec{"abc123", ""});
  CHECK(parse_git_spec("git:main:a:b") == GitSpec{"main", "a:b"});  // a ref never holds ':', a path may
  for (const char* bad : {"git:HEAD", "git::perf", "git:"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(parse_git_spec(bad), doctest::Contains("not a git profile: expected git:REF:PATH"),
                         neuron_gate::InputError);
  }
  for (const char* bad : {"git:HEAD:perf/../x", "git:HEAD:/perf", "git:HEAD:perf//x", "git:HEAD:perf/./x"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(parse_git_spec(bad), doctest::Contains("bad path"), neuron_gate::InputError);
  }
}
