#include "compare/metric_comparison.hpp"

#include "compare/judgement.hpp"
#include "compare/metric_statistics.hpp"
#include "compare/op_stream.hpp"
#include "compare/screened_metrics.hpp"
#include "formats/neuron_summary.hpp"
#include "profile/operating_points.hpp"
#include "profile/ranks.hpp"
#include "stats/descriptive.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <string_view>
#include <type_traits>

namespace neuron_gate {
namespace {

// One quantum of the sides' timer in µs, when either side's traces are integer-µs data.
std::optional<double> trace_resolution(const SideView& base, const SideView& head) {
  return integer_microsecond_data(base) || integer_microsecond_data(head) ? std::optional<double>(1.0) : std::nullopt;
}

// Moves `from` to the end of `to`, stably sorted by `less`, and frees it (sorts indexes: no copy buffer).
template <typename Metric, typename Less>
void append_sorted(std::vector<Metric>& to, std::vector<Metric>& from, Less less) {
  std::vector<std::size_t> order(from.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return less(from[x], from[y]); });
  for (const std::size_t i : order) {
    to.push_back(std::move(from[i]));
  }
  std::vector<Metric>().swap(from);
}

// The sample steps of one rank (or of a whole side), the run each belongs to (an index into
// side_runs()), and the number of traces they come from.
struct RankSteps {
  std::vector<SampleStep> steps;  // in the side's SideSamples: not copied
  std::vector<std::size_t> run_of_step;
  std::size_t runs = 0;  // runs of the whole side: the range of run_of_step
  std::size_t traces = 0;
  std::size_t processes = 0;  // runs the steps come from (a rank's steps may come from fewer than `runs`)
};

// Steps grouped by trace rank when `per_rank`, else all under nullopt; the first `drop_first` of each trace dropped.
std::map<std::optional<unsigned>, RankSteps> group_steps(const SideView& view, std::size_t drop_first, bool per_rank) {
  const std::vector<Run> runs = side_runs(view);
  std::vector<std::size_t> run_of_trace(view.side->traces.size(), 0);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (std::size_t t : runs[r].traces) {
      run_of_trace[t] = r;
    }
  }
  std::map<std::optional<unsigned>, RankSteps> groups;
  for (const std::size_t t : view.traces) {
    const TraceSamples& trace = view.side->traces[t];
    RankSteps& group = groups[per_rank ? trace.rank : std::nullopt];
    group.runs = runs.size();
    ++group.traces;
    for (std::size_t i = drop_first; i < trace.steps.size(); ++i) {
      group.steps.push_back(SampleStep{&trace, &trace.steps[i]});
      group.run_of_step.push_back(run_of_trace[t]);
    }
  }
  for (auto& [rank, group] : groups) {
    std::vector<bool> seen(runs.size(), false);
    for (const std::size_t t : view.traces) {
      if (!per_rank || view.side->traces[t].rank == rank) {
        seen[run_of_trace[t]] = true;
      }
    }
    group.processes = static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
  }
  return groups;
}

// check_sample_unit of a view: its runs, its side's profile and its label.
void check_view_unit(const SideView& view, SampleUnit unit) {
  if (unit != SampleUnit::run || view.traces.empty()) {
    return;
  }
  const std::size_t runs = side_runs(view).size();
  if (runs < k_min_runs_for_run_unit) {
    throw UsageError(view.side->inventory.spec + ": unit \"run\" needs at least " +
                     std::to_string(k_min_runs_for_run_unit) + " runs (folders of traces) per side; " + view.label +
                     " has " + std::to_string(runs) + (runs == 1 ? " run" : " runs") + " of " +
                     std::to_string(view.traces.size()) + (view.traces.size() == 1 ? " trace" : " traces") +
                     " (use --unit step)");
  }
}

// Per-step values -> one value per run (the median of its steps); runs without sample steps give none.
std::vector<double> per_run(const std::vector<double>& values, const RankSteps& steps) {
  std::vector<std::vector<double>> by_run(steps.runs);
  for (std::size_t i = 0; i < values.size(); ++i) {
    by_run[steps.run_of_step[i]].push_back(values[i]);
  }
  std::vector<double> result;
  for (const std::vector<double>& run : by_run) {
    if (auto m = median(run)) {
      result.push_back(*m);
    }
  }
  return result;
}

