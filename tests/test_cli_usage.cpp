// The command line as a new user meets it: --help (program name, FILE/DIR names, examples, exit codes),
// --version (version and git commit) and a mistyped command (the nearest command suggested).
#include "build_info.hpp"
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <regex>
#include <string>

using neuron_gate::testing::CliResult;
using neuron_gate::testing::run;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_SUITE_BEGIN("cli::usage");

TEST_CASE("--version prints the version and the git commit the binary was built from") {
  const CliResult r = run({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        std::string("neuron-gate ") + NEURON_GATE_VERSION + " (git commit " + neuron_gate::build_commit() + ")\n");
  // 12 hex digits (with -dirty when built from uncommitted changes), or unknown outside a git checkout.
  CHECK(std::regex_match(std::string(neuron_gate::build_commit()), std::regex("[0-9a-f]{12}(-dirty)?|unknown")));
  CHECK(std::regex_match(std::string(NEURON_GATE_VERSION), std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")));
}

TEST_CASE("--help names the program, the commands, examples and every exit code") {
  const CliResult r = run({"--help"});
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "Usage: neuron-gate"));
  CHECK(has(r.out, "compare"));
  CHECK(has(r.out, "calibrate"));
  CHECK(has(r.out, "inspect"));
  CHECK(has(r.out, "--version"));
  CHECK(has(r.out, "Examples:\n  neuron-gate compare base/ head/"));
  CHECK(has(r.out, "Exit codes: 0 pass, 1 regression, 2 usage or input error, 3 not comparable,\n"));
  CHECK(has(r.out, "4 inconclusive (a gating metric undecided) under --strict."));
}

TEST_CASE("compare --help names its FILE and DIR arguments and the exit codes") {
  const CliResult r = run({"compare", "--help"});
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "Usage: neuron-gate compare"));
  CHECK(std::regex_search(r.out, std::regex("BASE DIR\\|FILE REQUIRED")));
  CHECK(std::regex_search(r.out, std::regex("HEAD DIR\\|FILE REQUIRED")));
  for (const char* option :
       {"--rules FILE", "--markdown FILE", "--json FILE", "--html FILE", "--junit FILE", "--allow-mismatch COND"}) {
    CHECK_MESSAGE(has(r.out, option), option);
  }
  CHECK(has(r.out, "Exit codes: 0 pass, 1 regression"));
  const CliResult calibrate = run({"calibrate", "--help"});
  CHECK(has(calibrate.out, "Usage: neuron-gate calibrate"));
  CHECK(has(calibrate.out, "--splits N"));
  CHECK(has(calibrate.out, "--json FILE"));
  CHECK(has(run({"inspect", "--help"}).out, "PROFILE DIR|FILE REQUIRED"));
}

TEST_CASE("a mistyped command suggests the nearest one and exits 2") {
  const CliResult r = run({"comapre", "base", "head"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "neuron-gate: error: unknown command \"comapre\"; did you mean \"compare\"? "
                 "(commands: compare, calibrate, inspect; neuron-gate --help)\n");
  CHECK(has(run({"inspekt", "x"}).err, "did you mean \"inspect\"?"));
  CHECK(has(run({"calibrat"}).err, "did you mean \"calibrate\"?"));
  // Nothing near: no suggestion, the commands listed.
  const CliResult far = run({"frobnicate"});
  CHECK(far.exit_code == 2);
  CHECK(far.err == "neuron-gate: error: unknown command \"frobnicate\" (commands: compare, calibrate, inspect; "
                   "neuron-gate --help)\n");
  // A command spelled right, or an option first, is left to the parser.
  CHECK(run({"compare"}).exit_code == 2);
  CHECK(!has(run({"compare"}).err, "unknown command"));
  CHECK(run({"--bogus"}).exit_code == 2);
  CHECK(run({}).exit_code == 2);
}

TEST_SUITE_END();
