#include "compare/step_totals.hpp"

#include "compare/side_view.hpp"
#include "util/error.hpp"
#include "util/units.hpp"

#include <set>

namespace neuron_gate {

std::optional<StepTotal> step_total_named(std::string_view name) {
  if (name == "step-time") {
    return StepTotal::step_time;
  }
  if (name == "device-total") {
    return StepTotal::device_total;
  }
  return std::nullopt;
}

const char* step_total_title(StepTotal total) {
  return total == StepTotal::step_time ? "profiled step time" : "device time of all ops";
}

namespace {

// One step's total in µs.
double step_value(const StepSample& step, StepTotal total) {
  if (total == StepTotal::step_time) {
    return to_us(step.duration_ns);
  }
  Nanoseconds device_ns = step.unattributed_device_ns;
  for (const OpSample& op : step.ops) {
    device_ns += op.values.device_ns;
  }
  return to_us(device_ns);
}

void check_side(const SideSamples& side, StepTotal total, const std::string& label) {
  if (side.traces.empty()) {
    throw UsageError("rank: the profile \"" + label + "\" has no trace to take the " + step_total_title(total) +
                     " from");
  }
  std::set<std::optional<unsigned>> ranks;
  for (const TraceSamples& trace : side.traces) {
    ranks.insert(trace.rank);
  }
  if (ranks.size() > 1) {
    throw UsageError("rank: the profile \"" + label + "\" holds several ranks; one rank's " + step_total_title(total) +
                     " is not the job's: rank by an end-to-end metric (e2e.json) or give one rank's traces");
  }
  if (total != StepTotal::device_total) {
    return;
  }
  if (side.screened.device_time_lost || side.screened.kept_device_ns <= 0) {
    throw UsageError("rank: the profile \"" + label + "\" has no device time" +
                     (side.screened.device_time_lost ? " (launches without device events: device time was lost)" : "") +
                     "; rank by --metric step-time");
  }
  if (side.screened.excluded_device_ns > 0) {
    throw UsageError("rank: the device time of \"" + label +
                     "\" is incomplete (the event screen excluded some of it; `neuron-gate inspect` lists why), so "
                     "its device total cannot be ranked; re-profile it or rank by --metric step-time");
  }
}

}  // namespace

EndToEndMetric step_total_metric(const SideSamples& side, StepTotal total, std::size_t drop_first,
                                 const std::string& label) {
  check_side(side, total, label);
  EndToEndMetric metric;
  metric.name = step_total_title(total);
  metric.unit = "us";
  metric.better = Better::lower;
  metric.source_path = side.traces.front().path;
  for (const Run& run : side_runs(side)) {
    std::size_t size = 0;
    for (const std::size_t t : run.traces) {
      const std::vector<StepSample>& steps = side.traces[t].steps;
      for (std::size_t i = drop_first; i < steps.size(); ++i) {
        metric.samples.push_back(step_value(steps[i], total));
        ++size;
      }
    }
    if (size > 0) {
      metric.run_sizes.push_back(size);
    }
  }
  if (metric.samples.empty()) {
    throw UsageError("rank: the profile \"" + label + "\" has no step left after the first " +
                     std::to_string(drop_first) + " of each trace (rules drop_first_steps)");
  }
  metric.runs = metric.run_sizes.size();
  return metric;
}

}  // namespace neuron_gate