// The samples of a metric: per step, or (SampleUnit::run) one per run.
std::vector<double> unit_samples(const std::vector<double>& per_step, const RankSteps& steps, SampleUnit unit) {
  return unit == SampleUnit::run ? per_run(per_step, steps) : per_step;
}

// One rank (or the whole sides) as its op metrics are built.
struct RankPair {
  const RankSteps& base;
  const RankSteps& head;
  const RuleSet& rules;
  bool per_rank = false;
  std::optional<unsigned> rank;
  std::optional<double> resolution;
};

// A per-op-class metric named `name` (plus the rank suffix) from per-step values, not yet measured.
MetricMeasurement per_step_metric(const RankPair& pair, MetricClass metric_class, std::string_view name,
                                  const std::vector<double>& base_values, const std::vector<double>& head_values) {
  MetricMeasurement metric;
  metric.metric_class = metric_class;
  metric.name = name;
  if (pair.per_rank) {
    metric.name += rank_suffix(pair.rank);
  }
  metric.ranked = pair.per_rank;
  metric.rank = pair.rank;
  metric.unit = "us";
  metric.base_samples = unit_samples(base_values, pair.base, pair.rules.unit);
  metric.head_samples = unit_samples(head_values, pair.head, pair.rules.unit);
  metric.base_processes = pair.base.processes;
  metric.head_processes = pair.head.processes;
  if (pair.rules.unit == SampleUnit::step && metric.base_processes >= k_processes_to_establish &&
      metric.head_processes >= k_processes_to_establish) {
    set_between_runs_interval(metric, per_run(base_values, pair.base), per_run(head_values, pair.head));
  }
  return metric;
}

// The profiled step time of each sample step, in µs.
std::vector<double> step_us(const RankSteps& steps) {
  std::vector<double> values;
  for (const SampleStep& s : steps.steps) {
    values.push_back(to_us(s.step->duration_ns));
  }
  return values;
}

void measure(MetricMeasurement& metric, std::optional<double> resolution) {
  run_statistics(metric);
  if (resolution) {
    widen_for_resolution(metric, *resolution);
  }
}

// Appends `metric` to `to`: a vector of measurements, or of comparisons to be judged in place (judge_in_place).
template <typename Metric>
void push_metric(std::vector<Metric>& to, MetricMeasurement&& metric) {
  if constexpr (std::is_same_v<Metric, MetricMeasurement>) {
    to.push_back(std::move(metric));
  } else {
    static_cast<MetricMeasurement&>(to.emplace_back()) = std::move(metric);
  }
}

// The running class sums of one group (a rank, or the whole sides) while its ops stream by.
struct GroupSums {
  ClassSums cpu, device;
  bool any_op = false, any_device = false;
};

// The metrics op `name` has in one group: self CPU (not for an unattributed row, device time only) and,
// where either side has device time, device time. 0 when neither side ran it.
std::size_t op_metric_count(std::string_view name, const OpSeries& b, const OpSeries& h) {
  if (!b.present && !h.present) {
    return 0;
  }
  return (is_unattributed_row(name) ? std::size_t{0} : std::size_t{1}) +
         (b.any_device || h.any_device ? std::size_t{1} : std::size_t{0});
}

// Appends the self CPU and device metrics of op `name` in one group, and adds the op to its class sums.
// The indices of the metrics that both sides ran, left to measure, are appended to `unmeasured`.
template <typename Metric>
void append_op(std::vector<Metric>& metrics, std::vector<std::size_t>& unmeasured, const RankPair& pair,
               std::string_view name, bool runtime_call, const OpSeries& b, const OpSeries& h, GroupSums& sums) {
  const std::optional<double> base_calls = b.present ? median(b.calls) : std::nullopt;
  const std::optional<double> head_calls = h.present ? median(h.calls) : std::nullopt;
  auto make = [&](MetricClass metric_class, const std::vector<double>& base_values,
                  const std::vector<double>& head_values) {
    MetricMeasurement metric = per_step_metric(pair, metric_class, name, base_values, head_values);
    metric.present_in_base = b.present;
    metric.present_in_head = h.present;
    metric.base_calls = base_calls;
    metric.head_calls = head_calls;
    metric.calls_changed = !b.present || !h.present || metric.base_calls != metric.head_calls;
    metric.runtime_call = runtime_call;
    if (b.present && h.present) {
      unmeasured.push_back(metrics.size());  // measured after the stream, in parallel (measure_all)
    } else {
      metric.base_median = median(metric.base_samples);
      metric.head_median = median(metric.head_samples);
    }
    push_metric(metrics, std::move(metric));
  };
  const bool unattributed = is_unattributed_row(name);
  if (!unattributed) {  // device time only: its self CPU is 0 by construction
    make(MetricClass::self_cpu, b.self_cpu_us, h.self_cpu_us);
  }
  if (b.any_device || h.any_device) {
    make(MetricClass::device, b.device_us, h.device_us);
  }
  const std::string key(name);
  if (!unattributed && !runtime_call) {  // device time only; runtime calls are a family of their own
    add_to_class_sums(sums.cpu,
                      OpStepValues{key, &b.self_cpu_us, &h.self_cpu_us, b.present, h.present, base_calls, head_calls});
  }
  add_to_class_sums(sums.device,
                    OpStepValues{key, &b.device_us, &h.device_us, b.any_device, h.any_device, base_calls, head_calls});
  sums.any_op = true;
  sums.any_device = sums.any_device || b.any_device || h.any_device;
}

