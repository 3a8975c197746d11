#include "compare/calibration.hpp"

#include "compare/conditions.hpp"
#include "compare/judgement.hpp"
#include "stats/descriptive.hpp"
#include "stats/power.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <random>
#include <tuple>
#include <utility>

namespace neuron_gate {
namespace {

// Fisher–Yates with rejection sampling on raw mt19937_64 output: std::shuffle and
// std::uniform_int_distribution differ between standard libraries, and the output must not.
void shuffle(std::vector<std::size_t>& items, std::mt19937_64& rng) {
  for (std::size_t i = items.size(); i > 1; --i) {
    const std::uint64_t bound = i;
    const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % bound;
    std::uint64_t draw = rng();
    while (draw >= limit) {
      draw = rng();
    }
    std::swap(items[i - 1], items[static_cast<std::size_t>(draw % bound)]);
  }
}

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> items(n);
  for (std::size_t i = 0; i < n; ++i) {
    items[i] = i;
  }
  return items;
}

// Sort key that reproduces compare_metrics' order: end-to-end, step time, class totals and replacement
// groups (sum_order), ops by name (self CPU first).
using MetricKey = std::tuple<int, int, std::string, int>;

MetricKey key_of(const MetricComparison& m) {
  switch (m.metric_class) {
  case MetricClass::end_to_end:
    return {0, 0, m.name, 0};
  case MetricClass::step_time:
    return {1, 0, m.name, 0};
  case MetricClass::self_cpu:
  case MetricClass::device:
    break;
  }
  if (m.scope != MetricScope::op) {
    return {2, sum_order(m), m.name, 0};
  }
  return {3, 0, m.name, m.metric_class == MetricClass::device ? 1 : 0};
}

struct Accumulator {
  NoiseFloor floor;
  std::vector<double> abs_change, abs_log, abs_shift;
};

// An end-to-end metric of 4 or more known runs splits into halves of whole runs; otherwise its samples
// split at random (within one process).
bool splits_by_run(const EndToEndMetric& metric) {
  std::size_t total = 0;
  for (std::size_t n : metric.run_sizes) {
    total += n;
  }
  return metric.run_sizes.size() >= sampling_plan().noise_check && total == metric.samples.size();
}

// The halves of one end-to-end metric given the drawn order of its runs (when it splits by run) or of
// its samples: the first half of the order goes to A.
std::pair<EndToEndMetric, EndToEndMetric> split_end_to_end(const EndToEndMetric& metric,
                                                           const std::vector<std::size_t>& order) {
  EndToEndMetric half_a = metric, half_b = metric;
  half_a.samples.clear();
  half_b.samples.clear();
  half_a.run_sizes.clear();
  half_b.run_sizes.clear();
  if (splits_by_run(metric)) {
    std::vector<std::size_t> starts;
    std::size_t start = 0;
    for (std::size_t n : metric.run_sizes) {
      starts.push_back(start);
      start += n;
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      EndToEndMetric& half = i < order.size() / 2 ? half_a : half_b;
      const std::size_t r = order[i];
      half.samples.insert(half.samples.end(), metric.samples.begin() + static_cast<std::ptrdiff_t>(starts[r]),
                          metric.samples.begin() + static_cast<std::ptrdiff_t>(starts[r] + metric.run_sizes[r]));
      half.run_sizes.push_back(metric.run_sizes[r]);
    }
    half_a.runs = half_a.run_sizes.size();
    half_b.runs = half_b.run_sizes.size();
    return {half_a, half_b};
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    (i < order.size() / 2 ? half_a : half_b).samples.push_back(metric.samples[order[i]]);
  }
  half_a.run_sizes = {half_a.samples.size()};
  half_b.run_sizes = {half_b.samples.size()};
  half_a.runs = half_b.runs = 1;
  return {half_a, half_b};
}

}  // namespace

