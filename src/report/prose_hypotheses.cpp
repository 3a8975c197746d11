// Open hypotheses (compare/findings.hpp) as report text, one line each, in the order found.
#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "report/prose.hpp"
#include "report/prose_parts.hpp"
#include "util/units.hpp"

namespace neuron_gate {
namespace {

using Metrics = std::vector<MetricComparison>;
using prose::count_of;
using prose::join;
using prose::metric_label;

std::string short_commit(const std::string& commit) {
  return prose_code(commit.substr(0, 12));
}

std::string baseline_text(const Ancestry& a) {
  const std::string base_from = a.base_from_manifest ? " (from its run manifest)" : "";
  const std::string head_from = a.head_from_manifest ? " (from its run manifest)" : "";
  std::string history = a.merge_base.empty()
                            ? "the two share no history"
                            : "their merge base is " + short_commit(a.merge_base) + ", and base holds " +
                                  count_of(a.base_only, "commit", "commits") + " head does not (head holds " +
                                  count_of(a.head_only, "commit", "commits") + " base does not)";
  return "Base is not an ancestor of head: base profiled commit " + short_commit(a.base_commit) + base_from +
         ", head " + short_commit(a.head_commit) + head_from + "; " + history +
         ". A difference may come from base's own commits rather than from head's change. Test: profile the merge "
         "base as the baseline (or rebase head onto base) and compare again.";
}

std::string accepted_text(const ConditionDifference& d) {
  return "Accepted difference in " + prose_code(d.name) + " (base: " + prose_text(d.base) +
         "; head: " + prose_text(d.head) +
         "): the verdicts assume it does not change what is measured. Test: profile both sides "
         "with the same " +
         prose_code(d.name) + " and see whether the verdicts hold.";
}

std::string insufficient_text(const InsufficientFinding& f) {
  return std::to_string(f.insufficient) + " of " + std::to_string(f.gating_total) +
         " gating metrics are INSUFFICIENT: with " + std::to_string(f.base_samples) + " vs " +
         std::to_string(f.head_samples) + " samples no outcome can pass the corrected alpha. Test: capture at least " +
         std::to_string(f.samples_needed) +
         " samples per side (more active steps in the profiler schedule, or more runs).";
}

std::string inconclusive_text(const Metrics& metrics, const std::vector<std::size_t>& indices) {
  std::vector<std::string> items;
  for (std::size_t i : indices) {
    const MetricComparison& m = metrics[i];
    std::string text = metric_label(m) + " " + format_change_with_ci(m.ratio, m.ratio_low, m.ratio_high);
    if (m.minimum_detectable_ratio) {
      // The detectable ratio r (> 1) in the direction of the change: a fall reads 1/r (-28.3%, not +39.5%).
      const bool falls = m.ratio && *m.ratio < 1.0;
      text += ", smallest change detectable at this noise " +
              format_change(falls ? 1.0 / *m.minimum_detectable_ratio : *m.minimum_detectable_ratio);
    }
    items.push_back(text);
  }
  return "Not established (INCONCLUSIVE): " + join(items, 6, "; ") +
         ". Test: more samples per side, or a quieter machine.";
}

std::string whole_run_shift_text(const WholeRunShiftFinding& shift) {
  return "Not established that the code moved " + std::to_string(shift.along.size()) + " ops by " +
         format_change(shift.factor) +
         " together: a clock, power or environment change does that. Test: "
         "interleave base and head runs on one instance, and compare the run manifests' environment (instance "
         "type, driver, clocks); if the shift goes away, it was the environment.";
}

std::string single_trace_text(const SingleTraceFinding& f) {
  return "A side is a single trace (base " + count_of(f.base_traces, "trace", "traces") + ", head " +
         count_of(f.head_traces, "trace", "traces") +
         "): its steps share one process, so run-to-run variation (data loading, clocks, memory placement) is not "
         "sampled, and a change of profiled step time between such runs is not established. Test: profile at least 3 "
         "runs per side.";
}

std::string worth_text(const Metrics& metrics, const std::vector<std::size_t>& indices) {
  std::vector<std::string> items;
  for (std::size_t i : indices) {
    const MetricComparison& m = metrics[i];
    items.push_back(metric_label(m) + " " + format_change(m.ratio) + " (q " + format_p(m.q_value) + ")");
  }
  return "Worth a look (Benjamini–Hochberg q ≤ alpha, not failing): " + join(items, 6, "; ") + ".";
}

std::string device_text(const MetricComparison& m) {
  return "Device time of " + prose_code(m.name) + " grew " + format_change(m.ratio) +
         ": open this op's kernels in Neuron Explorer (or the vendor's device profiler) on both sides to see which "
         "engine or DMA queue took longer.";
}

std::string warm_up_text(const WarmUpFinding& f) {
  // What was measured, and a test; not a cause: start-up, caches, lazy initialisation and data loading
  // all look alike in step times.
  const std::string medians =
      " (medians " + format_duration_us(f.first_us) + " against " + format_duration_us(f.later_us) + ")";
  if (f.base_left_out + f.head_left_out > 0) {
    return f.side + ": over " + std::to_string(f.measured) + " run folders, the first trace's step is " +
           format_significant(f.ratio, 2) + "x as long as the later traces'" + medians +
           ", so each run folder's first trace is a warm-up cycle and is left out of both sides' samples (" +
           std::to_string(f.base_left_out) + " base, " + std::to_string(f.head_left_out) +
           " head traces); its cause is not established by the data. Test: profile with a longer schedule "
           "warm-up (`skip_first`) and see whether the verdicts hold.";
  }
  if (f.kind == WarmUpKind::first_trace_of_run) {
    return f.side + ": over " + std::to_string(f.measured) + " run folders, the first trace's step is " +
           format_significant(f.ratio, 2) + "x as long as the later traces'" + medians +
           "; why is not established by the data. Test: compare without each folder's first trace, or profile with a "
           "longer schedule warm-up, and see whether the verdicts hold.";
  }
  return f.side + ": over " + std::to_string(f.measured) + " traces, the first step is " +
         format_significant(f.ratio, 2) + "x as long as the later steps" + medians +
         "; why is not established by the data. Test: rerun with `\"drop_first_steps\": 1` in the rules and see "
         "whether the verdicts hold.";
}

// "`rank 0`, `rank 1` and 2 more": process names as code, at most 3.
std::string process_names(const std::vector<std::string>& processes) {
  std::string text;
  for (std::size_t i = 0; i < processes.size() && i < 3; ++i) {
    text += (i ? ", " : "") + prose_code(processes[i]);
  }
  return processes.size() > 3 ? text + " and " + std::to_string(processes.size() - 3) + " more" : text;
}

std::string bimodal_text(const BimodalStepsFinding& f) {
  if (!f.low_processes.empty()) {
    // Whole processes in each mode: a difference between processes, not a per-step pattern.
    return f.side + ": step times (warm-up aside) differ by process, not by step: " +
           count_of(f.low_processes.size(), "process", "processes") + " (" + process_names(f.low_processes) +
           ") around " + format_duration_us(f.low_us) + " and " + std::to_string(f.high_processes.size()) + " (" +
           process_names(f.high_processes) + ") around " + format_duration_us(f.high_us) + " (" +
           format_significant(f.high_us / f.low_us, 2) +
           "x apart), every process's steps in one group, so a median over them depends on how many steps each "
           "process gave. Test: compare rank to rank or run to run, and find what makes the slower ones slower "
           "(waiting on another rank, another device, a loaded machine).";
  }
  return f.side + ": step times (warm-up aside) are bimodal: " + std::to_string(f.low_steps) + " steps around " +
         format_duration_us(f.low_us) + " and " + std::to_string(f.high_steps) + " around " +
         format_duration_us(f.high_us) + " (" + format_significant(f.high_us / f.low_us, 2) +
         "x apart), so a median over both depends on how many steps of each were caught. Test: find what runs on "
         "some steps only (gradient accumulation, logging, checkpoints, data loading) and profile steps of one "
         "kind, or compare each mode on its own.";
}

const char* const k_inputs_text =
    "Inputs (shapes, dtypes) were not verified: the traces carry no `Input Dims` and no by-shape `key_averages` "
    "table was found. Test: profile with `record_shapes=True`, save `key_averages(group_by_input_shape=True)` beside "
    "each trace, or add a run manifest.";

void data_problem_lines(const DataProblemFinding& f, std::vector<std::string>& lines) {
  for (const DataProblem& problem : f.listed) {
    // File names and examples are profile text: shown as code spans only.
    lines.push_back(f.side + ": " + prose_code(problem.file) + ": " + std::to_string(problem.count) + " " +
                    data_problem_text(problem.kind) +
                    (problem.example.empty() ? std::string() : "; first: " + prose_code(problem.example)) +
                    (problem.byte ? " near byte " + std::to_string(*problem.byte) : std::string()) +
                    excluded_time_text(problem) + ".");
  }
  if (!f.negative_self_time.empty()) {
    lines.push_back(f.side + ": negative self CPU times in the trace itself (" + join(negative_self_time_texts(f), 5) +
                    "), a known artefact of older PyTorch where a child outlives its parent; kept in the sums as "
                    "PyTorch's own table does.");
  }
}

std::string noise_text(const Metrics& metrics, const NoiseFinding& f) {
  std::vector<std::string> below;
  for (const NoiseFinding::Item& item : f.below) {
    const MetricComparison& m = metrics[item.metric];
    below.push_back(prose_code(m.name) + " " + metric_class_label(m.metric_class) + " threshold " +
                    format_number(m.threshold * 100.0) + "%, noise " + format_number(item.noise_floor * 100.0) + "%");
  }
  return std::to_string(f.below.size()) +
         (f.below.size() == 1 ? " gating metric has its" : " gating metrics have their") +
         " threshold below the noise within base (95th percentile of |ratio − 1| over " + std::to_string(f.splits) +
         " random halvings of base's " + std::to_string(f.units) + (f.split_by == SplitBy::runs ? " runs" : " traces") +
         ", seed " + std::to_string(f.seed) + "): " + join(below, 8, "; ") +
         ". A change of the threshold's size there is within what base shows against itself. Test: `neuron-gate "
         "calibrate BASE` for the false-alarm rate, then raise these thresholds (rules `ops`) or profile more runs.";
}

std::string noise_not_estimated_text(const NoiseNotEstimated& f) {
  return "Base's own run-to-run noise was not estimated: it has " + count_of(f.runs, "run", "runs") +
         ", and an A/A "
         "estimate needs " +
         std::to_string(f.needed) +
         " to split into halves; the thresholds and the floor decide "
         "alone. Test: profile at least " +
         std::to_string(f.needed) + " runs of base and run `neuron-gate calibrate BASE`.";
}

}  // namespace

std::vector<std::string> negative_self_time_texts(const DataProblemFinding& f) {
  std::vector<std::string> items;
  for (const auto& [name, ns] : f.negative_self_time) {
    items.push_back(prose_code(name) + " (down to " + format_duration_us(to_us(ns)) + ")");
  }
  return items;
}

std::vector<std::string> open_hypothesis_lines(const OpenHypotheses& found, const Metrics& metrics) {
  std::vector<std::string> lines;
  if (found.baseline_not_ancestor) {
    lines.push_back(baseline_text(*found.baseline_not_ancestor));
  }
  for (const ConditionDifference& d : found.accepted) {
    lines.push_back(accepted_text(d));
  }
  if (found.insufficient) {
    lines.push_back(insufficient_text(*found.insufficient));
  }
  if (!found.inconclusive.empty()) {
    lines.push_back(inconclusive_text(metrics, found.inconclusive));
  }
  if (found.whole_run_shift) {
    lines.push_back(whole_run_shift_text(*found.whole_run_shift));
  }
  if (found.single_trace) {
    lines.push_back(single_trace_text(*found.single_trace));
  }
  if (!found.worth_a_look.empty()) {
    lines.push_back(worth_text(metrics, found.worth_a_look));
  }
  for (std::size_t i : found.device_regressions) {
    lines.push_back(device_text(metrics[i]));
  }
  for (const WarmUpFinding& f : found.warm_up) {
    lines.push_back(warm_up_text(f));
  }
  for (const BimodalStepsFinding& f : found.bimodal_steps) {
    lines.push_back(bimodal_text(f));
  }
  if (found.inputs_unverified) {
    lines.push_back(k_inputs_text);
  }
  for (const DataProblemFinding& f : found.data_problems) {
    data_problem_lines(f, lines);
  }
  if (found.noise) {
    lines.push_back(noise_text(metrics, *found.noise));
  }
  if (found.noise_not_estimated) {
    lines.push_back(noise_not_estimated_text(*found.noise_not_estimated));
  }
  return lines;
}

}  // namespace neuron_gate