// measure() of metrics[i] for every i in `indices`, in blocks on the worker threads (parallel.hpp). Each
// metric is measured alone, so the values do not depend on the thread count.
template <typename Metric>
void measure_all(std::vector<Metric>& metrics, const std::vector<std::size_t>& indices,
                 std::optional<double> resolution) {
  constexpr std::size_t k_block = 256;
  const std::vector<std::exception_ptr> errors =
      parallel_for((indices.size() + k_block - 1) / k_block, [&](std::size_t block) {
        const std::size_t end = std::min(indices.size(), (block + 1) * k_block);
        for (std::size_t i = block * k_block; i < end; ++i) {
          measure(metrics[indices[i]], resolution);
        }
      });
  for (const std::exception_ptr& error : errors) {
    if (error) {
      std::rethrow_exception(error);
    }
  }
}

// Appends, per class, the class total and (when it has members) the replacement group of one group
// (replacement_groups.hpp), measured like an op.
template <typename Metric>
void append_class_sums(std::vector<Metric>& metrics, const RankPair& pair, GroupSums& sums) {
  for (MetricClass metric_class : {MetricClass::self_cpu, MetricClass::device}) {
    const bool cpu = metric_class == MetricClass::self_cpu;
    if (!sums.any_op || (!cpu && !sums.any_device)) {
      continue;
    }
    ClassSums& of_class = cpu ? sums.cpu : sums.device;
    finish_class_sums(of_class);
    MetricMeasurement total =
        per_step_metric(pair, metric_class, k_class_total_name, of_class.total_base, of_class.total_head);
    total.scope = MetricScope::class_total;
    measure(total, pair.resolution);
    push_metric(metrics, std::move(total));
    if (!of_class.members.empty()) {
      MetricMeasurement group =
          per_step_metric(pair, metric_class, k_replacement_group_name, of_class.group_base, of_class.group_head);
      group.scope = MetricScope::replacement_group;
      group.replaced = std::move(of_class.members);
      measure(group, pair.resolution);
      push_metric(metrics, std::move(group));
    }
  }
}

// Appends every group's op metrics (ops by name, then group; self CPU before device time) and, before
// them, the groups' class sums ordered by sum_order then name. The ops stream by one at a time
// (op_stream.hpp): a first pass counts the metrics, so `metrics` is allocated once, at its size.
template <typename Metric>
void append_all_op_metrics(std::vector<Metric>& metrics, const std::vector<RankPair>& pairs, const RuleSet& rules) {
  std::vector<StepGroup> groups;
  for (const RankPair& pair : pairs) {
    groups.push_back(StepGroup{&pair.base.steps, &pair.head.steps});
  }
  OpStream stream(groups, rules);
  OpSeries b, h;
  std::size_t count = 0;
  while (stream.next()) {
    for (std::size_t g = 0; g < pairs.size(); ++g) {
      stream.series(g, b, h);
      count += op_metric_count(stream.name(), b, h);
    }
  }
  metrics.reserve(metrics.size() + count + 4 * pairs.size());  // 4 sums a group at most
  const std::size_t ops_start = metrics.size();
  std::vector<GroupSums> sums;
  for (const RankPair& pair : pairs) {
    sums.push_back({start_class_sums(pair.base.steps.size(), pair.head.steps.size()),
                    start_class_sums(pair.base.steps.size(), pair.head.steps.size())});
  }
  std::vector<std::size_t> unmeasured;
  stream.rewind();
  while (stream.next()) {
    for (std::size_t g = 0; g < pairs.size(); ++g) {
      stream.series(g, b, h);
      if (b.present || h.present) {
        append_op(metrics, unmeasured, pairs[g], stream.name(), stream.runtime_call(), b, h, sums[g]);
      }
    }
  }
  if (!pairs.empty()) {
    measure_all(metrics, unmeasured, pairs.front().resolution);  // one resolution for every group
  }
  std::vector<Metric> sum_metrics, sorted;
  for (std::size_t g = 0; g < pairs.size(); ++g) {
    append_class_sums(sum_metrics, pairs[g], sums[g]);
  }
  append_sorted(sorted, sum_metrics, [](const MetricMeasurement& x, const MetricMeasurement& y) {
    return std::pair(sum_order(x), x.name) < std::pair(sum_order(y), y.name);
  });
  metrics.insert(metrics.begin() + static_cast<std::ptrdiff_t>(ops_start), std::make_move_iterator(sorted.begin()),
                 std::make_move_iterator(sorted.end()));
}

}  // namespace