namespace {

// The groups of traces that are split (runs where there are enough, else single traces), after checking
// that the side can be split at all; fills result's split_by, half sizes and e2e sample count.
std::vector<std::vector<std::size_t>> split_groups(const SideSamples& side, const RuleSet& rules, Calibration& result) {
  const std::string& spec = side.inventory.spec;
  const std::size_t needed = sampling_plan().noise_check;
  const std::vector<Run> runs = side_runs(side);
  result.runs = runs.size();
  std::vector<std::vector<std::size_t>> groups;
  if (runs.size() >= needed) {
    result.split_by = SplitBy::runs;
    for (const Run& run : runs) {
      groups.push_back(run.traces);
    }
  } else if (side.traces.size() >= needed) {
    result.split_by = SplitBy::traces;
    for (std::size_t t = 0; t < side.traces.size(); ++t) {
      groups.push_back({t});
    }
  } else if (!side.traces.empty()) {
    throw UsageError(spec + ": calibration needs at least " + std::to_string(needed) + " runs (folders of traces) or " +
                     std::to_string(needed) + " traces to split into two halves; found " + plural(runs.size(), "run") +
                     " of " + plural(side.traces.size(), "trace"));
  }
  std::size_t fewest_e2e = 0;
  for (std::size_t i = 0; i < side.end_to_end.size(); ++i) {
    const std::size_t n = side.end_to_end[i].samples.size();
    fewest_e2e = i == 0 ? n : std::min(fewest_e2e, n);
    result.end_to_end_samples = std::max(result.end_to_end_samples, n);
  }
  if (side.traces.empty() && fewest_e2e < needed) {
    throw UsageError(spec + ": calibration needs traces or at least " + std::to_string(needed) +
                     " end-to-end samples per metric to split into two halves; found " +
                     (side.end_to_end.empty() ? std::string("neither") : plural(fewest_e2e, "sample")));
  }
  if (rules.unit == SampleUnit::run && !side.traces.empty() &&
      (result.split_by != SplitBy::runs || runs.size() < sampling_plan().noise_check_run_unit)) {
    throw UsageError(spec + ": unit \"run\" needs at least " + std::to_string(sampling_plan().noise_check_run_unit) +
                     " runs (folders of traces) to calibrate, " + std::to_string(k_min_runs_for_run_unit) +
                     " per half; found " + plural(runs.size(), "run") + " (use --unit step)");
  }
  result.half_a = groups.size() / 2;
  result.half_b = groups.size() - result.half_a;
  return groups;
}

// The random draws of one split, in index space: the groups in drawn order (the first half_a go to
// half A) and, per end-to-end metric, the drawn order of its runs or samples (split_end_to_end).
struct SplitPlan {
  std::vector<std::size_t> group_order;
  std::vector<std::vector<std::size_t>> end_to_end_order;
};

// Draws one split from `rng` in a fixed order: the groups, then each e2e metric's runs or samples. All
// plans are drawn on one thread, split after split, so the splits do not depend on the thread count.
SplitPlan draw_split(const SideSamples& side, std::size_t groups, std::mt19937_64& rng) {
  SplitPlan plan;
  plan.group_order = identity(groups);
  shuffle(plan.group_order, rng);
  for (const EndToEndMetric& metric : side.end_to_end) {
    plan.end_to_end_order.push_back(identity(splits_by_run(metric) ? metric.run_sizes.size() : metric.samples.size()));
    shuffle(plan.end_to_end_order.back(), rng);
  }
  return plan;
}

// The halves A (half_a groups) and B of one split as views of the side: trace indices in path order
// within each half, so no trace or step is copied; the end-to-end metrics (a few samples each) are
// split into halves of their own.
struct Halves {
  std::vector<EndToEndMetric> end_to_end_a, end_to_end_b;
  SideView a, b;
};

void split_side(const SideSamples& side, const std::vector<std::vector<std::size_t>>& groups, std::size_t half_a,
                const SplitPlan& plan, Halves& halves) {
  std::vector<bool> in_a(side.traces.size(), false);
  for (std::size_t i = 0; i < half_a; ++i) {
    for (std::size_t t : groups[plan.group_order[i]]) {
      in_a[t] = true;
    }
  }
  halves.a.side = halves.b.side = &side;
  halves.a.label = "half A";
  halves.b.label = "half B";
  for (std::size_t t = 0; t < side.traces.size(); ++t) {
    (in_a[t] ? halves.a : halves.b).traces.push_back(t);  // path order within each half
  }
  for (std::size_t e = 0; e < side.end_to_end.size(); ++e) {
    auto [metric_a, metric_b] = split_end_to_end(side.end_to_end[e], plan.end_to_end_order[e]);
    halves.end_to_end_a.push_back(std::move(metric_a));
    halves.end_to_end_b.push_back(std::move(metric_b));
  }
  halves.a.end_to_end = &halves.end_to_end_a;
  halves.b.end_to_end = &halves.end_to_end_b;
}

// What calibration keeps of one judged metric of a split (a Judgement holds every sample; these are
// held for all splits until they are accumulated in order).
struct MetricOutcome {
  MetricKey key;
  NoiseFloor floor;  // metric_class, scope, name, unit, gating, threshold; regressed and unreachable 0 or 1
  std::optional<double> abs_change, abs_log, abs_shift;
};

// What calibration keeps of one judged split.
struct SplitOutcome {
  std::vector<MetricOutcome> metrics;
  std::vector<MetricClass> gating_classes;
  bool fails = false;  // the gate would fail: a gating REGRESSED
  std::size_t sample_values = 0;
};

SplitOutcome outcome_of(const Judgement& judgement) {
  SplitOutcome outcome;
  outcome.gating_classes = judgement.decision.gating_classes;
  outcome.fails = judgement.decision.outcome == Outcome::regression;
  for (const MetricComparison& m : judgement.metrics) {
    MetricOutcome o{key_of(m), NoiseFloor{}, std::nullopt, std::nullopt, std::nullopt};
    o.floor.metric_class = m.metric_class;
    o.floor.scope = m.scope;
    o.floor.name = m.name;
    o.floor.unit = m.unit;
    o.floor.gating = m.gating;
    o.floor.threshold = m.threshold;
    o.floor.regressed = m.verdict == Verdict::regressed ? 1 : 0;
    const bool both = m.present_in_base && m.present_in_head;
    o.floor.unreachable =
        both && smallest_attainable_p(m.base_samples.size(), m.head_samples.size()) > m.needed_p ? 1 : 0;
    if (both && m.ratio && *m.ratio > 0) {
      o.abs_change = std::fabs(*m.ratio - 1.0);
      o.abs_log = std::fabs(std::log(*m.ratio));
      if (m.shift) {
        o.abs_shift = std::fabs(*m.shift);
      }
    }
    outcome.sample_values += m.base_samples.size() + m.head_samples.size();
    outcome.metrics.push_back(std::move(o));
  }
  return outcome;
}

// Adds one split's outcome to the per-metric accumulators and the per-class counts.
void accumulate(const SplitOutcome& outcome, std::map<MetricKey, Accumulator>& accumulators, Calibration& result) {
  std::map<MetricClass, bool> class_regressed;
  for (const MetricOutcome& m : outcome.metrics) {
    const bool regressed = m.floor.regressed > 0;
    class_regressed[m.floor.metric_class] = class_regressed[m.floor.metric_class] || regressed;
    Accumulator& acc = accumulators[m.key];
    const std::size_t regressed_before = acc.floor.regressed, unreachable_before = acc.floor.unreachable;
    const std::size_t splits_before = acc.floor.splits;
    acc.floor = m.floor;
    acc.floor.regressed += regressed_before;
    acc.floor.unreachable += unreachable_before;
    acc.floor.splits = splits_before;
    if (m.abs_change) {
      ++acc.floor.splits;
      acc.abs_change.push_back(*m.abs_change);
      acc.abs_log.push_back(*m.abs_log);
      if (m.abs_shift) {
        acc.abs_shift.push_back(*m.abs_shift);
      }
    }
  }
  result.failing_splits += outcome.fails ? 1 : 0;
  result.comparisons += outcome.metrics.size();
  result.sample_values += outcome.sample_values;
  for (const auto& [metric_class, regressed] : class_regressed) {
    result.regressed_splits_by_class[metric_class] += regressed ? 1 : 0;
  }
}

// The splits to run: all requested, or under a value budget as many as it holds at `first_split_values`
// values a split, never fewer than options.min_splits.
std::size_t splits_within_budget(const CalibrationOptions& options, std::size_t first_split_values) {
  if (!options.value_budget || first_split_values == 0) {
    return options.splits;
  }
  const std::size_t fit = *options.value_budget / first_split_values;
  return std::min(options.splits, std::max(std::min(options.min_splits, options.splits), fit));
}

// Judges the splits of `plans` from index `first` on, one split per task, and returns their outcomes
// in split order; rethrows the first split's error, as judging one split after another would.
std::vector<SplitOutcome> judge_splits(const SideSamples& side, const RuleSet& rules,
                                       const std::vector<std::vector<std::size_t>>& groups, std::size_t half_a,
                                       const std::vector<SplitPlan>& plans, std::size_t first) {
  std::vector<SplitOutcome> outcomes(plans.size() - first);
  const std::vector<std::exception_ptr> errors = parallel_for(outcomes.size(), [&](std::size_t i) {
    Halves halves;
    split_side(side, groups, half_a, plans[first + i], halves);
    outcomes[i] = outcome_of(
        judge_in_place(compare_metrics_in_place(halves.a, halves.b, rules), ConditionsDiff{}, rules, DecideOptions{}));
  });
  for (const std::exception_ptr& error : errors) {
    if (error) {
      std::rethrow_exception(error);
    }
  }
  return outcomes;
}

}  // namespace

