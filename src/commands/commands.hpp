#pragma once
// The commands: each calls the pipeline stages in order (discover -> read -> conditions ->
// statistics -> verdicts -> render) and writes what was asked for.

#include "compare/calibration.hpp"

#include "compare/rule_set.hpp"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// Options of `neuron-gate compare`.
struct CompareOptions {
  std::string base, head;        // profile specs: directory, file or git:REF:PATH (base also git:REF:@merge-base)
  std::string head_commit;       // --head-commit: where a stored baseline's lookup starts ("" = HEAD)
  std::string base_commit;       // --base-commit: the PR's base; the lookup walks its first parents instead
  std::string repository;        // --repo: the repository of git: specs and of the provenance ("" = found)
  std::string rules_path;        // "" = built-in rules/default.json
  std::string markdown_path;     // "" = Markdown to stdout (unless quiet)
  std::string json_path;         // "" = no JSON report
  std::string html_path;         // "" = no HTML report
  std::string junit_path;        // "" = no JUnit XML report
  std::string annotations_path;  // "" = no GitHub annotations (workflow commands)
  bool by_shape = false;         // op identity includes input shapes
  bool strict = false;           // undecided gating metrics exit 4
  bool quiet = false;            // no report on stdout
  bool git = true;               // look up git commits for provenance
  std::vector<std::string> allow_mismatch;  // condition names accepted to differ
  std::optional<SampleUnit> unit;           // --unit, validated by the CLI: overrides the rules' `unit`
  std::string today;        // YYYY-MM-DD for waiver expiry; "" = SOURCE_DATE_EPOCH, else the clock (UTC)
  std::string rules_from;   // where the rules came from (e.g. the base commit), shown in Provenance
  std::string comment_key;  // --comment-key: carried by the Markdown's marker line ("" = none)
  // --format: what stdout gets when no --markdown file is named: "markdown", "terminal" (a compact
  // summary; coloured when `colour`), "none". The CLI picks terminal when stdout is a terminal, else markdown.
  std::string format = "markdown";
  bool colour = false;
};

// Runs a comparison; returns the exit code (0, 1, 3, 4). Throws InputError / UsageError for bad
// input, before any report is written; reports are written whole (temp file + rename). With
// annotations_path, the GitHub annotations (report/annotations.hpp) go there, and on a usage or input
// error one ::error annotation with the message (once the destinations were accepted: distinct and
// writable; and only when the path was checked against the inputs, or did not exist before). Report
// destinations are checked before any other work; a failed write (also of stdout) is an InputError
// naming the path.
int run_compare(const CompareOptions& options, std::ostream& out);

// Options of `neuron-gate render`.
struct RenderOptions {
  std::string report;         // a JSON report written by compare --json (neuron-gate.report/2 or points/1)
  std::string markdown_path;  // --markdown: "" = stdout
  std::string comment_key;    // --comment-key: carried by the marker line ("" = none)
};

// Writes the Markdown of a JSON report that another job wrote, with compare's renderer and comment
// limit; every string of the file is rendered as data (report/json_read.hpp). Returns 0. Throws
// UsageError for a bad comment key, InputError naming the file for a report that does not read (its
// byte offset or key path) and for a failed write.
int run_render(const RenderOptions& options, std::ostream& out);

// Options of `neuron-gate calibrate`.
struct CalibrateOptions {
  std::string profile;                      // one side: directory, file or git:REF:PATH
  std::string repository;                   // --repo: the repository of a git: spec ("" = the current directory's)
  std::string rules_path;                   // "" = built-in rules/default.json
  std::optional<SampleUnit> unit;           // --unit, validated by the CLI: overrides the rules' `unit`
  std::size_t splits = 200;                 // random A/A halvings
  std::uint64_t seed = k_calibration_seed;  // compare/calibration.hpp
  std::string json_path;                    // "" = no JSON output
};

// Splits one profile's runs into random halves many times, compares them as the gate would, and
// prints the false-alarm rate and the per-metric noise floor (Markdown to stdout; JSON to
// json_path). Returns 0. Throws InputError / UsageError for bad input (the run exits 2).
int run_calibrate(const CalibrateOptions& options, std::ostream& out);

// Options of `neuron-gate history`.
struct HistoryOptions {
  std::string baseline_ref;        // where `baseline save` stored the digests: refs/neuron-gate/baselines/NAME
  std::string along = "HEAD";      // --along: the revision whose first-parent history is walked
  std::string repository;          // --repo: the repository ("" = the current directory's)
  std::string rules_path;          // "" = built-in rules/default.json (alpha, unit, drop_first_steps)
  std::optional<SampleUnit> unit;  // --unit, validated by the CLI
  std::size_t limit = 30;          // --limit: newest baselines analysed
  double min_shift = 0.01;         // --min-shift: smallest relative shift marked (0.01 = 1%)
  std::string markdown_path;       // "" = Markdown to stdout
  std::string json_path;           // "" = no JSON (schema neuron-gate.history/1)
};

