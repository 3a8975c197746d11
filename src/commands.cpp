#include "commands.hpp"

#include "compare/calibration.hpp"
#include "compare/conditions.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"
#include "compare/verdict.hpp"
#include "profile/discover.hpp"
#include "profile/ranks.hpp"
#include "profile/read_side.hpp"
#include "report/annotations.hpp"
#include "report/calibration_report.hpp"
#include "report/escape.hpp"
#include "report/html.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "report/number_format.hpp"
#include "report/provenance.hpp"
#include "report/report.hpp"
#include "stats/descriptive.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>

namespace neuron_gate {
namespace {

std::string today() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

// Refuses an output path that is one of the inputs: reports never overwrite a profile.
void check_output_path(const std::string& output, const std::vector<const ProfileInventory*>& inputs,
                       const std::string& rules_path) {
  if (output.empty()) {
    return;
  }
  for (const ProfileInventory* inventory : inputs) {
    for (const DiscoveredFile& file : inventory->files) {
      if (same_file(output, file.path)) {
        throw UsageError("refusing to write a report over an input file: \"" + output + "\"");
      }
    }
  }
  if (!rules_path.empty() && same_file(output, rules_path)) {
    throw UsageError("refusing to write a report over the rules file: \"" + output + "\"");
  }
}

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

// Inspect: the rank of each trace, the Neuron capture folders with their problems, and the unverified
// readings (NEURON-FORMATS.md) the result rests on.
void write_ranks_and_captures(const SideSamples& side, std::ostream& out) {
  if (distinct_ranks(side.traces).size() > 1 ||
      std::any_of(side.traces.begin(), side.traces.end(), [](const TraceSamples& t) { return t.rank.has_value(); })) {
    out << "\n## Ranks\n\n";
    for (const TraceSamples& trace : side.traces) {
      std::string shown = trace.path;  // relative to the profile, as under Files
      for (const DiscoveredFile& file : side.inventory.files) {
        shown = file.path == trace.path ? file.relative_path : shown;
      }
      out << "- " << markdown_code(shown, false) << ": " << rank_name(trace.rank)
          << (trace.rank_source.empty() ? std::string() : " (from " + escape_markdown(trace.rank_source) + ")") << "\n";
    }
  }
  if (!side.neuron.captures.empty()) {
    out << "\n## Neuron captures\n\n";
    for (const NeuronCapture& capture : side.neuron.captures) {
      out << "- " << markdown_code(capture.folder, false);
      if (capture.rank) {
        out << " (process " << capture.rank->pid << " on " << escape_markdown(capture.rank->instance_id) << ")";
      }
      out << ": " << capture.neffs.size() << " NEFF, " << capture.ntffs.size() << " NTFF, "
          << capture.framework_traces.size() << " framework trace" << (capture.framework_traces.size() == 1 ? "" : "s")
          << (capture.problems.empty() ? ", complete" : "") << "\n";
      for (const std::string& problem : capture.problems) {
        out << "  - problem: " << markdown_spans(problem, false) << "\n";
      }
    }
  }
  std::vector<std::string> assumptions = side.neuron.assumptions;
  for (std::string& assumption : rank_assumptions(side.traces)) {
    assumptions.push_back(std::move(assumption));
  }
  if (!side.neuron.captures.empty()) {
    assumptions.push_back("NEFF, NTFF and .pb files are opaque: only their names and sizes are checked; device time "
                          "comes from device events in the trace (TorchNeuron's trace.json may hold none) or from a "
                          "neuron-explorer summary");
  }
  if (!assumptions.empty()) {
    out << "\n## Assumptions\n\nNeuron details that NEURON-FORMATS.md marks unverified, and how they were read:\n\n";
    for (const std::string& assumption : assumptions) {
      out << "- " << markdown_spans(assumption, false) << "\n";
    }
  }
}

// --unit overrides the rules' `unit`.
void apply_unit(RuleSet& rules, const std::string& unit) {
  if (unit.empty()) {
    return;
  }
  const std::optional<SampleUnit> parsed = parse_sample_unit(unit);
  if (!parsed) {
    throw UsageError("--unit must be \"step\" or \"run\", not \"" + unit + "\"");
  }
  rules.unit = *parsed;
}

// Random halvings of base behind compare's noise-floor warning: few, so compare stays fast
// (README "Statistics and verdicts").
constexpr std::size_t k_compare_noise_splits = 20;

// The open hypothesis naming gating metrics whose threshold sits below base's own A/A noise, when
// base has runs enough to split (4, or 6 under unit run).
std::optional<std::string> base_noise_warning(const SideSamples& base, const RuleSet& rules,
                                              const std::vector<MetricComparison>& metrics) {
  const bool any_gating = std::any_of(metrics.begin(), metrics.end(), [](const MetricComparison& m) { return m.gating; });
  const std::size_t needed = rules.unit == SampleUnit::run ? 2 * k_min_runs_for_run_unit : 4;
  if (!any_gating || side_runs(base).size() < needed) {
    return std::nullopt;
  }
  CalibrationOptions calibration_options;
  calibration_options.splits = k_compare_noise_splits;
  return noise_floor_hypothesis(calibrate(base, rules, calibration_options), metrics);
}


// Refuses output paths that are inputs, unwritable, or one file twice.
void check_output_paths(const CompareOptions& options, const ProfileInventory& base_inventory,
                        const ProfileInventory& head_inventory) {
  const std::vector<std::string> output_paths{options.markdown_path, options.json_path, options.html_path,
                                              options.junit_path, options.annotations_path};
  for (std::size_t i = 0; i < output_paths.size(); ++i) {
    check_output_path(output_paths[i], {&base_inventory, &head_inventory}, options.rules_path);
    if (!output_paths[i].empty()) {
      check_writable_destination(output_paths[i]);
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (!output_paths[i].empty() && (output_paths[i] == output_paths[j] || same_file(output_paths[i], output_paths[j]))) {
        throw UsageError("two reports would be written to one file: \"" + output_paths[i] + "\"");
      }
    }
  }
}

// The comparison once the output paths are checked: read, compare, decide, render, write.
int compare_checked(const CompareOptions& options, const RuleSet& rules, const ProfileInventory& base_inventory,
                    const ProfileInventory& head_inventory, std::ostream& out) {
  TraceReadOptions read_options;
  read_options.by_shape = options.by_shape;
  const SideSamples base = read_side("base", base_inventory, read_options);
  const SideSamples head = read_side("head", head_inventory, read_options);
  require_samples(base);
  require_samples(head);

  std::vector<std::string> allowed = rules.allow_mismatch;
  allowed.insert(allowed.end(), options.allow_mismatch.begin(), options.allow_mismatch.end());
  ConditionsDiff conditions = diff_conditions(fingerprint_side(base), fingerprint_side(head), allowed);

  std::vector<MetricComparison> metrics;
  if (conditions.comparable()) {
    metrics = compare_metrics(base, head, rules);
  }
  DecideOptions decide_options;
  decide_options.strict = options.strict;
  decide_options.today = today();
  Decision decision = decide(metrics, conditions, rules, decide_options);
  std::size_t gating_metrics = 0;
  for (const auto& [verdict, count] : decision.gating_counts) {
    gating_metrics += count;
  }
  if (conditions.comparable() && gating_metrics == 0) {
    // Nothing was tested: never a pass in disguise.
    throw UsageError("nothing to gate: no gating metric has samples on both sides after the rules (" +
                     rules.source + ": ignore, drop_first_steps, gate) were applied; run `neuron-gate inspect` "
                     "on each side and check the rules");
  }

  Provenance provenance = collect_provenance(base_inventory, head_inventory, rules.source, rules.text);
  if (!options.git) {
    provenance.commits.clear();
  }
  std::optional<std::string> noise_warning;
  if (conditions.comparable()) {
    noise_warning = base_noise_warning(base, rules, metrics);
  }
  Report report = build_report(base, head, std::move(conditions), std::move(metrics), std::move(decision), rules,
                                     std::move(provenance));
  if (noise_warning) {
    report.open_hypotheses.push_back(*noise_warning);
  }

  const std::string markdown = render_markdown(report);
  // Every report is rendered before any is written, so a rendering error leaves none half done.
  struct Output {
    const std::string& path;
    std::string text;
  };
  std::vector<Output> outputs;
  if (!options.json_path.empty()) {
    outputs.push_back({options.json_path, render_json(report)});
  }
  if (!options.html_path.empty()) {
    outputs.push_back({options.html_path, render_html(report)});
  }
  if (!options.junit_path.empty()) {
    outputs.push_back({options.junit_path, render_junit(report)});
  }
  if (!options.annotations_path.empty()) {
    outputs.push_back({options.annotations_path, render_annotations(report)});
  }
  for (const Output& output : outputs) {
    write_file_atomically(output.path, output.text);
  }
  if (!options.markdown_path.empty()) {
    write_file_atomically(options.markdown_path, markdown);
  } else if (!options.quiet) {
    out << markdown;
  }
  return static_cast<int>(report.outcome);
}

// On a usage or input error, the one ::error annotation, where writing it cannot replace an input:
// the path was checked, or nothing was there. A failure to write it leaves the error as it is.
void annotate_error(const CompareOptions& options, bool checked, const char* message) {
  if (options.annotations_path.empty() || (!checked && std::filesystem::exists(options.annotations_path))) {
    return;
  }
  try {
    write_file_atomically(options.annotations_path, error_annotation(message));
  } catch (const std::exception&) {
  }
}

} // namespace

int run_compare(const CompareOptions& options, std::ostream& out) {
  bool checked = false;
  try {
    RuleSet rules = options.rules_path.empty() ? default_rules() : load_rules(options.rules_path);
    apply_unit(rules, options.unit);
    const ProfileInventory base_inventory = discover_profile(options.base);
    const ProfileInventory head_inventory = discover_profile(options.head);
    check_output_paths(options, base_inventory, head_inventory);
    checked = true;
    return compare_checked(options, rules, base_inventory, head_inventory, out);
  } catch (const InputError& error) {
    annotate_error(options, checked, error.what());
    throw;
  } catch (const UsageError& error) {
    annotate_error(options, checked, error.what());
    throw;
  }
}

int run_calibrate(const CalibrateOptions& options, std::ostream& out) {
  RuleSet rules = options.rules_path.empty() ? default_rules() : load_rules(options.rules_path);
  apply_unit(rules, options.unit);
  const ProfileInventory inventory = discover_profile(options.profile);
  check_output_path(options.json_path, {&inventory}, options.rules_path);
  const SideSamples side = read_side("profile", inventory, TraceReadOptions{});
  require_samples(side);
  CalibrationOptions calibration_options;
  calibration_options.splits = options.splits;
  calibration_options.seed = options.seed;
  const Calibration calibration = calibrate(side, rules, calibration_options);
  const std::string markdown = render_calibration_markdown(calibration, rules);
  if (!options.json_path.empty()) {
    write_file_atomically(options.json_path, render_calibration_json(calibration, rules));
  }
  out << markdown;
  return 0;
}

int run_inspect(const InspectOptions& options, std::ostream& out) {
  const ProfileInventory inventory = discover_profile(options.profile);
  TraceReadOptions read_options;
  read_options.by_shape = options.by_shape;
  const SideSamples side = read_side("profile", inventory, read_options);

  out << "# neuron-gate inspect " << escape_markdown(options.profile) << "\n\n## Files\n\n";
  for (const DiscoveredFile& file : inventory.files) {
    out << "- " << markdown_code(file.relative_path, false) << " (" << file.size_bytes
        << " bytes): " << file_kind_name(file.kind);
    if (!file.ignored_reason.empty()) {
      out << " — " << markdown_spans(file.ignored_reason, false);
    }
    if (const auto detail = side.file_details.find(file.relative_path); detail != side.file_details.end()) {
      out << " (" << markdown_spans(detail->second, false) << ")";
    }
    out << "\n";
  }
  out << "\n## Conditions (fingerprint)\n\n";
  for (const auto& [name, value] : fingerprint_side(side).values) {
    out << "- " << escape_markdown(name) << ": " << markdown_spans(value, false) << "\n";
  }
  write_ranks_and_captures(side, out);

  out << "\n## Data problems\n\n";
  bool any_problem = false;
  std::int64_t outside = 0;
  for (const TraceSamples& trace : side.traces) {
    for (const auto& [name, values] : trace.outside_steps.ops) {
      outside += values.calls;
    }
    const TraceDataProblems& p = trace.problems;
    if (p.negative_duration_events > 0 || p.unfinished_events > 0 || !p.negative_self_time.empty()) {
      any_problem = true;
      out << "- " << markdown_code(trace.path, false) << ": " << p.negative_duration_events << " negative-duration events excluded, "
          << p.unfinished_events << " unfinished events (dur -1) excluded";
      for (const auto& [name, ns] : p.negative_self_time) {
        out << "; negative self time " << markdown_code(name, false) << " " << format_duration_us(static_cast<double>(ns) / 1000.0);
      }
      out << "\n";
    }
  }
  for (const std::string& warning : side.read_warnings) {
    any_problem = true;
    out << "- " << markdown_spans(warning, false) << "\n";
  }
  if (!any_problem) {
    out << "None found.\n";
  }
  out << "\n" << outside << " op calls started outside every ProfilerStep window (counted, never compared).\n";

  for (const EndToEndMetric& metric : side.end_to_end) {
    out << "\nEnd-to-end " << markdown_code(metric.name, false) << ": " << metric.samples.size() << " samples, median "
        << format_significant(median(metric.samples), 4) << " " << escape_markdown(metric.unit) << " ("
        << (metric.better == Better::lower ? "lower" : "higher") << " is better)\n";
  }

  const std::vector<StepSample> steps = sample_steps(side, 0);
  out << "\n## Ops (median per step over " << steps.size() << " steps)\n\n";
  out << "| op | self CPU | device | calls | steps with the op |\n|---|--:|--:|--:|--:|\n";
  std::set<std::string> names;
  for (const StepSample& step : steps) {
    for (const auto& [name, values] : step.ops) {
      names.insert(name);
    }
  }
  for (const std::string& name : names) {
    std::vector<double> self_cpu, device, calls;
    std::size_t present = 0;
    for (const StepSample& step : steps) {
      auto it = step.ops.find(name);
      const OpValues values = it == step.ops.end() ? OpValues{} : it->second;
      present += it == step.ops.end() ? std::size_t{0} : std::size_t{1};
      self_cpu.push_back(static_cast<double>(values.self_cpu_ns) / 1000.0);
      device.push_back(static_cast<double>(values.device_ns) / 1000.0);
      calls.push_back(static_cast<double>(values.calls));
    }
    out << "| " << markdown_code(name, true) << " | " << format_duration_us(median(self_cpu)) << " | " << format_duration_us(median(device))
        << " | " << format_significant(median(calls), 3) << " | " << present << " |\n";
  }
  return 0;
}

} // namespace neuron_gate