void check_sample_unit(const SideSamples& side, SampleUnit unit) {
  check_view_unit(whole_side(side), unit);
}

std::string metric_class_label(MetricClass metric_class, ClassLabel style) {
  switch (metric_class) {
  case MetricClass::end_to_end:
    return "end-to-end";
  case MetricClass::device:
    return style == ClassLabel::junit ? "device" : "device time";
  case MetricClass::self_cpu:
    return style == ClassLabel::heading ? "self CPU time" : "self CPU";
  case MetricClass::step_time:
    return style == ClassLabel::heading ? "profiled step time" : "step time";
  }
  return "";
}

std::vector<SampleStep> sample_steps(const SideSamples& side, std::size_t drop_first) {
  std::vector<SampleStep> steps;
  for (const TraceSamples& trace : side.traces) {
    for (std::size_t i = drop_first; i < trace.steps.size(); ++i) {
      steps.push_back(SampleStep{&trace, &trace.steps[i]});
    }
  }
  return steps;
}

int sum_order(const MetricMeasurement& metric) {
  if (metric.scope == MetricScope::op) {
    return 0;
  }
  return (metric.metric_class == MetricClass::device ? 2 : 0) +
         (metric.scope == MetricScope::replacement_group ? 1 : 0);
}

static std::string without_suffix(const std::string& name, const std::string& suffix) {
  const bool has_suffix =
      name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return has_suffix ? name.substr(0, name.size() - suffix.size()) : name;
}

std::string unranked_name(const MetricMeasurement& metric) {
  const std::string name = metric.point.empty() ? metric.name : without_suffix(metric.name, point_suffix(metric.point));
  return metric.ranked ? without_suffix(name, rank_suffix(metric.rank)) : name;
}

