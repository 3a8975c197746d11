#include "report/calibration_report.hpp"

#include "compare/sampling_plan.hpp"
#include "report/escape.hpp"
#include "report/json.hpp"
#include "report/number_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace neuron_gate {
namespace {

using ordered = nlohmann::ordered_json;

// A fraction as a percentage: 0.0412 -> "4.12%" (number_format.hpp format_percent).
std::string percent(std::optional<double> fraction) {
  return format_percent(fraction);
}

std::string what_was_split(const Calibration& c) {
  const std::string word = c.split_by == SplitBy::runs ? "run" : "trace";
  const std::size_t total = c.half_a + c.half_b;
  if (total == 0) {
    return "end-to-end samples only";
  }
  std::string text =
      std::to_string(total) + " " + word + "s into " + std::to_string(c.half_a) + " vs " + std::to_string(c.half_b);
  if (c.split_by == SplitBy::traces) {
    text += " (fewer than " + std::to_string(sampling_plan().noise_check) +
            " runs: traces of one run land in both halves, so run-to-run noise is not sampled)";
  }
  return text;
}

// Metrics flagged first, then by noise floor, largest first.
std::vector<const NoiseFloor*> ranked(const Calibration& c) {
  std::vector<const NoiseFloor*> rows;
  for (const NoiseFloor& m : c.metrics) {
    rows.push_back(&m);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const NoiseFloor* a, const NoiseFloor* b) {
    if (a->threshold_below_noise != b->threshold_below_noise) {
      return a->threshold_below_noise;
    }
    return a->noise_floor.value_or(-1.0) > b->noise_floor.value_or(-1.0);
  });
  return rows;
}

}  // namespace

std::string render_calibration_markdown(const Calibration& c, const RuleSet& rules) {
  std::string text = "## neuron-gate calibrate\n\n";
  text += "Profile " + markdown_code(c.spec, false) + " · unit: " + sample_unit_description(c.unit) + " · " +
          std::to_string(c.splits) + " random A/A splits of " + what_was_split(c) + " · seed " +
          std::to_string(c.seed) + "\n\n";
  text += "**False-alarm rate: " + percent(c.false_alarm_rate.estimate) + "** (" + std::to_string(c.failing_splits) +
          " of " + std::to_string(c.splits) + " splits would fail the gate; 95% CI " + percent(c.false_alarm_rate.low) +
          "–" + percent(c.false_alarm_rate.high) + ", Clopper–Pearson) · alpha " + format_number(c.alpha) + "\n\n";
  std::vector<std::string> gating;
  for (MetricClass m : c.gating_classes) {
    gating.push_back(metric_class_label(m));
  }
  std::string gating_text;
  for (std::size_t i = 0; i < gating.size(); ++i) {
    gating_text += (i == 0 ? "" : ", ") + gating[i];
  }
  text += "Gating: " + (gating_text.empty() ? std::string("no metric class") : gating_text) +
          " · rules: " + markdown_code(rules.source, false) + ", " + correction_name(rules.correction) + ", floor " +
          format_number(rules.floor_us) + " µs per op per step";
  const bool within_process =
      std::any_of(c.metrics.begin(), c.metrics.end(), [](const NoiseFloor& m) { return m.within_process; });
  if (within_process) {
    text += " · end-to-end samples of one process are split at random within it: their spread is not run-to-run "
            "noise, so no noise floor is given for them (list each process's samples under `runs` in e2e.json, "
            "4 or more runs, to split them by run)";
  } else if (c.end_to_end_samples > 0) {
    text += " · end-to-end samples are split by run";
  }
  text += "\n\n";

  text += "| class | splits with a REGRESSED metric | gating |\n|---|--:|---|\n";
  for (const auto& [metric_class, count] : c.regressed_splits_by_class) {
    const bool gates =
        std::find(c.gating_classes.begin(), c.gating_classes.end(), metric_class) != c.gating_classes.end();
    text += "| " + metric_class_label(metric_class) + " | " + std::to_string(count) + " of " +
            std::to_string(c.splits) + " | " + (gates ? "yes" : "no") + " |\n";
  }
  if (c.gating_never_decidable > 0) {
    text += "\n⚠️ " + std::to_string(c.gating_never_decidable) +
            (c.gating_never_decidable == 1 ? " gating metric was" : " gating metrics were") +
            " out of reach in every split: halves this small cannot reach a p below alpha / family size, so the "
            "false-alarm rate says nothing about " +
            (c.gating_never_decidable == 1 ? "it" : "them") +
            " (a full-size comparison has twice the samples per side).\n";
  }
  text += "\nBoth halves come from one side, so every REGRESSED here is a false alarm. A rate above alpha means the "
          "samples are not independent at this unit (or the noise is larger than the thresholds allow for): try "
          "`--unit run`, more runs, or larger thresholds.\n\n";

  std::size_t flagged = 0;
  for (const NoiseFloor& m : c.metrics) {
    flagged += m.threshold_below_noise ? 1 : 0;
  }
  text += "### Noise floor per metric\n\n";
  text += "Noise floor: the 95th percentile over the splits of |ratio − 1| between the halves (Hodges–Lehmann "
          "ratio, as the gate computes it). Each half holds about half the samples of a real comparison, so this "
          "overstates the noise of a full-size comparison by about √2. " +
          std::to_string(flagged) + (flagged == 1 ? " metric has" : " metrics have") +
          " a threshold below its noise floor" + (flagged > 0 ? " (⚠️, listed first)" : "") + ".\n\n";
  text += "| metric | class | gating | threshold | noise floor | median \\|ln ratio\\| | p95 \\|change\\| | REGRESSED "
          "in | |\n|---|---|---|--:|--:|--:|--:|--:|---|\n";
  for (const NoiseFloor* m : ranked(c)) {
    text += "| " + markdown_code(m->name) + " | " + metric_class_label(m->metric_class) + " | " +
            (m->gating ? "yes" : "no") + " | " + percent(m->threshold) + " | " +
            (m->within_process ? std::string("n/a (one process)") : percent(m->noise_floor)) + " | " +
            format_significant(m->median_abs_log_ratio) + " | " +
            escape_markdown(format_value(m->p95_abs_shift, m->unit)) + " | " + std::to_string(m->regressed) + " of " +
            std::to_string(c.splits) + " | " + (m->threshold_below_noise ? "⚠️ threshold below noise" : "") +
            " |\n";
  }
  return text;
}

