#include "cli.hpp"

#include "build_info.hpp"
#include "commands/commands.hpp"
#include "compare/rule_set.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"
#include "util/parallel.hpp"
#include "util/spellcheck.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <optional>

#include <new>
#include <ostream>
#include <string>
#include <unistd.h>
#include <vector>

namespace neuron_gate {

namespace {

constexpr const char* k_exit_codes = "Exit codes: 0 pass or no decision, 1 regression, 2 usage or input error,\n"
                                     "            3 not comparable, 4 no decision under --strict.\n";

constexpr const char* k_examples =
    "Examples:\n"
    "  neuron-gate compare base/ head/                     Markdown report on stdout\n"
    "  neuron-gate compare base/ head/ --json r.json --markdown r.md --strict\n"
    "  neuron-gate calibrate base/                         false-alarm rate on no change\n"
    "  neuron-gate inspect head/                           what is read from a profile\n"
    "  neuron-gate rank base/ alt1/ alt2/                  alternatives ranked against base, with CIs\n"
    "  neuron-gate digest base/ -o base.ngdigest           kilobytes that compare reads in place of base/\n"
    "  neuron-gate history refs/neuron-gate/baselines/main stored baselines along history, with shifts\n"
    "  neuron-gate render r.json --markdown c.md           a JSON report from another job as Markdown\n"
    "  neuron-gate COMMAND --help                          a command's options\n";

// "neuron-gate 0.1.0 (git commit 0123456789ab)".
std::string version_text() {
  return std::string("neuron-gate ") + NEURON_GATE_VERSION + " (git commit " + build_commit() + ")";
}

// --unit of compare and calibrate, validated here and only here, while the command line is parsed and
// before any file is read: parse_sample_unit (rule_set.hpp), the parser of the rules key `unit` too.
void add_unit_option(CLI::App* command, std::optional<SampleUnit>& unit) {
  const CLI::Validator is_unit(
      [](std::string& text) {
        return parse_sample_unit(text) ? std::string() : "must be \"step\" or \"run\", not \"" + text + "\"";
      },
      "step|run", "sample unit");
  command
      ->add_option_function<std::string>(
          "--unit", [&unit](const std::string& text) { unit = parse_sample_unit(text); },
          "one sample per step or per run (folder of traces); overrides the rules")
      ->check(is_unit);
}

// The first argument when it names no command and is no option ("comapre"): an error with the closest
// command name, instead of CLI11's "A subcommand is required". nullopt when the first argument is fine.
std::optional<std::string> unknown_command(const CLI::App& app, const std::vector<std::string>& reversed_args) {
  if (reversed_args.empty()) {
    return std::nullopt;
  }
  const std::string& first = reversed_args.back();
  if (first.empty() || first[0] == '-') {
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == first) {
      return std::nullopt;
    }
    names.push_back(sub->get_name());
  }
  std::string message = "unknown command \"" + first + "\"";
  if (const std::optional<std::string> near = closest_word(first, names)) {
    message += "; did you mean \"" + *near + "\"?";
  }
  std::string listed;
  for (const std::string& name : names) {
    listed += (listed.empty() ? "" : ", ") + name;
  }
  return message + " (commands: " + listed + "; neuron-gate --help)";
}

// --repo DIR of every command that reads profiles: the repository of `git:REF:PATH` specs.
void add_repo_option(CLI::App* command, std::string& repository) {
  command
      ->add_option("--repo", repository,
                   "the git repository of git:REF:PATH profiles (and of the provenance); default: the one "
                   "containing the current directory")
      ->type_name("DIR");
}

// The commands and their options, bound to the option structs the commands read.
CLI::App* add_compare(CLI::App& app, CompareOptions& compare, bool& no_git) {
  CLI::App* compare_cmd = app.add_subcommand("compare", "compare two profiles and decide pass or fail");
  compare_cmd->footer(std::string("\n") + k_exit_codes);
  compare_cmd
      ->add_option("BASE", compare.base,
                   "base profile: a directory (walked recursively), a file, or git:REF:PATH (read from git)")
      ->required()
      ->type_name("DIR|FILE");
  compare_cmd->add_option("HEAD", compare.head, "head (pull request) profile: a directory, a file or git:REF:PATH")
      ->required()
      ->type_name("DIR|FILE");
  compare_cmd->add_option("--rules", compare.rules_path, "rules file (JSON with comments); default: rules/default.json")
      ->type_name("FILE");
  compare_cmd->add_option("--markdown", compare.markdown_path, "write the Markdown report to FILE instead of stdout")
      ->type_name("FILE");
  compare_cmd->add_option("--json", compare.json_path, "write the JSON report (schema neuron-gate.report/2) to FILE")
      ->type_name("FILE");
  compare_cmd->add_option("--html", compare.html_path, "write the self-contained HTML report to FILE")
      ->type_name("FILE");
  compare_cmd->add_option("--junit", compare.junit_path, "write JUnit XML (one test case per gating metric) to FILE")
      ->type_name("FILE");
  compare_cmd
      ->add_option("--annotations", compare.annotations_path,
                   "write GitHub annotations (::error/::warning workflow commands) to FILE")
      ->type_name("FILE");
  compare_cmd->add_flag("--by-shape", compare.by_shape, "identify ops by name and input shapes");
  compare_cmd->add_flag("--strict", compare.strict,
                        "exit 4 on NO DECISION (a likely regression the evidence cannot decide)");
  compare_cmd->add_option("--allow-mismatch", compare.allow_mismatch, "accept a differing condition (repeatable)")
      ->type_name("COND")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  compare_cmd->add_flag("--quiet", compare.quiet, "print only the one-line verdict on stdout, no report");
  compare_cmd->add_flag(
      "--no-git", no_git,
      "leave the git state out of the report: no commits, branches or ancestry check (reproducible reports)");
  add_unit_option(compare_cmd, compare.unit);
  add_repo_option(compare_cmd, compare.repository);
  auto* head_commit =
      compare_cmd
          ->add_option("--head-commit", compare.head_commit,
                       "where BASE git:REF:@merge-base starts looking for a stored baseline (default: HEAD)")
          ->type_name("REV");
  compare_cmd
      ->add_option("--base-commit", compare.base_commit,
                   "the pull request's base commit: BASE git:REF:@merge-base takes the digest stored for it or "
                   "its nearest first-parent ancestor, recording that commit (docs/user-guide.md, Stored baselines)")
      ->type_name("REV")
      ->excludes(head_commit);
  compare_cmd
      ->add_option("--today", compare.today,
                   "the date waivers expire against; default SOURCE_DATE_EPOCH, else today (UTC)")
      ->type_name("YYYY-MM-DD");
  compare_cmd
      ->add_option("--format", compare.format,
                   "what stdout gets: markdown, terminal (a compact summary) or none; default terminal when "
                   "stdout is a terminal, else markdown")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"markdown", "terminal", "none"}));
  compare_cmd
      ->add_option("--comment-key", compare.comment_key,
                   "key of the sticky PR comment this report belongs to (a matrix keeps one comment per key); "
                   "1-64 of A-Z a-z 0-9 . _ -")
      ->type_name("KEY");
  compare_cmd
      ->add_option("--rules-from", compare.rules_from,
                   "where --rules was taken from, e.g. the base commit; shown in the report's Provenance")
      ->type_name("TEXT");
  return compare_cmd;
}