namespace {

// The end-to-end metrics both views hold (matched by name and unit), measured.
template <typename Metric>
void append_end_to_end(std::vector<Metric>& metrics, const SideView& base_view, const SideView& head_view) {
  const std::vector<EndToEndMetric>& base_e2e = *base_view.end_to_end;
  const std::vector<EndToEndMetric>& head_e2e = *head_view.end_to_end;
  const auto gating_app = [](const EndToEndMetric& m) { return m.origin == EndToEndOrigin::application && m.gates; };
  const bool application_numbers = std::any_of(base_e2e.begin(), base_e2e.end(), gating_app) ||
                                   std::any_of(head_e2e.begin(), head_e2e.end(), gating_app);
  for (const EndToEndMetric& b : base_e2e) {
    auto h = std::find_if(head_e2e.begin(), head_e2e.end(),
                          [&](const EndToEndMetric& m) { return m.name == b.name && m.unit == b.unit; });
    if (h == head_e2e.end()) {
      continue;  // reported by the conditions table (end_to_end_metrics)
    }
    MetricMeasurement metric;
    metric.metric_class = MetricClass::end_to_end;
    metric.name = b.name;
    metric.unit = b.unit;
    metric.better = b.better;
    // Device time decides only where the application's own end-to-end numbers are absent (DESIGN.md section 4).
    metric.declared_explanatory = !b.gates && !h->gates;  // "gates": false on one side only gates: fail closed
    metric.explanatory = metric.declared_explanatory || (b.origin == EndToEndOrigin::device_summary &&
                                                         (application_numbers || b.name != k_device_total_time_metric));
    const bool runs_known = e2e_runs_known(b) && e2e_runs_known(*h);
    const bool by_run = runs_known && b.runs >= k_min_runs_for_e2e_run_unit && h->runs >= k_min_runs_for_e2e_run_unit;
    const Pairing pairing = pairing_of(base_view, head_view);
    const bool paired = pairing == Pairing::same_session && runs_known && b.runs == h->runs && b.runs >= 2;
    metric.base_processes = std::max<std::size_t>(1, b.runs);
    metric.head_processes = std::max<std::size_t>(1, h->runs);
    if (paired) {
      measure_paired(metric, b, *h, by_run, runs_known);
    } else {
      measure_unpaired(metric, b, *h, by_run, runs_known);
      metric.pairing = pairing_note(pairing, runs_known);
    }
    push_metric(metrics, std::move(metric));
  }
}

// compare_metrics into a vector of MetricMeasurement or of MetricComparison (judged in place later).
template <typename Metric>
std::vector<Metric> build_metrics(const SideView& base_view, const SideView& head_view, const RuleSet& rules) {
  std::vector<Metric> metrics;
  append_end_to_end(metrics, base_view, head_view);
  check_view_unit(base_view, rules.unit);
  check_view_unit(head_view, rules.unit);
  // Rank to rank when either side holds several ranks (ranks.hpp), else one group of every trace.
  const bool per_rank = views_per_rank(base_view, head_view);
  const std::optional<double> resolution = trace_resolution(base_view, head_view);
  const std::map<std::optional<unsigned>, RankSteps> base_groups =
      group_steps(base_view, rules.drop_first_steps, per_rank);
  const std::map<std::optional<unsigned>, RankSteps> head_groups =
      group_steps(head_view, rules.drop_first_steps, per_rank);
  std::vector<RankPair> pairs;
  for (const auto& [rank, b] : base_groups) {
    auto h = head_groups.find(rank);
    if (h == head_groups.end()) {
      continue;  // a rank on one side only: the "ranks" condition names it
    }
    const RankPair& pair = pairs.emplace_back(RankPair{b, h->second, rules, per_rank, rank, resolution});
    if (!b.steps.empty() && !h->second.steps.empty()) {
      MetricMeasurement step =
          per_step_metric(pair, MetricClass::step_time, "step time", step_us(b), step_us(h->second));
      step.base_runs = b.traces;
      step.head_runs = h->second.traces;
      measure(step, resolution);
      push_metric(metrics, std::move(step));
    }
  }
  append_all_op_metrics(metrics, pairs, rules);
  mark_screened_metrics(
      metrics.size(), [&](std::size_t i) -> MetricMeasurement& { return metrics[i]; }, base_view, head_view, rules);
  return metrics;
}

}  // namespace

std::vector<MetricMeasurement> compare_metrics(const SideSamples& base, const SideSamples& head, const RuleSet& rules) {
  return compare_metrics(whole_side(base), whole_side(head), rules);
}

std::vector<MetricMeasurement> compare_metrics(const SideView& base_view, const SideView& head_view,
                                               const RuleSet& rules) {
  return build_metrics<MetricMeasurement>(base_view, head_view, rules);
}

std::vector<MetricComparison> compare_metrics_in_place(const SideView& base, const SideView& head,
                                                       const RuleSet& rules) {
  return build_metrics<MetricComparison>(base, head, rules);
}

std::vector<MetricComparison> compare_metrics_in_place(const SideSamples& base, const SideSamples& head,
                                                       const RuleSet& rules) {
  return compare_metrics_in_place(whole_side(base), whole_side(head), rules);
}

// judge() (judgement.hpp) of measurements made apart: each moved into a comparison, then judged in place.
Judgement judge(std::vector<MetricMeasurement> measurements, const ConditionsDiff& conditions, const RuleSet& rules,
                const DecideOptions& options) {
  std::vector<MetricComparison> metrics;
  metrics.reserve(measurements.size());
  for (MetricMeasurement& measurement : measurements) {
    static_cast<MetricMeasurement&>(metrics.emplace_back()) = std::move(measurement);
  }
  std::vector<MetricMeasurement>().swap(measurements);  // moved from: free the vector itself
  return judge_in_place(std::move(metrics), conditions, rules, options);
}

}  // namespace neuron_gate
