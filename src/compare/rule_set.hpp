#pragma once
// The rules a comparison is judged by (DESIGN.md section 5): loaded from JSON with comments, validated
// strictly (an unknown key or a bad value is an error naming the key).

#include "stats/multiple_testing.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The classes of metrics; each class that gates is its own multiple-testing family.
enum class MetricClass { end_to_end, device, self_cpu, step_time };

// "end_to_end", "device", "self_cpu", "step_time": the keys used in rules files and JSON reports.
const char* metric_class_key(MetricClass metric_class);

// Whether a metric class decides pass/fail.
enum class GateMode {
  automatic,  // "auto": end-to-end metrics decide where present; per-op metrics where not
  always,     // always decides
  never,      // reported only
};

// What one sample of an op's time (and of step time) is. docs/user-guide.md "Statistics and verdicts" says why
// `step` is the default; end-to-end metrics always keep their own samples.
enum class SampleUnit {
  step,  // one per ProfilerStep window (or whole trace): steps of one process are not independent
  run,   // one per run, i.e. per folder of traces: the median of that run's per-step values
};

// "step" or "run": the values of the rules key `unit` and of `--unit`.
const char* sample_unit_key(SampleUnit unit);

// For reports: "step (one sample per step)" or "run (one sample per run: the median of its steps)".
const char* sample_unit_description(SampleUnit unit);

// "step" -> step, "run" -> run; nullopt for any other text.
std::optional<SampleUnit> parse_sample_unit(std::string_view text);

// Threshold and gate mode of one metric class.
struct MetricClassRule {
  double threshold = 0.05;  // relative change that counts: 0.05 = 5%
  GateMode gate = GateMode::automatic;
  bool operator==(const MetricClassRule&) const = default;
};

// A per-op threshold for ops whose name matches `pattern` (glob).
struct OpRule {
  std::string pattern;
  double threshold = 0.05;
  bool operator==(const OpRule&) const = default;
};

// An accepted regression: ops (or metrics) matching `pattern` do not fail the gate until `expires`.
// parse_rules requires a non-empty reason, a real date, and a pattern that is not a catch-all;
// check_waiver_expiry bounds the date by the rules' max_waiver_days.
struct Waiver {
  std::string pattern;
  std::string reason;
  std::string expires;  // YYYY-MM-DD, inclusive
  bool operator==(const Waiver&) const = default;
};

// A complete, validated rule set.
struct RuleSet {
  double alpha = 0.05;
  Correction correction = Correction::holm;
  MetricClassRule end_to_end{0.05, GateMode::automatic};
  MetricClassRule device{0.05, GateMode::automatic};
  MetricClassRule self_cpu{0.05, GateMode::automatic};
  MetricClassRule step_time{0.05, GateMode::never};
  double floor_us = 1.0;  // µs per step
  // Per-op metrics form the correction family and gate only when material: base's median per step is at
  // least this share of base's median step time (self CPU) or of base's device time per step (device
  // time). 0 makes every op material. docs/user-guide.md "Statistics and verdicts" (issue 14 item 1).
  double material_share = 0.01;
  // End-to-end samples of too few processes (a side with fewer than 5 runs, judgement.hpp) gate only when
  // the change also exceeds this: the same code re-measured in another process differs by up to ~8%.
  double between_run_allowance = 0.10;
  // Events the event screen excluded (profile/event_screen.hpp) may carry at most this share of a side's
  // device or self CPU time; beyond it the metrics of that kind are INCONCLUSIVE (data_incomplete).
  double max_excluded_share = 0.01;
  // Runtime calls (cudaLaunchKernel, nrt_execute, ...) are a family of their own (judgement.hpp
  // Family::runtime_calls), reported and never gating unless this is set (issue 38 item 6).
  bool gate_runtime_calls = false;
  std::vector<std::string> ignore{"ProfilerStep*"};
  std::vector<OpRule> ops;
  std::size_t drop_first_steps = 0;
  SampleUnit unit = SampleUnit::step;  // rules key `unit`; `--unit` overrides it
  std::vector<std::string> allow_mismatch;
  std::vector<Waiver> waivers;
  // Rules key `price_per_hour`: USD per instance-hour for every side (wins over the manifests'); with a
  // throughput metric it gives cost per unit of work (compare/cost.hpp). nullopt = not set.
  std::optional<double> price_per_hour;
  int max_waiver_days = 90;  // rules key `max_waiver_days`: a waiver may expire at most this many days after today
  std::string source;        // file path, or "built-in rules/default.json"
  std::string text;          // the exact text read (hashed for provenance)
  bool operator==(const RuleSet&) const = default;

  // The rule of one metric class.
  const MetricClassRule& rule_for(MetricClass metric_class) const;
  // Threshold for an op metric: the first matching `ops` pattern, else the class threshold.
  double threshold_for(MetricClass metric_class, std::string_view op_name) const;
  // True when `op_name` matches an `ignore` pattern.
  bool is_ignored(std::string_view op_name) const;
  // The waiver covering `name` on `today` (YYYY-MM-DD), if any.
  const Waiver* waiver_for(std::string_view name, std::string_view today) const;
};

// Parses rules JSON (comments allowed). `source` names the file in errors. Throws InputError
// "SOURCE[:byte N]: ..." for malformed JSON, an unknown key (with a did-you-mean), or a bad value.
RuleSet parse_rules(std::string_view text, const std::string& source);

// True for a pattern made only of '*' and '?' with at least one '*' ("*", "**", "?*", "???*"): it covers
// every name (at least as long as its '?'s), so it is refused in `waivers` and `ignore` (a pull request must not switch
// the gate off wholesale).
bool is_catch_all_pattern(std::string_view pattern);

// Checks every waiver's expiry against `today` (YYYY-MM-DD, from --today, SOURCE_DATE_EPOCH or the
// clock): throws InputError naming rules.source, the waiver and both dates when a waiver expires more
// than rules.max_waiver_days after today. Expired waivers are not an error (they no longer apply).
void check_waiver_expiry(const RuleSet& rules, std::string_view today);

// Reads and parses a rules file; throws InputError when it cannot be read or parsed.
RuleSet load_rules(const std::string& path);

// The rules shipped as rules/default.json, compiled into the binary.
RuleSet default_rules();

// The rules as applied (after command-line overrides such as --unit), as a rules file: schema
// neuron-gate.rules/1, every key in a fixed order, no comments, 2-space indent. parse_rules of it gives
// the same rules (source and text aside). Its sha256 is a report's rules hash, so equal hashes mean
// equal rules applied, whatever file or override they came from.
std::string applied_rules_json(const RuleSet& rules);

}  // namespace neuron_gate
