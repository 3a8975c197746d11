#pragma once
// Steps of `compare` shared by the one-point path (commands.cpp) and the path of several operating
// points (compare_points.cpp). Internal to the cli library.

#include "commands/commands.hpp"
#include "compare/calibration.hpp"
#include "compare/findings.hpp"
#include "compare/gate_policy.hpp"
#include "compare/judgement.hpp"
#include "profile/operating_points.hpp"
#include "profile/read_side.hpp"
#include "report/provenance.hpp"
#include "report/report.hpp"
#include "store/repository_state.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace neuron_gate {

// The rules a command applies: the rules file (or the built-in rules) with the command line's
// overrides. These are the rules the report shows and hashes. Throws InputError for a bad rules file.
RuleSet applied_rules(const std::string& rules_path, std::optional<SampleUnit> unit);

// The side `digest` and `baseline save` write for `profile` (discovered as `inventory`): read with load_side,
// the Neuron binaries' hashes filled in; `recorded` receives the git state of the profile's repository to
// write beside it (nullopt when `git` is false or it lies in none; a side read from digests keeps theirs).
// Throws UsageError for a profile of several operating points, InputError as load_side() and
// require_samples() do.
SideSamples side_to_digest(const std::string& profile, const std::string& repository, bool by_shape, bool git,
                           const ProfileInventory& inventory, std::optional<SideRepository>& recorded);

// Refuses (UsageError) an output path that is one of `inputs`' files or the rules file: reports never
// overwrite a profile. An empty `output` passes.
void check_output_path(const std::string& output, const std::vector<const ProfileInventory*>& inputs,
                       const std::string& rules_path);

// Before any work: every report destination of `options` can take a file (InputError otherwise) and no two
// are one file (UsageError).
void check_output_destinations(const CompareOptions& options);

// Once the profiles are walked: no report of `options` is written over an input or the rules file (UsageError).
void check_outputs_not_inputs(const CompareOptions& options, const ProfileInventory& base,
                              const ProfileInventory& head);

// Renders every report `options` asks for, then writes them whole (InputError naming the file when a write
// fails; none is left half written); stdout gets the Markdown or the terminal summary unless --quiet.
void write_reports(const CompareOptions& options, const Report& report, std::ostream& out);

// Throws InputError naming the side's profile when it holds no trace and no end-to-end file.
void require_samples(const SideSamples& side);

// What the git state of one side is gathered from: its inventory (its git_commit is the commit the side
// profiled), its run manifest, and for a side read from digests the state recorded when it was made.
struct GitStateInputs {
  const ProfileInventory& inventory;
  const std::optional<RunManifest>& manifest;
  const std::optional<RecordedRepository>& recorded;
};
// The sides' git state (store/repository_state.hpp), gathered from each side's GitStateInputs, into the
// provenance's commits, and the open hypothesis when base's commit is not an ancestor of head's; nothing
// under --no-git (options.git false). A stored baseline's base: its discovered inventory with the profiled
// commit, nothing recorded.
void add_git_state(const CompareOptions& options, const GitStateInputs& base, const GitStateInputs& head,
                   Provenance& provenance, OpenHypotheses& found);

// `compare` of sides with several operating points (docs/user-guide.md "Operating points"): reads each point,
// checks its conditions, judges all points at once, renders and writes the reports; returns the exit
// code.
int compare_points(const CompareOptions& options, const RuleSet& rules, const std::string& today_date,
                   const std::vector<OperatingPointFiles>& base_points,
                   const std::vector<OperatingPointFiles>& head_points, std::ostream& out);

}  // namespace neuron_gate
