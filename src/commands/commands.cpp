#include "commands/commands.hpp"
#include "commands/compare_steps.hpp"

#include "compare/baseline_ancestry.hpp"
#include "compare/calibration.hpp"
#include "compare/conditions.hpp"
#include "compare/cost.hpp"
#include "compare/findings.hpp"
#include "compare/gate_policy.hpp"
#include "compare/judgement.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/ranking.hpp"
#include "compare/rule_reach.hpp"
#include "compare/rule_set.hpp"
#include "compare/warm_up.hpp"
#include "formats/discover.hpp"
#include "input/git_source.hpp"
#include "profile/read_side.hpp"
#include "report/annotations.hpp"
#include "report/calibration_report.hpp"
#include "report/escape.hpp"
#include "report/html.hpp"
#include "report/inspect_report.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "report/provenance.hpp"
#include "report/ranking_report.hpp"
#include "report/report.hpp"
#include "report/terminal.hpp"
#include "store/baseline_store.hpp"
#include "store/digest_side.hpp"
#include "store/repository_state.hpp"
#include "util/atomic_file.hpp"
#include "util/date.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <ostream>

namespace neuron_gate {
namespace {

// The date waivers expire against (docs/user-guide.md "Rules"): --today, else SOURCE_DATE_EPOCH (Unix seconds, the
// reproducible-builds convention), else the clock; all UTC.
std::string today(const std::string& option) {
  if (!option.empty()) {
    if (!parse_iso_date(option)) {
      throw UsageError("--today must be a date YYYY-MM-DD, not \"" + option + "\"");
    }
    return option;
  }
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch != nullptr && *epoch != '\0') {
    const std::string text(epoch);
    if (text.size() > 15 || text.find_first_not_of("0123456789") != std::string::npos) {
      throw UsageError("SOURCE_DATE_EPOCH must be a number of seconds since 1970-01-01, not \"" + text + "\"");
    }
    return iso_date_from_unix_seconds(std::stoll(text));
  }
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

}  // namespace

void require_samples(const SideSamples& side) {
  if (side.traces.empty() && side.end_to_end.empty()) {
    std::size_t ignored = 0;
    for (const DiscoveredFile& file : side.inventory.files) {
      ignored += file.kind == FileKind::ignored ? 1 : 0;
    }
    throw InputError(side.inventory.spec, "no trace or end-to-end file found (" + std::to_string(ignored) +
                                              " files ignored; run `neuron-gate inspect` to see why)");
  }
}

RuleSet applied_rules(const std::string& rules_path, std::optional<SampleUnit> unit) {
  RuleSet rules = rules_path.empty() ? default_rules() : load_rules(rules_path);
  if (unit) {
    rules.unit = *unit;
  }
  return rules;
}

void add_git_state(const CompareOptions& options, const GitStateInputs& base_side, const GitStateInputs& head_side,
                   Provenance& provenance, OpenHypotheses& found) {
  const auto& [base, base_manifest, base_recorded] = base_side;
  const auto& [head, head_manifest, head_recorded] = head_side;
  if (!options.git) {
    return;
  }
  const RepositoryStates states = gather_repository_states(base, head, base_manifest, head_manifest, options.repository,
                                                           base_recorded, head_recorded);
  provenance.commits = states.sides;
  found.baseline_not_ancestor = baseline_not_ancestor(states);
}

namespace {

// How far run_compare checked the report destinations when an error stopped it.
enum class Checked { nothing, destinations, everything };

// On a usage or input error, the one ::error annotation (annotations.hpp), where writing it cannot
// replace an input or another report: the destinations were checked (distinct, writable) and the path
// was checked against the inputs, or nothing was there. A failure to write it leaves the error as it is.
void annotate_error(const CompareOptions& options, Checked checked, const char* message) {
  std::error_code ec;
  if (options.annotations_path.empty() || checked == Checked::nothing ||
      (checked == Checked::destinations && std::filesystem::exists(options.annotations_path, ec))) {
    return;
  }
  try {
    write_file_atomically(options.annotations_path, error_annotation(message));
  } catch (const std::exception&) {
  }
}

// BASE `git:REF:@merge-base`: the stored baseline in REF nearest the head commit (baseline_store.hpp).
std::optional<FoundBaseline> stored_baseline_for(const CompareOptions& options) {
  if (!is_git_spec(options.base)) {
    return std::nullopt;
  }
  const GitSpec spec = parse_git_spec(options.base);
  if (spec.path != k_nearest_baseline_path) {
    return std::nullopt;
  }
  return find_nearest_baseline(options.base, options.repository, spec.ref, options.head_commit, options.base_commit);
}

// Under --base-commit a stored digest is accepted only when the commit its own git state records is the
// commit it is stored for: a digest of other code saved under the base's name is refused.
void check_recorded_commit(const FoundBaseline& stored, const std::optional<RecordedRepository>& recorded) {
  if (!stored.from_base_commit) {
    return;
  }
  const std::string commit = recorded && recorded->state ? recorded->state->commit : "";
  if (commit != stored.commit) {
    throw InputError(stored.spec, "the digest stored for commit " + stored.commit + " records " +
                                      (commit.empty() ? std::string("no commit") : "commit " + commit) +
                                      ": under --base-commit a stored baseline must record the commit it is "
                                      "stored for (save it with `neuron-gate baseline save` in a checkout of "
                                      "that commit)");
  }
}

// The comparison once every destination is checked: read, compare, decide, render, write.
int compare_checked(const CompareOptions& options, const RuleSet& rules, const std::string& today_date,
                    const ProfileInventory& base_inventory, const ProfileInventory& head_inventory,
                    const std::optional<FoundBaseline>& stored, std::ostream& out) {
  const std::vector<OperatingPointFiles> base_points = split_operating_points(base_inventory);
  const std::vector<OperatingPointFiles> head_points = split_operating_points(head_inventory);
  if (compare_per_point(base_points, head_points)) {
    return compare_points(options, rules, today_date, base_points, head_points, out);
  }
  TraceReadOptions read_options;
  read_options.by_shape = options.by_shape;
  const SideToRead to_read[] = {{"base", &base_inventory}, {"head", &head_inventory}};
  std::vector<std::optional<RecordedRepository>> recorded;  // a digest's git state, beside its samples
  std::vector<SideSamples> sides = load_sides(to_read, read_options, {}, &recorded);  // both sides in parallel
  SideSamples& base = sides[0];
  SideSamples& head = sides[1];
  if (stored) {
    check_recorded_commit(*stored, recorded[0]);
  }
  require_samples(base);
  require_samples(head);
  require_rules_within_reach(base, rules);
  const std::optional<WarmUpFinding> warm_up = leave_out_warm_up_traces(base, head);
  add_cost_metrics(base, head, rules);  // cost per unit of work beside latency and throughput (cost.hpp)

  std::vector<std::string> allowed = rules.allow_mismatch;
  allowed.insert(allowed.end(), options.allow_mismatch.begin(), options.allow_mismatch.end());
  ConditionsDiff conditions = diff_conditions(fingerprint_side(base), fingerprint_side(head), allowed);
  const std::optional<Calibration> calibration = conditions.comparable() ? base_calibration(base, rules) : std::nullopt;
  // Measured in place (judged where they are made); then the sides' per-op samples are not read again:
  // their report facts are taken and the samples freed, not held beside every judged metric.
  std::vector<MetricComparison> measurements =
      conditions.comparable() ? compare_metrics_in_place(base, head, rules) : std::vector<MetricComparison>{};
  SideFacts base_facts = side_facts(base, rules.drop_first_steps),
            head_facts = side_facts(head, rules.drop_first_steps);
  release_op_samples(base);
  release_op_samples(head);
  Judgement judgement = judge_comparison(std::move(measurements), conditions, rules, options.strict, today_date,
                                         calibration, device_time_missing(base, head));
  Findings findings = find_findings(base, head, conditions, judgement, rules);
  add_warm_up_screen(findings.open_hypotheses, warm_up);
  if (conditions.comparable()) {
    add_noise_findings(base, head, rules, judgement.metrics, calibration, findings.open_hypotheses);
  }

  // The sides' own inventories: for a digest, the files it was made of (with their sizes and hashes).
  Provenance provenance = collect_provenance(base.inventory, head.inventory, rules.source, applied_rules_json(rules));
  provenance.rules_from = options.rules_from;
  provenance.stored_baseline = stored;
  if (calibration) {
    provenance.noise_check = noise_check_of(*calibration);
  }
  // The sides' git state: a digest's as recorded when it was made (load_sides' `recorded`); a stored
  // baseline's commit is the one it profiles, not the baseline ref's nor the one it was saved from.
  if (stored) {
    ProfileInventory base_git = base_inventory;
    base_git.git_commit = stored->commit;
    add_git_state(options, {base_git, base.manifest, std::nullopt}, {head.inventory, head.manifest, recorded[1]},
                  provenance, findings.open_hypotheses);
  } else {
    add_git_state(options, {base.inventory, base.manifest, recorded[0]}, {head.inventory, head.manifest, recorded[1]},
                  provenance, findings.open_hypotheses);
  }
  const Report report = build_report(base, head, std::move(base_facts), std::move(head_facts), std::move(conditions),
                                     std::move(judgement), findings, rules, std::move(provenance));
  write_reports(options, report, out);
  return report.decision.exit_code;
}

}  // namespace

int run_compare(const CompareOptions& options, std::ostream& out) {
  Checked checked = Checked::nothing;
  try {
    if (!options.comment_key.empty() && !comment_key_problem(options.comment_key).empty()) {
      throw UsageError("--comment-key: " + comment_key_problem(options.comment_key) + ", not \"" +
                       escape_terminal(options.comment_key) + "\"");
    }
    check_output_destinations(options);
    checked = Checked::destinations;
    const RuleSet rules = applied_rules(options.rules_path, options.unit);
    const std::string today_date = today(options.today);
    check_waiver_expiry(rules, today_date);
    const std::optional<FoundBaseline> stored = stored_baseline_for(options);
    const ProfileInventory base_inventory = discover_profile(stored ? stored->spec : options.base, options.repository);
    const ProfileInventory head_inventory = discover_profile(options.head, options.repository);
    check_outputs_not_inputs(options, base_inventory, head_inventory);
    checked = Checked::everything;
    return compare_checked(options, rules, today_date, base_inventory, head_inventory, stored, out);
  } catch (const InputError& error) {
    annotate_error(options, checked, error.what());
    throw;
  } catch (const UsageError& error) {
    annotate_error(options, checked, error.what());
    throw;
  }
}

int run_calibrate(const CalibrateOptions& options, std::ostream& out) {
  const RuleSet rules = applied_rules(options.rules_path, options.unit);
  const ProfileInventory inventory = discover_profile(options.profile, options.repository);
  check_output_path(options.json_path, {&inventory}, options.rules_path);
  const SideSamples side = load_side("profile", inventory, TraceReadOptions{});
  require_samples(side);
  CalibrationOptions calibration_options;
  calibration_options.splits = options.splits;
  calibration_options.seed = options.seed;
  const Calibration calibration = calibrate(side, rules, calibration_options);
  const std::string markdown = render_calibration_markdown(calibration, rules);
  if (!options.json_path.empty()) {
    write_file_atomically(options.json_path, render_calibration_json(calibration, rules));
  }
  write_stream(out, markdown, "stdout");
  return 0;
}

namespace {

// rank's report destinations: writable, distinct, none an input or the rules file.
void check_rank_outputs(const RankOptions& options, const std::vector<ProfileInventory>& inventories) {
  const std::vector<std::string> paths{options.markdown_path, options.json_path, options.html_path};
  std::vector<const ProfileInventory*> inputs;
  for (const ProfileInventory& inventory : inventories) {
    inputs.push_back(&inventory);
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (std::size_t j = 0; j < i && !paths[i].empty(); ++j) {
      if (!paths[j].empty() && (paths[i] == paths[j] || same_file(paths[i], paths[j]))) {
        throw UsageError("two reports would be written to one file: \"" + paths[j] + "\" and \"" + paths[i] + "\"");
      }
    }
    check_output_path(paths[i], inputs, options.rules_path);
  }
}

}  // namespace

int run_rank(const RankOptions& options, std::ostream& out) {
  for (const std::string& path : {options.markdown_path, options.json_path, options.html_path}) {
    if (!path.empty()) {
      check_writable_destination(path);
    }
  }
  const RuleSet rules = applied_rules(options.rules_path, options.unit);
  std::vector<std::string> specs{options.base};
  specs.insert(specs.end(), options.alternatives.begin(), options.alternatives.end());
  std::vector<ProfileInventory> inventories;
  for (const std::string& spec : specs) {
    inventories.push_back(discover_profile(spec, options.repository));
  }
  check_rank_outputs(options, inventories);
  TraceReadOptions read_options;
  read_options.by_shape = options.by_shape;
  std::vector<SideToRead> to_read;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    to_read.push_back({i == 0 ? "base" : "alternative " + std::to_string(i), &inventories[i]});
  }
  std::vector<SideSamples> sides = load_sides(to_read, read_options, require_samples);
  std::vector<SideSamples*> alternatives;
  for (std::size_t i = 1; i < sides.size(); ++i) {
    alternatives.push_back(&sides[i]);
  }
  // Base's warm-up cycles are left out of every profile's traces, as compare leaves them out of both sides.
  const std::optional<WarmUpFinding> warm_up = leave_out_warm_up_traces(sides.front(), alternatives);
  std::vector<std::string> allowed = rules.allow_mismatch;
  allowed.insert(allowed.end(), options.allow_mismatch.begin(), options.allow_mismatch.end());
  // Alternatives differ in how they are compiled by design: the ranking shows each one's compilation path.
  allowed.emplace_back("manifest.compilation_path");
  const Fingerprint base_fingerprint = fingerprint_side(sides.front());
  std::vector<RankInput> inputs;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    ConditionsDiff conditions =
        i == 0 ? ConditionsDiff{} : diff_conditions(base_fingerprint, fingerprint_side(sides[i]), allowed);
    add_side_cost_metrics(sides[i], rules);  // after the conditions: a price is not one (docs/user-guide.md "Cost")
    inputs.push_back(RankInput{specs[i], &sides[i], std::move(conditions)});
  }
  Ranking ranking = rank_profiles(inputs, rules, options.metric);
  if (warm_up && ranking.step_total) {
    ranking.warm_up_ratio = warm_up->ratio;
  }
  const std::string markdown = render_ranking_markdown(ranking, rules);
  if (!options.json_path.empty()) {
    write_file_atomically(options.json_path, render_ranking_json(ranking, rules));
  }
  if (!options.html_path.empty()) {
    write_file_atomically(options.html_path, render_ranking_html(ranking, rules));
  }
  if (!options.markdown_path.empty()) {
    write_file_atomically(options.markdown_path, markdown);
  } else if (!options.quiet) {
    write_stream(out, markdown, "stdout");
  }
  return ranking.unranked.empty() ? 0 : 3;
}

int run_inspect(const InspectOptions& options, std::ostream& out) {
  const ProfileInventory inventory = discover_profile(options.profile, options.repository);
  TraceReadOptions read_options;
  read_options.by_shape = options.by_shape;
  // A side of several operating points: each point's inventory in turn, under its own folder's name.
  const std::vector<OperatingPointFiles> points = split_operating_points(inventory);
  std::string text;
  for (const OperatingPointFiles& point : points) {
    const SideSamples side = load_side("profile", point.inventory, read_options);
    text += render_inspect(points.size() > 1 ? point.inventory.spec : options.profile, side, fingerprint_side(side));
  }
  write_stream(out, text, "stdout");
  return 0;
}

std::string terminal_text(std::string_view message) {
  return escape_terminal(message);
}

}  // namespace neuron_gate