CLI::App* add_calibrate(CLI::App& app, CalibrateOptions& calibrate) {
  CLI::App* calibrate_cmd =
      app.add_subcommand("calibrate", "split one profile's runs into random halves and measure the false-alarm rate");
  calibrate_cmd->add_option("PROFILE", calibrate.profile, "a directory (its runs are split) or a file")
      ->required()
      ->type_name("DIR|FILE");
  calibrate_cmd
      ->add_option("--rules", calibrate.rules_path, "rules file (JSON with comments); default: rules/default.json")
      ->type_name("FILE");
  add_unit_option(calibrate_cmd, calibrate.unit);
  add_repo_option(calibrate_cmd, calibrate.repository);
  calibrate_cmd->add_option("--splits", calibrate.splits, "number of random halvings (default 200)")
      ->type_name("N")
      ->check(CLI::Range(1, 100000));
  calibrate_cmd->add_option("--seed", calibrate.seed, "random seed (default fixed, so the output is reproducible)")
      ->type_name("S");
  calibrate_cmd
      ->add_option("--json", calibrate.json_path, "write the calibration as JSON (neuron-gate.calibration/1) to FILE")
      ->type_name("FILE");
  return calibrate_cmd;
}

CLI::App* add_rank(CLI::App& app, RankOptions& rank) {
  CLI::App* rank_cmd = app.add_subcommand(
      "rank", "rank alternatives against one baseline by an end-to-end metric or step time, with CIs");
  rank_cmd->footer("\nExit codes: 0 ranked, 2 usage or input error, 3 an alternative is not comparable with BASE.\n");
  rank_cmd->add_option("BASE", rank.base, "baseline profile: a directory or a file")->required()->type_name("DIR|FILE");
  rank_cmd->add_option("ALT", rank.alternatives, "alternative profiles, each compared to BASE (at least one)")
      ->required()
      ->type_name("DIR|FILE ...");
  rank_cmd->add_option("--rules", rank.rules_path, "rules file (JSON with comments); default: rules/default.json")
      ->type_name("FILE");
  rank_cmd
      ->add_option("--metric", rank.metric,
                   "what decides: an end-to-end metric, step-time or device-total (default: base's first end-to-end "
                   "metric, e.g. latency; step-time for traces without one)")
      ->type_name("NAME")
      ->check([](const std::string& name) { return name.empty() ? std::string("must not be empty") : std::string(); });
  rank_cmd->add_option("--markdown", rank.markdown_path, "write the Markdown ranking to FILE instead of stdout")
      ->type_name("FILE");
  rank_cmd->add_option("--json", rank.json_path, "write the ranking as JSON (neuron-gate.ranking/1) to FILE")
      ->type_name("FILE");
  rank_cmd->add_option("--html", rank.html_path, "write the ranking as a self-contained HTML page to FILE")
      ->type_name("FILE");
  rank_cmd->add_flag("--by-shape", rank.by_shape, "identify ops by name and input shapes");
  rank_cmd->add_option("--allow-mismatch", rank.allow_mismatch, "accept a differing condition (repeatable)")
      ->type_name("COND")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  rank_cmd->add_flag("--quiet", rank.quiet, "print no report on stdout");
  add_unit_option(rank_cmd, rank.unit);
  add_repo_option(rank_cmd, rank.repository);
  return rank_cmd;
}

