// The command line as a new user meets it: --help (program name, FILE/DIR names, examples, exit codes),
// --version (version and git commit) and a mistyped command (the nearest command suggested).
#include "build_info.hpp"
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <regex>
#include <string>

using neuron_gate::testing::CliResult;
using neuron_gate::testing::run;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

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
  CHECK(has(r.out, "Exit codes: 0 pass or no decision, 1 regression, 2 usage or input error,\n"));
  CHECK(has(r.out, "3 not comparable, 4 no decision under --strict.\n"));
  CHECK(has(r.out, "no decision under --strict.\n"));
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
  CHECK(has(r.out, "Exit codes: 0 pass or no decision, 1 regression"));
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
  CHECK(r.err ==
        "neuron-gate: error: unknown command \"comapre\"; did you mean \"compare\"? "
        "(commands: compare, calibrate, inspect, rank, digest, baseline, history, render; neuron-gate --help)\n");
  CHECK(has(run({"inspekt", "x"}).err, "did you mean \"inspect\"?"));
  CHECK(has(run({"calibrat"}).err, "did you mean \"calibrate\"?"));
  // Nothing near: no suggestion, the commands listed.
  const CliResult far = run({"frobnicate"});
  CHECK(far.exit_code == 2);
  CHECK(far.err == "neuron-gate: error: unknown command \"frobnicate\" (commands: compare, calibrate, inspect, rank, "
                   "digest, baseline, history, render; "
                   "neuron-gate --help)\n");
  // A command spelled right, or an option first, is left to the parser.
  CHECK(run({"compare"}).exit_code == 2);
  CHECK(!has(run({"compare"}).err, "unknown command"));
  CHECK(run({"--bogus"}).exit_code == 2);
  CHECK(run({}).exit_code == 2);
}

TEST_CASE("a bad --unit is a usage error before any file is read") {
  // The profiles do not exist: the error is about --unit, so nothing was read.
  for (const char* command : {"compare", "calibrate"}) {
    std::vector<std::string> args{command, "/nonexistent/neuron-gate-base"};
    if (std::string(command) == "compare") {
      args.push_back("/nonexistent/neuron-gate-head");
    }
    args.insert(args.end(), {"--unit", "steps"});
    const CliResult r = run(args);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "--unit: must be \"step\" or \"run\", not \"steps\""));
    CHECK_FALSE(has(r.err, "nonexistent"));
  }
  // A good --unit with the same missing profile: now the profile is named.
  const CliResult missing =
      run({"compare", "/nonexistent/neuron-gate-base", "/nonexistent/neuron-gate-head", "--unit", "run"});
  CHECK(missing.exit_code == 2);
  CHECK(has(missing.err, "nonexistent"));
}

TEST_CASE("a usage error quoting an argument cannot start a line or a workflow command") {
  // CLI11 quotes the argument as given; a PR-controlled `args` could hold "\n::error::..." (issue 42's
  // Action review).
  const CliResult r = run({"compare", "a", "b", "--threads", "x\n::add-mask::y\n::error::pwned\x1b[31m"});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "--threads"));
  CHECK(has(r.err, "Run with --help for more information.\n"));
  CHECK_FALSE(has(r.err, "\n::"));
  CHECK_FALSE(has(r.err, "\x1b"));
  CHECK(r.err.rfind("::", 0) != 0);
  // An ordinary usage error reads as CLI11 wrote it.
  CHECK(run({"compare", "a", "b", "--threads", "x"}).err ==
        "--threads: Value x not in range 1 to 256\nRun with --help for more information.\n");
}

TEST_CASE("a limit variable that is not a positive whole number is a usage error, not the default in silence") {
  for (const char* value : {"abc", "0", "-1", " 3", "1e6"}) {
    CAPTURE(value);
    ::setenv("NEURON_GATE_MAX_STRING_BYTES", value, 1);
    const CliResult bad = run({"inspect", neuron_gate::testing::example("A")});
    ::unsetenv("NEURON_GATE_MAX_STRING_BYTES");
    CHECK(bad.exit_code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err == std::string("neuron-gate: error: NEURON_GATE_MAX_STRING_BYTES=\"") + value +
                         "\" is not a positive whole number (unset it for the default)\n");
  }
  ::setenv("NEURON_GATE_MAX_OPS", "100000", 1);
  CHECK(run({"inspect", neuron_gate::testing::example("A")}).exit_code == 0);
  ::unsetenv("NEURON_GATE_MAX_OPS");
}

TEST_SUITE_END();
