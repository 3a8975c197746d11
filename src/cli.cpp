#include "cli.hpp"

#include "commands.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

namespace neuron_gate {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"neuron-gate: gate pull requests on performance regressions in PyTorch profiles"};
  app.set_version_flag("--version", std::string("neuron-gate ") + NEURON_GATE_VERSION);
  app.require_subcommand(1);

  CompareOptions compare;
  CLI::App* compare_cmd = app.add_subcommand("compare", "compare two profiles and decide pass or fail");
  compare_cmd->add_option("BASE", compare.base, "base profile: a directory or a file")->required();
  compare_cmd->add_option("HEAD", compare.head, "head (pull request) profile: a directory or a file")->required();
  compare_cmd->add_option("--rules", compare.rules_path, "rules file (JSON with comments); default: rules/default.json");
  compare_cmd->add_option("--markdown", compare.markdown_path, "write the Markdown report to FILE instead of stdout");
  compare_cmd->add_option("--json", compare.json_path, "write the JSON report (schema neuron-gate.report/1) to FILE");
  compare_cmd->add_option("--html", compare.html_path, "write the self-contained HTML report to FILE");
  compare_cmd->add_option("--junit", compare.junit_path, "write JUnit XML (one test case per gating metric) to FILE");
  compare_cmd->add_flag("--by-shape", compare.by_shape, "identify ops by name and input shapes");
  compare_cmd->add_flag("--strict", compare.strict, "exit 4 when a gating metric is undecided");
  compare_cmd->add_option("--allow-mismatch", compare.allow_mismatch, "accept a differing condition (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  compare_cmd->add_flag("--quiet", compare.quiet, "print no report on stdout");
  bool no_git = false;
  compare_cmd->add_flag("--no-git", no_git, "do not record git commits in the provenance (reproducible reports)");
  compare_cmd->add_option("--unit", compare.unit, "one sample per step or per run (folder of traces); overrides the rules")
      ->check(CLI::IsMember({"step", "run"}));

  CalibrateOptions calibrate;
  CLI::App* calibrate_cmd =
      app.add_subcommand("calibrate", "split one profile's runs into random halves and measure the false-alarm rate");
  calibrate_cmd->add_option("PROFILE", calibrate.profile, "a directory (its runs are split) or a file")->required();
  calibrate_cmd->add_option("--rules", calibrate.rules_path, "rules file (JSON with comments); default: rules/default.json");
  calibrate_cmd->add_option("--unit", calibrate.unit, "one sample per step or per run (folder of traces); overrides the rules")
      ->check(CLI::IsMember({"step", "run"}));
  calibrate_cmd->add_option("--splits", calibrate.splits, "number of random halvings (default 200)")
      ->check(CLI::Range(1, 100000));
  calibrate_cmd->add_option("--seed", calibrate.seed, "random seed (default fixed, so the output is reproducible)");
  calibrate_cmd->add_option("--json", calibrate.json_path, "write the calibration as JSON (neuron-gate.calibration/1) to FILE");

  InspectOptions inspect;
  CLI::App* inspect_cmd = app.add_subcommand("inspect", "show what neuron-gate reads from one profile");
  inspect_cmd->add_option("PROFILE", inspect.profile, "a directory or a file")->required();
  inspect_cmd->add_flag("--by-shape", inspect.by_shape, "identify ops by name and input shapes");

  try {
    std::vector<std::string> args;
    for (int i = argc - 1; i > 0; --i) {
      args.emplace_back(argv[i]);
    }
    app.parse(args);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error, out, err);
    return code == 0 ? 0 : 2;
  }

  try {
    if (compare_cmd->parsed()) {
      compare.git = !no_git;
      return run_compare(compare, out);
    }
    if (calibrate_cmd->parsed()) {
      return run_calibrate(calibrate, out);
    }
    if (inspect_cmd->parsed()) {
      return run_inspect(inspect, out);
    }
  } catch (const InputError& error) {
    err << "neuron-gate: error: " << error.what() << "\n";
    return 2;
  } catch (const UsageError& error) {
    err << "neuron-gate: error: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    err << "neuron-gate: internal error: " << error.what() << "\n";
    return 2;
  }
  return 2;
}

} // namespace neuron_gate