CLI::App* add_inspect(CLI::App& app, InspectOptions& inspect) {
  CLI::App* inspect_cmd = app.add_subcommand("inspect", "show what neuron-gate reads from one profile");
  inspect_cmd->add_option("PROFILE", inspect.profile, "a directory, a file or git:REF:PATH")
      ->required()
      ->type_name("DIR|FILE");
  add_repo_option(inspect_cmd, inspect.repository);
  inspect_cmd->add_flag("--by-shape", inspect.by_shape, "identify ops by name and input shapes");
  return inspect_cmd;
}

CLI::App* add_digest(CLI::App& app, DigestOptions& digest, bool& no_git) {
  CLI::App* digest_cmd = app.add_subcommand(
      "digest", "write one profile's samples to a small file that compare reads in place of the profile");
  digest_cmd
      ->add_option("PROFILE", digest.profile,
                   "a directory, a file or git:REF:PATH; or digests (a folder of one digest per rank: combined)")
      ->required()
      ->type_name("DIR|FILE");
  digest_cmd->add_option("-o,--output", digest.output, "the digest to write (by convention NAME.ngdigest)")
      ->required()
      ->type_name("FILE");
  add_repo_option(digest_cmd, digest.repository);
  digest_cmd->add_flag("--by-shape", digest.by_shape, "identify ops by name and input shapes (for compare --by-shape)");
  digest_cmd->add_flag("--no-git", no_git, "record no git state of the profile's repository (commit, branch, dirty)");
  return digest_cmd;
}

CLI::App* add_render(CLI::App& app, RenderOptions& render) {
  CLI::App* render_cmd = app.add_subcommand(
      "render", "write the Markdown of a JSON report that compare --json wrote (every string in it rendered as data)");
  render_cmd->footer("\nExit codes: 0 written, 2 usage or input error.\n");
  render_cmd->add_option("REPORT", render.report, "a JSON report of compare --json")->required()->type_name("FILE");
  render_cmd->add_option("--markdown", render.markdown_path, "write the Markdown here (default: stdout)")
      ->type_name("FILE");
  render_cmd
      ->add_option("--comment-key", render.comment_key,
                   "key of the sticky PR comment (as compare --comment-key); 1-64 of A-Z a-z 0-9 . _ -")
      ->type_name("KEY");
  return render_cmd;
}

