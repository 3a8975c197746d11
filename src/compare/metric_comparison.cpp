#include "compare/metric_comparison.hpp"

#include "compare/screened_metrics.hpp"
#include "profile/operating_points.hpp"

#include "profile/ranks.hpp"
#include "stats/descriptive.hpp"
#include "profile/neuron_summary.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/welch_log.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <set>

namespace neuron_gate {
namespace {

double to_us(Nanoseconds ns) {
  return static_cast<double>(ns) / 1000.0;
}

const char* method_name(UMethod method) {
  switch (method) {
  case UMethod::exact:
    return "exact";
  case UMethod::exact_conditional:
    return "exact conditional (ties)";
  case UMethod::asymptotic:
    return "normal approximation";
  case UMethod::asymptotic_continuity:
    return "normal approximation, tie and continuity corrected";
  case UMethod::automatic:
    break;
  }
  return "automatic";
}

// Runs the tests and effect estimates on a metric whose samples are filled in.
void run_statistics(MetricMeasurement& metric) {
  const std::span<const double> base(metric.base_samples);
  const std::span<const double> head(metric.head_samples);
  metric.base_median = median(base);
  metric.head_median = median(head);
  if (base.empty() || head.empty()) {
    return;
  }
  // SciPy convention: x = base, y = head; "less" means base tends to be smaller, i.e. head larger.
  const Alternative head_larger = Alternative::less;
  const Alternative head_smaller = Alternative::greater;
  const MannWhitneyResult worse =
      mann_whitney_u(base, head, metric.better == Better::lower ? head_larger : head_smaller);
  const MannWhitneyResult better =
      mann_whitney_u(base, head, metric.better == Better::lower ? head_smaller : head_larger);
  const MannWhitneyResult both = mann_whitney_u(base, head, Alternative::two_sided);
  metric.p_worse = worse.p;
  metric.p_better = better.p;
  metric.p_two_sided = both.p;
  metric.test_method = method_name(worse.method);

  const bool all_positive = std::all_of(base.begin(), base.end(), [](double v) { return v > 0; }) &&
                            std::all_of(head.begin(), head.end(), [](double v) { return v > 0; });
  if (auto shift = hodges_lehmann_shift(base, head)) {
    metric.shift = shift->estimate;
    metric.shift_low = shift->ci_low;
    metric.shift_high = shift->ci_high;
  }
  if (all_positive) {
    if (auto ratio = hodges_lehmann_ratio(base, head)) {
      metric.ratio = ratio->estimate;
      metric.ratio_low = ratio->ci_low;
      metric.ratio_high = ratio->ci_high;
      metric.ratio_from_logs = true;
    }
    if (auto welch = welch_t_log(base, head)) {
      metric.welch_ratio = welch->ratio_of_geometric_means;
      metric.welch_low = welch->ratio_low;
      metric.welch_high = welch->ratio_high;
      metric.welch_p = welch->p_two_sided;
    }
  } else if (metric.base_median && *metric.base_median > 0 && metric.shift) {
    const double b = *metric.base_median;
    metric.ratio = (b + *metric.shift) / b;
    if (metric.shift_low && metric.shift_high) {
      metric.ratio_low = std::max(0.0, (b + *metric.shift_low) / b);  // a duration ratio is never negative
      metric.ratio_high = (b + *metric.shift_high) / b;
    }
  }
}

// One quantum of the sides' timer in µs, when either side's traces are integer-µs data.
std::optional<double> trace_resolution(const SideView& base, const SideView& head) {
  return integer_microsecond_data(base) || integer_microsecond_data(head) ? std::optional<double>(1.0) : std::nullopt;
}

// The sample count of every run of an end-to-end metric is known (files that list runs, or one run each).
bool e2e_runs_known(const EndToEndMetric& m) {
  std::size_t total = 0;
  for (std::size_t n : m.run_sizes) {
    total += n;
  }
  return m.run_sizes.size() == m.runs && total == m.samples.size();
}

// One sample per run: the median of that run's samples.
std::vector<double> e2e_run_medians(const EndToEndMetric& m) {
  std::vector<double> result;
  std::size_t start = 0;
  for (std::size_t n : m.run_sizes) {
    const std::vector<double> run(m.samples.begin() + static_cast<std::ptrdiff_t>(start),
                                  m.samples.begin() + static_cast<std::ptrdiff_t>(start + n));
    result.push_back(median(run).value_or(0.0));
    start += n;
  }
  return result;
}

struct OpSeries {
  std::vector<double> self_cpu_us;
  std::vector<double> device_us;
  std::vector<double> calls;
  bool any_device = false;
  bool present = false;
};

// Per op of the steps: one value per step (0 where the op did not run in it); op ids resolved once per trace.
std::map<std::string, OpSeries> op_series(const std::vector<SampleStep>& steps, const RuleSet& rules) {
  std::map<std::string, OpSeries> series;
  OpSeries ignored;  // a marker: ids of ignored ops point here; unresolved ones are nullptr
  std::map<const TraceSamples*, std::vector<OpSeries*>> of_trace;  // by trace: op id -> its series
  for (const SampleStep& step : steps) {
    std::vector<OpSeries*>& ids = of_trace[step.trace];
    ids.resize(step.trace->op_keys.size(), nullptr);
    for (const OpSample& op : step.step->ops) {
      if (ids[op.op] == nullptr) {
        const std::string& name = step.trace->op_keys[op.op];
        // The unattributed rows are not ops: `ignore` never drops them, so the device total holds that time.
        ids[op.op] = !rules.is_ignored(name) || is_unattributed_row(name) ? &series[name] : &ignored;
      }
    }
  }
  const std::vector<double> zeros(steps.size(), 0.0);
  for (auto& [name, s] : series) {
    s = OpSeries{zeros, zeros, zeros, false, true};
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::vector<OpSeries*>& ids = of_trace[steps[i].trace];
    for (const auto& [op, values] : steps[i].step->ops) {
      if (OpSeries* s = ids[op]; s != &ignored) {
        s->self_cpu_us[i] = to_us(values.self_cpu_ns);
        s->device_us[i] = to_us(values.device_ns);
        s->calls[i] = static_cast<double>(values.calls);
        s->any_device = s->any_device || values.device_ns != 0;
      }
    }
  }
  return series;
}

// Moves `from` to the end of `to`, stably sorted by `less`, and frees it (sorts indexes: no copy buffer).
template <typename Less>
void append_sorted(std::vector<MetricMeasurement>& to, std::vector<MetricMeasurement>& from, Less less) {
  std::vector<std::size_t> order(from.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return less(from[x], from[y]); });
  for (const std::size_t i : order) {
    to.push_back(std::move(from[i]));
  }
  std::vector<MetricMeasurement>().swap(from);
}

// The sample steps of one rank (or of a whole side), the run each belongs to (an index into
// side_runs()), and the number of traces they come from.
struct RankSteps {
  std::vector<SampleStep> steps;  // in the side's SideSamples: not copied
  std::vector<std::size_t> run_of_step;
  std::size_t runs = 0;  // runs of the whole side: the range of run_of_step
  std::size_t traces = 0;
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
  return groups;
}

// check_sample_unit of a view: its runs, its side's profile and its label.
void check_view_unit(const SideView& view, SampleUnit unit) {
  if (unit != SampleUnit::run || view.traces.empty()) {
    return;
  }
  const std::size_t runs = side_runs(view).size();
  if (runs < k_min_runs_for_run_unit) {
    throw UsageError(view.side->inventory.spec + ": unit \"run\" needs at least " + std::to_string(k_min_runs_for_run_unit) +
                     " runs (folders of traces) per side; " + view.label + " has " + std::to_string(runs) +
                     (runs == 1 ? " run" : " runs") + " of " + std::to_string(view.traces.size()) +
                     (view.traces.size() == 1 ? " trace" : " traces") + " (use --unit step)");
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
MetricMeasurement per_step_metric(const RankPair& pair, MetricClass metric_class, const std::string& name,
                                  const std::vector<double>& base_values, const std::vector<double>& head_values) {
  MetricMeasurement metric;
  metric.metric_class = metric_class;
  metric.name = name + (pair.per_rank ? rank_suffix(pair.rank) : std::string());
  metric.ranked = pair.per_rank;
  metric.rank = pair.rank;
  metric.unit = "us";
  metric.base_samples = unit_samples(base_values, pair.base, pair.rules.unit);
  metric.head_samples = unit_samples(head_values, pair.head, pair.rules.unit);
  metric.base_processes = pair.base.runs;
  metric.head_processes = pair.head.runs;
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

// The ops of either side, by name.
std::set<std::string> op_names(const std::map<std::string, OpSeries>& base_ops, const std::map<std::string, OpSeries>& head_ops) {
  std::set<std::string> names;
  for (const auto* ops : {&base_ops, &head_ops}) {
    for (const auto& [name, s] : *ops) {
      names.insert(name);
    }
  }
  return names;
}

// Appends the self CPU and device metrics of every op of one rank (or of the whole sides).
// Each op's series are freed once its metrics are made, so the two never both hold every op.
void append_op_metrics(std::vector<MetricMeasurement>& metrics, const RankPair& pair,
                       std::map<std::string, OpSeries>& base_ops, std::map<std::string, OpSeries>& head_ops) {
  const std::set<std::string> names = op_names(base_ops, head_ops);
  if (const std::size_t most = metrics.size() + 2 * names.size(); most > metrics.capacity()) {
    metrics.reserve(std::max(most, 2 * metrics.capacity()));  // self CPU and device time per op at most
  }
  for (const std::string& name : names) {
    const OpSeries& b = base_ops[name];
    const OpSeries& h = head_ops[name];
    auto make = [&](MetricClass metric_class, const std::vector<double>& base_values,
                    const std::vector<double>& head_values) {
      MetricMeasurement metric = per_step_metric(pair, metric_class, name, base_values, head_values);
      metric.present_in_base = b.present;
      metric.present_in_head = h.present;
      if (b.present) {
        metric.base_calls = median(b.calls);
      }
      if (h.present) {
        metric.head_calls = median(h.calls);
      }
      metric.calls_changed = !b.present || !h.present || metric.base_calls != metric.head_calls;
      if (b.present && h.present) {
        measure(metric, pair.resolution);
      } else {
        metric.base_median = median(metric.base_samples);
        metric.head_median = median(metric.head_samples);
      }
      return metric;
    };
    if (!is_unattributed_row(name)) {  // device time only: its self CPU is 0 by construction
      metrics.push_back(make(MetricClass::self_cpu, b.self_cpu_us, h.self_cpu_us));
    }
    if (b.any_device || h.any_device) {
      metrics.push_back(make(MetricClass::device, b.device_us, h.device_us));
    }
    base_ops[name] = head_ops[name] = OpSeries{};
  }
}

// Appends, per class, the class total and (when it has members) the replacement group of one rank
// (replacement_groups.hpp), measured like an op.
void append_class_sums(std::vector<MetricMeasurement>& metrics, const RankPair& pair,
                       std::map<std::string, OpSeries>& base_ops, std::map<std::string, OpSeries>& head_ops) {
  const std::set<std::string> names = op_names(base_ops, head_ops);
  bool any_device = false;
  for (const std::string& name : names) {
    any_device = any_device || base_ops[name].any_device || head_ops[name].any_device;
  }
  for (MetricClass metric_class : {MetricClass::self_cpu, MetricClass::device}) {
    const bool cpu = metric_class == MetricClass::self_cpu;
    if (names.empty() || (!cpu && !any_device)) {
      continue;
    }
    std::vector<OpStepValues> ops;
    for (const std::string& name : names) {
      if (cpu && is_unattributed_row(name)) {
        continue;  // device time only (no self CPU metric either)
      }
      const OpSeries& b = base_ops[name];
      const OpSeries& h = head_ops[name];
      ops.push_back(OpStepValues{name, cpu ? &b.self_cpu_us : &b.device_us, cpu ? &h.self_cpu_us : &h.device_us,
                                 cpu ? b.present : b.any_device, cpu ? h.present : h.any_device,
                                 b.present ? median(b.calls) : std::nullopt, h.present ? median(h.calls) : std::nullopt});
    }
    const ClassSums sums = sum_class(ops, pair.base.steps.size(), pair.head.steps.size());
    MetricMeasurement total = per_step_metric(pair, metric_class, k_class_total_name, sums.total_base, sums.total_head);
    total.scope = MetricScope::class_total;
    measure(total, pair.resolution);
    metrics.push_back(std::move(total));
    if (!sums.members.empty()) {
      MetricMeasurement group =
          per_step_metric(pair, metric_class, k_replacement_group_name, sums.group_base, sums.group_head);
      group.scope = MetricScope::replacement_group;
      group.replaced = sums.members;
      measure(group, pair.resolution);
      metrics.push_back(std::move(group));
    }
  }
}

} // namespace

void check_sample_unit(const SideSamples& side, SampleUnit unit) {
  check_view_unit(whole_side(side), unit);
}

const char* metric_class_label(MetricClass metric_class) {
  switch (metric_class) {
  case MetricClass::end_to_end:
    return "end-to-end";
  case MetricClass::device:
    return "device time";
  case MetricClass::self_cpu:
    return "self CPU";
  case MetricClass::step_time:
    return "step time";
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
  return (metric.metric_class == MetricClass::device ? 2 : 0) + (metric.scope == MetricScope::replacement_group ? 1 : 0);
}

static std::string without_suffix(const std::string& name, const std::string& suffix) {
  const bool has_suffix = name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return has_suffix ? name.substr(0, name.size() - suffix.size()) : name;
}

std::string unranked_name(const MetricMeasurement& metric) {
  const std::string name = metric.point.empty() ? metric.name : without_suffix(metric.name, point_suffix(metric.point));
  return metric.ranked ? without_suffix(name, rank_suffix(metric.rank)) : name;
}

std::vector<MetricMeasurement> compare_metrics(const SideSamples& base, const SideSamples& head, const RuleSet& rules) {
  return compare_metrics(whole_side(base), whole_side(head), rules);
}

std::vector<MetricMeasurement> compare_metrics(const SideView& base_view, const SideView& head_view, const RuleSet& rules) {
  std::vector<MetricMeasurement> metrics;
  const std::vector<EndToEndMetric>& base_e2e = *base_view.end_to_end;
  const std::vector<EndToEndMetric>& head_e2e = *head_view.end_to_end;
  const auto from_application = [](const EndToEndMetric& m) { return m.origin == EndToEndOrigin::application; };
  const bool application_numbers = std::any_of(base_e2e.begin(), base_e2e.end(), from_application) ||
                                   std::any_of(head_e2e.begin(), head_e2e.end(), from_application);
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
    metric.explanatory = b.origin == EndToEndOrigin::device_summary &&
                         (application_numbers || b.name != k_device_total_time_metric);
    const bool by_run = e2e_runs_known(b) && e2e_runs_known(*h) && b.runs >= k_min_runs_for_e2e_run_unit &&
                        h->runs >= k_min_runs_for_e2e_run_unit;
    metric.base_samples = by_run ? e2e_run_medians(b) : b.samples;
    metric.head_samples = by_run ? e2e_run_medians(*h) : h->samples;
    metric.base_processes = std::max<std::size_t>(1, b.runs);
    metric.head_processes = std::max<std::size_t>(1, h->runs);
    run_statistics(metric);
    metrics.push_back(std::move(metric));
  }

  check_view_unit(base_view, rules.unit);
  check_view_unit(head_view, rules.unit);
  // Rank to rank when either side holds several ranks (ranks.hpp), else one group of every trace.
  const bool per_rank = views_per_rank(base_view, head_view);
  const std::optional<double> resolution = trace_resolution(base_view, head_view);
  const std::map<std::optional<unsigned>, RankSteps> base_groups = group_steps(base_view, rules.drop_first_steps, per_rank);
  const std::map<std::optional<unsigned>, RankSteps> head_groups = group_steps(head_view, rules.drop_first_steps, per_rank);
  std::vector<MetricMeasurement> sum_metrics, op_metrics;
  for (const auto& [rank, b] : base_groups) {
    auto h = head_groups.find(rank);
    if (h == head_groups.end()) {
      continue;  // a rank on one side only: the "ranks" condition names it
    }
    const RankPair pair{b, h->second, rules, per_rank, rank, resolution};
    if (!b.steps.empty() && !h->second.steps.empty()) {
      MetricMeasurement step = per_step_metric(pair, MetricClass::step_time, "step time", step_us(b), step_us(h->second));
      step.base_runs = b.traces;
      step.head_runs = h->second.traces;
      measure(step, resolution);
      metrics.push_back(std::move(step));
    }
    std::map<std::string, OpSeries> base_ops = op_series(b.steps, rules);
    std::map<std::string, OpSeries> head_ops = op_series(h->second.steps, rules);
    append_class_sums(sum_metrics, pair, base_ops, head_ops);
    append_op_metrics(op_metrics, pair, base_ops, head_ops);
  }
  metrics.reserve(metrics.size() + sum_metrics.size() + op_metrics.size());
  append_sorted(metrics, sum_metrics, [](const MetricMeasurement& x, const MetricMeasurement& y) {
    return std::pair(sum_order(x), x.name) < std::pair(sum_order(y), y.name);
  });
  // Ops by name, then rank (ranks were visited in order; the sort is stable).
  append_sorted(metrics, op_metrics, [](const MetricMeasurement& x, const MetricMeasurement& y) {
    return unranked_name(x) < unranked_name(y);
  });
  mark_screened_metrics(metrics, base_view, head_view, rules);
  return metrics;
}

} // namespace neuron_gate
