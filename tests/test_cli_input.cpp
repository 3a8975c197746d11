// Command-line tests for the input kit: files given directly that are not regular files, one JSON error
// wording for rules files (issue 15 items 3, 4; issue 11 item 3).
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace neuron_gate::testing;

TEST_CASE("--rules on a FIFO is an input error naming it, not a hang") {
  const fs::path dir = scratch("rules-fifo");
  const std::string fifo = (dir / "rules.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CliResult result = run({"compare", example("A"), example("A2"), "--rules", fifo, "--quiet", "--no-git"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find(fifo + ": not a regular file: a FIFO") != std::string::npos);
  CHECK(result.err.find("internal error") == std::string::npos);
}

TEST_CASE("a rules file with a syntax error gives the one JSON wording, no json.exception text") {
  const fs::path dir = scratch("rules-syntax");
  std::ofstream(dir / "rules.json") << "{\"alpha\": 0.05,,}";
  const CliResult result =
      run({"compare", example("A"), example("A2"), "--rules", (dir / "rules.json").string(), "--quiet", "--no-git"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find((dir / "rules.json").string() + ":byte 15: not valid JSON: syntax error") != std::string::npos);
  CHECK(result.err.find("json.exception") == std::string::npos);
}

TEST_CASE("a profile whose rank folder is a symlink compares with a copy of itself (was NOT COMPARABLE)") {
  const fs::path dir = scratch("rank-symlink");
  fs::create_directories(dir / "base" / "i-0abc_pid_42");
  fs::create_directories(dir / "elsewhere");
  fs::create_directories(dir / "head");
  for (const std::string run : {"run-01", "run-02", "run-03", "run-04", "run-05"}) {
    fs::copy(example("A") + "/" + run, dir / "base" / "i-0abc_pid_42" / run, fs::copy_options::recursive);
    fs::copy(example("A") + "/" + run, dir / "elsewhere" / run, fs::copy_options::recursive);
  }
  fs::create_directory_symlink(dir / "elsewhere", dir / "head" / "i-0abc_pid_42");
  const CliResult result = run({"compare", (dir / "base").string(), (dir / "head").string(), "--no-git", "--quiet",
                                "--json", (dir / "report.json").string()});
  CHECK(result.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(read_text((dir / "report.json").string()));
  CHECK(report["outcome"] == "PASS");
  const CliResult inspect = run({"inspect", (dir / "head").string()});
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.out.find("reached through a link leading outside the profile: `i-0abc_pid_42 -> " +
                         fs::canonical(dir / "elsewhere").string() + "`") != std::string::npos);
}

TEST_CASE("head/r -> / neither walks / nor hangs") {
  const fs::path dir = scratch("slash-link");
  fs::copy(example("A"), dir / "head", fs::copy_options::recursive);
  fs::create_directory_symlink("/", dir / "head" / "r");
  const CliResult result = run({"compare", example("A"), (dir / "head").string(), "--no-git", "--quiet"});
  CHECK(result.exit_code == 0);
  CHECK(result.err.find("internal error") == std::string::npos);
}

TEST_CASE("nulling an op's durations in head is an input error, not a green pass (was exit 0)") {
  const CliResult result =
      run({"compare", data("bad/nulled-op/base"), data("bad/nulled-op/head"), "--no-git", "--quiet"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("op \"aten::mul\": 50 of 50 (100.0%) of its events have no usable ts or dur") !=
        std::string::npos);
}

TEST_CASE("inspect and the JSON report show a string dur as a data problem (inspect said None found)") {
  const std::string trace = data("bad/string-dur-one-in-201.pt.trace.json");
  const CliResult inspect = run({"inspect", trace});
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.out.find("1 events whose dur is not a number (missing, null, a string, NaN): excluded; first: "
                         "aten::add \"dur\": \"n/a\" near byte ") != std::string::npos);
  const fs::path dir = scratch("data-problems-json");
  const CliResult compare = run({"compare", trace, trace, "--no-git", "--quiet", "--json", (dir / "r.json").string(),
                                 "--markdown", (dir / "r.md").string()});
  CHECK(compare.exit_code != 2);
  const nlohmann::json report = nlohmann::json::parse(read_text((dir / "r.json").string()));
  const nlohmann::json& problem = report["sides"]["head"]["data_problems"][0];
  CHECK(problem["kind"] == "bad_duration");
  CHECK(problem["count"] == 1);
  CHECK(problem["example"] == "aten::add \"dur\": \"n/a\"");
  CHECK(problem["byte"].is_number_unsigned());
  CHECK(read_text((dir / "r.md").string()).find("1 events whose dur is not a number") != std::string::npos);
}