std::string render_calibration_json(const Calibration& c, const RuleSet& rules) {
  auto number = [](const std::optional<double>& value) { return value ? ordered(*value) : ordered(nullptr); };
  ordered j;
  j["schema"] = "neuron-gate.calibration/1";
  j["profile"] = c.spec;
  j["unit"] = sample_unit_key(c.unit);
  j["split_by"] = c.split_by == SplitBy::runs ? "runs" : "traces";
  j["runs"] = c.runs;
  j["traces"] = c.traces;
  j["halves"] = {c.half_a, c.half_b};
  j["end_to_end_samples"] = c.end_to_end_samples;
  j["splits"] = c.splits;
  j["seed"] = c.seed;
  j["alpha"] = c.alpha;
  ordered gating = ordered::array();
  for (MetricClass m : c.gating_classes) {
    gating.push_back(metric_class_key(m));
  }
  j["gating_classes"] = gating;
  j["failing_splits"] = c.failing_splits;
  j["gating_never_decidable"] = c.gating_never_decidable;
  j["false_alarm_rate"] = {{"estimate", c.false_alarm_rate.estimate},
                           {"ci95", {c.false_alarm_rate.low, c.false_alarm_rate.high}},
                           {"method", "clopper-pearson"}};
  ordered by_class;
  for (const auto& [metric_class, count] : c.regressed_splits_by_class) {
    by_class[metric_class_key(metric_class)] = count;
  }
  j["regressed_splits_by_class"] = by_class;
  ordered metrics = ordered::array();
  for (const NoiseFloor& m : c.metrics) {
    ordered row;
    row["class"] = metric_class_key(m.metric_class);
    row["name"] = m.name;
    if (m.scope != MetricScope::op) {  // a sum per step of the class's ops (replacement_groups.hpp)
      row["scope"] = metric_scope_key(m.scope);
    }
    row["unit"] = m.unit;
    row["gating"] = m.gating;
    row["threshold"] = m.threshold;
    row["splits_with_ratio"] = m.splits;
    row["regressed_splits"] = m.regressed;
    row["unreachable_splits"] = m.unreachable;
    row["median_abs_log_ratio"] = number(m.median_abs_log_ratio);
    row["noise_floor"] = number(m.noise_floor);
    row["p95_abs_shift"] = number(m.p95_abs_shift);
    row["threshold_below_noise"] = m.threshold_below_noise;
    row["within_process"] = m.within_process;
    metrics.push_back(row);
  }
  j["metrics"] = metrics;
  j["rules"] = {{"source", rules.source},
                {"correction", correction_name(rules.correction)},
                {"floor_us", rules.floor_us},
                {"drop_first_steps", rules.drop_first_steps}};
  return dump_valid_json(j);
}

}  // namespace neuron_gate