NoiseCheck noise_check_of(const Calibration& c) {
  return NoiseCheck{c.split_by,         c.runs,       c.traces,       c.half_a,      c.half_b,        c.splits,
                    c.requested_splits, c.min_splits, c.value_budget, c.comparisons, c.sample_values, c.seed};
}

Calibration calibrate(const SideSamples& side, const RuleSet& rules, const CalibrationOptions& options) {
  Calibration result;
  result.spec = side.inventory.spec;
  result.unit = rules.unit;
  result.splits = options.splits;
  result.seed = options.seed;
  result.alpha = rules.alpha;
  result.traces = side.traces.size();
  if (options.splits == 0) {
    result.runs = side_runs(side).size();
    throw UsageError(result.spec + ": the number of splits must be at least 1");
  }
  const std::vector<std::vector<std::size_t>> groups = split_groups(side, rules, result);

  std::mt19937_64 rng(options.seed);
  // Every split is drawn in order on this thread (index lists: small), judged one split per task, and
  // accumulated in order: the result does not depend on the thread count.
  std::vector<SplitPlan> plans;
  for (std::size_t split = 0; split < options.splits; ++split) {
    plans.push_back(draw_split(side, groups.size(), rng));
  }
  std::map<MetricKey, Accumulator> accumulators;
  std::vector<SplitOutcome> outcomes;
  if (options.value_budget) {
    outcomes = judge_splits(side, rules, groups, result.half_a, {plans.front()}, 0);  // counts a split's values
    plans.resize(splits_within_budget(options, outcomes.front().sample_values));
  }
  for (SplitOutcome& outcome : judge_splits(side, rules, groups, result.half_a, plans, outcomes.size())) {
    outcomes.push_back(std::move(outcome));
  }
  result.requested_splits = options.splits;
  result.value_budget = options.value_budget;
  result.min_splits = options.min_splits;
  result.splits = plans.size();
  result.gating_classes = outcomes.front().gating_classes;
  for (const SplitOutcome& outcome : outcomes) {
    accumulate(outcome, accumulators, result);
  }

  for (auto& [key, acc] : accumulators) {
    NoiseFloor& floor = acc.floor;
    floor.median_abs_log_ratio = median(acc.abs_log);
    floor.noise_floor = quantile(acc.abs_change, 0.95);
    floor.p95_abs_shift = quantile(acc.abs_shift, 0.95);
    const bool per_op = floor.metric_class == MetricClass::self_cpu || floor.metric_class == MetricClass::device;
    floor.threshold_below_noise = floor.noise_floor && floor.threshold < *floor.noise_floor &&
                                  (!per_op || (floor.p95_abs_shift && *floor.p95_abs_shift >= rules.floor_us));
    if (floor.metric_class == MetricClass::end_to_end) {
      const auto metric = std::find_if(side.end_to_end.begin(), side.end_to_end.end(),
                                       [&](const EndToEndMetric& e) { return e.name == floor.name; });
      if (metric != side.end_to_end.end() && !splits_by_run(*metric)) {
        floor.within_process = true;  // not run-to-run noise: never presented as a noise floor
        floor.noise_floor.reset();
        floor.threshold_below_noise = false;
      }
    }
    result.gating_never_decidable += floor.gating && floor.unreachable == result.splits ? 1 : 0;
    result.metrics.push_back(std::move(floor));
  }
  // splits >= 1, so the interval exists.
  result.false_alarm_rate = clopper_pearson(result.failing_splits, result.splits).value_or(Proportion{});
  return result;
}

}  // namespace neuron_gate