CLI::App* add_history(CLI::App& app, HistoryOptions& history) {
  CLI::App* history_cmd = app.add_subcommand(
      "history", "list stored baselines along first-parent history and mark where a deciding metric shifted");
  history_cmd->footer("\nExit codes: 0 listed, 2 usage or input error.\n");
  history_cmd->add_option("REF", history.baseline_ref, "the ref `baseline save` stores digests under")
      ->required()
      ->type_name("refs/neuron-gate/baselines/NAME");
  history_cmd->add_option("--along", history.along, "the revision whose first-parent history is walked (default HEAD)")
      ->type_name("REV");
  history_cmd
      ->add_option("--rules", history.rules_path,
                   "rules file (alpha, unit, dropped steps); default: rules/default.json")
      ->type_name("FILE");
  history_cmd->add_option("--limit", history.limit, "analyse the newest N baselines (default 30)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  history_cmd->add_option("--min-shift", history.min_shift, "smallest relative shift marked (default 0.01 = 1%)")
      ->type_name("FRACTION")
      ->check(CLI::Range(0.0, 0.999));
  history_cmd->add_option("--markdown", history.markdown_path, "write the Markdown history to FILE instead of stdout")
      ->type_name("FILE");
  history_cmd->add_option("--json", history.json_path, "write the history as JSON (neuron-gate.history/1) to FILE")
      ->type_name("FILE");
  add_unit_option(history_cmd, history.unit);
  add_repo_option(history_cmd, history.repository);
  return history_cmd;
}

// What compare's stdout gets: a terminal gets the compact summary (unless --format says otherwise),
// coloured unless NO_COLOR is set (https://no-color.org); and whether git is asked for provenance.
void set_compare_output(CompareOptions& compare, CLI::App& compare_cmd, const std::ostream& out, bool no_git) {
  const bool tty = &out == &std::cout && isatty(STDOUT_FILENO) == 1;
  if (compare_cmd.get_option("--format")->count() == 0 && tty) {
    compare.format = "terminal";
  }
  compare.colour = tty && std::getenv("NO_COLOR") == nullptr;
  compare.git = !no_git;
}

// --threads of every command (util/parallel.hpp).
void add_threads_option(std::initializer_list<CLI::App*> commands, std::size_t& threads) {
  for (CLI::App* command : commands) {
    command
        ->add_option("--threads", threads,
                     "threads reading files and calibrating (default: NEURON_GATE_THREADS, "
                     "else one per core); the output is the same for any count")
        ->check(CLI::Range(std::size_t{1}, k_max_worker_threads));
  }
}

CLI::App* add_baseline_save(CLI::App& app, BaselineSaveOptions& save) {
  CLI::App* baseline_cmd = app.add_subcommand(
      "baseline", "store baselines in git: profile the default branch once, gate every pull request");
  baseline_cmd->require_subcommand(1);
  CLI::App* save_cmd = baseline_cmd->add_subcommand(
      "save", "commit a profile's digest to a baseline ref, keyed by the commit it profiles (no work-tree change)");
  save_cmd->add_option("PROFILE", save.profile, "a directory, a file, git:REF:PATH, or digests")
      ->required()
      ->type_name("DIR|FILE");
  save_cmd->add_option("--ref", save.ref, "the baseline ref, e.g. refs/neuron-gate/baselines/main")
      ->required()
      ->type_name("REF");
  save_cmd->add_option("--commit", save.commit, "the commit the profile is of (default: HEAD of the repository)")
      ->type_name("REV");
  save_cmd->add_flag("--allow-dirty", save.allow_dirty,
                     "save for HEAD even when the work tree has uncommitted changes to tracked files");
  save_cmd
      ->add_option("--repo", save.repository,
                   "the repository to save in (and of a git:REF:PATH profile); default: the one containing the "
                   "profile")
      ->type_name("DIR");
  save_cmd->add_flag("--by-shape", save.by_shape, "identify ops by name and input shapes (for compare --by-shape)");
  return save_cmd;
}

// Prints the error that ended a command (the one in flight) and returns exit code 2: input and usage
// errors as "error:", running out of memory too (the memory or address-space limit was reached where no file
// was being read: not a defect), anything else as "internal error:".
int report_error(std::ostream& err) {
  try {
    throw;
  } catch (const InputError& error) {
    err << "neuron-gate: error: " << terminal_text(error.what()) << "\n";
  } catch (const UsageError& error) {
    err << "neuron-gate: error: " << terminal_text(error.what()) << "\n";
  } catch (const std::bad_alloc&) {
    err << "neuron-gate: error: out of memory (the process's memory or address-space limit was reached; fewer "
           "--threads read fewer files at once; see docs/user-guide.md \"Limits\")\n";
  } catch (const std::exception& error) {
    err << "neuron-gate: internal error: " << terminal_text(error.what()) << "\n";
  } catch (...) {
    err << "neuron-gate: internal error: an exception of unknown type\n";
  }
  return 2;
}

// --help and --version (exit 0) as CLI11 writes them; a usage error (exit 2) sanitized like every other
// message: CLI11 quotes arguments as given (no control character, no line a data string starts, so no
// workflow command in a CI log).
int parse_failure(const CLI::App& app, const CLI::ParseError& error, std::ostream& out, std::ostream& err) {
  if (error.get_exit_code() == 0) {
    return app.exit(error, out, err) == 0 ? 0 : 2;
  }
  err << terminal_text(error.what()) << "\nRun with --help for more information.\n";
  return 2;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"Gate pull requests on performance regressions in PyTorch (TorchNeuron) profiles.", "neuron-gate"};
  app.set_version_flag("--version", version_text(), "print the version and git commit, then exit");
  app.require_subcommand(1);
  app.footer(std::string("\n") + k_examples + "\n" + k_exit_codes);

  CompareOptions compare;
  bool no_git = false;
  CLI::App* compare_cmd = add_compare(app, compare, no_git);
  CalibrateOptions calibrate;
  CLI::App* calibrate_cmd = add_calibrate(app, calibrate);
  InspectOptions inspect;
  CLI::App* inspect_cmd = add_inspect(app, inspect);
  RankOptions rank;
  CLI::App* rank_cmd = add_rank(app, rank);
  DigestOptions digest;
  bool digest_no_git = false;
  CLI::App* digest_cmd = add_digest(app, digest, digest_no_git);
  BaselineSaveOptions baseline_save;
  CLI::App* baseline_save_cmd = add_baseline_save(app, baseline_save);
  HistoryOptions history;
  CLI::App* history_cmd = add_history(app, history);
  RenderOptions render;
  CLI::App* render_cmd = add_render(app, render);
  std::size_t threads = 0;  // 0: NEURON_GATE_THREADS, else the machine's cores (util/parallel.hpp)
  add_threads_option({compare_cmd, calibrate_cmd, inspect_cmd, rank_cmd, digest_cmd, baseline_save_cmd, history_cmd},
                     threads);

  try {
    std::vector<std::string> args;
    for (int i = argc - 1; i > 0; --i) {
      args.emplace_back(argv[i]);
    }
    if (const std::optional<std::string> unknown = unknown_command(app, args)) {
      err << "neuron-gate: error: " << *unknown << "\n";
      return 2;
    }
    app.parse(args);
  } catch (const CLI::ParseError& error) {
    return parse_failure(app, error, out, err);
  }

  set_worker_threads(threads);
  try {
    if (const std::optional<std::string> invalid = invalid_limit_variable()) {
      throw UsageError(*invalid);
    }
    if (compare_cmd->parsed()) {
      set_compare_output(compare, *compare_cmd, out, no_git);
      return run_compare(compare, out);
    }
    if (calibrate_cmd->parsed()) {
      return run_calibrate(calibrate, out);
    }
    if (inspect_cmd->parsed()) {
      return run_inspect(inspect, out);
    }
    if (rank_cmd->parsed()) {
      return run_rank(rank, out);
    }
    if (digest_cmd->parsed()) {
      digest.git = !digest_no_git;
      return run_digest(digest, out);
    }
    if (history_cmd->parsed()) {
      return run_history(history, out);
    }
    if (render_cmd->parsed()) {
      return run_render(render, out);
    }
    if (baseline_save_cmd->parsed()) {
      return run_baseline_save(baseline_save, out);
    }
  } catch (...) {
    return report_error(err);
  }
  return 2;
}

}  // namespace neuron_gate