// Lists the stored baselines along first-parent history with their deciding metrics and marks change
// points (compare/history.hpp). Returns 0. Throws InputError for a missing repository, ref or revision, or
// an unreadable digest (naming it); UsageError for bad options.
int run_history(const HistoryOptions& options, std::ostream& out);

// Options of `neuron-gate rank`.
struct RankOptions {
  std::string base;                         // the baseline profile: directory, file or git:REF:PATH
  std::string repository;                   // --repo: the repository of git: specs ("" = the current directory's)
  std::vector<std::string> alternatives;    // ALT1..: each compared to base (at least one; CLI checks)
  std::string rules_path;                   // "" = built-in rules/default.json
  std::string metric;                       // an end-to-end metric, "step-time" or "device-total"; "" = base's
                                            // first end-to-end metric (e.g. latency), else step-time
  std::string markdown_path;                // "" = Markdown to stdout (unless quiet)
  std::string json_path;                    // "" = no JSON (schema neuron-gate.ranking/1)
  std::string html_path;                    // "" = no HTML
  bool by_shape = false;                    // op identity includes input shapes (conditions)
  bool quiet = false;                       // no report on stdout
  std::vector<std::string> allow_mismatch;  // condition names accepted to differ
  std::optional<SampleUnit> unit;           // --unit: overrides the rules' `unit`
};

// Ranks the alternatives against one base (compare/ranking.hpp) under the same rules, conditions checked
// per alternative as `compare` checks them; writes the Markdown (stdout unless --markdown/--quiet), JSON
// and HTML reports (report/ranking_report.hpp). Returns 0, or 3 when an alternative is not comparable
// with base (it is listed, not ranked). Throws InputError / UsageError for bad input before writing.
int run_rank(const RankOptions& options, std::ostream& out);

// Options of `neuron-gate inspect`.
struct InspectOptions {
  std::string profile;     // a directory, file or git:REF:PATH
  std::string repository;  // --repo: the repository of a git: spec ("" = the current directory's)
  bool by_shape = false;
};

// Prints what neuron-gate understood of one profile (report/inspect_report.hpp renders it). Returns 0.
int run_inspect(const InspectOptions& options, std::ostream& out);

// Options of `neuron-gate digest`.
struct DigestOptions {
  std::string profile;     // a directory, file or git:REF:PATH; or digests (combined into one)
  std::string repository;  // --repo: the repository of a git: spec ("" = the current directory's)
  std::string output;      // -o FILE: the digest to write (`*.ngdigest` by convention)
  bool by_shape = false;   // ops keyed by name and input shapes (compare --by-shape needs such digests)
  bool git = true;         // record the git state of the profile's repository (--no-git: none)
};

// Reads one side (load_side: a profile, a digest or a folder of digests) and writes its digest
// (store/digest.hpp) to options.output, whole or not at all, with the git state of the profile's
// repository (commit, branch, dirty; unless options.git is false), which compare shows for the side in place
// of looking one up; prints one line saying what was written.
// Returns 0. Throws UsageError for an output that is an input file or a profile of several operating
// points (not supported: digest each point's folder and compare those), InputError as reading does.
int run_digest(const DigestOptions& options, std::ostream& out);

// Options of `neuron-gate baseline save`.
struct BaselineSaveOptions {
  std::string profile;     // a directory, file, git:REF:PATH or digest(s)
  std::string repository;  // --repo: the repository to save in ("" = the one at or above the profile)
  std::string ref;         // --ref: full ref name, e.g. refs/neuron-gate/baselines/main
  std::string commit;      // --commit: the profiled commit ("" = the repository's HEAD)
  bool allow_dirty = false;
  bool by_shape = false;  // digest with ops keyed by name and input shapes
};

// Reads the profile (as `digest` does), and commits its digest to options.ref (store/baseline_store.hpp);
// prints one line saying what was saved. Returns 0. Throws UsageError / InputError as `digest` and
// save_baseline() do.
int run_baseline_save(const BaselineSaveOptions& options, std::ostream& out);

// An error message made safe to print on a terminal or CI log (report/escape.hpp escape_terminal):
// valid UTF-8, one line, no control character or escape sequence from the data.
std::string terminal_text(std::string_view message);

}  // namespace neuron_gate
