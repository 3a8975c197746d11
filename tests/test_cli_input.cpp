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
