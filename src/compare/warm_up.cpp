// The profiler's warm-up pattern and the warm-up screen (warm_up.hpp).
#include "compare/warm_up.hpp"

#include "compare/side_view.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace neuron_gate {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// First-step durations of the first trace of each run folder against the later traces' (folders of
// 2 or more traces with steps).
void first_trace_of_run(const SideSamples& side, std::vector<double>& first, std::vector<double>& rest) {
  for (const Run& run : side_runs(side)) {
    std::vector<double> steps;
    for (const std::size_t t : run.traces) {
      if (!side.traces[t].steps.empty()) {
        steps.push_back(static_cast<double>(side.traces[t].steps.front().duration_ns));
      }
    }
    if (steps.size() < 2) {
      continue;
    }
    first.push_back(steps.front());
    rest.insert(rest.end(), steps.begin() + 1, steps.end());
  }
}

// The first step of each trace of 3 or more steps against its later steps.
void first_step_of_trace(const SideSamples& side, std::vector<double>& first, std::vector<double>& later) {
  for (const TraceSamples& trace : side.traces) {
    if (trace.steps.size() >= 3) {
      first.push_back(static_cast<double>(trace.steps.front().duration_ns));
      for (std::size_t i = 1; i < trace.steps.size(); ++i) {
        later.push_back(static_cast<double>(trace.steps[i].duration_ns));
      }
    }
  }
}

// Every run folder of `side` holds traces of one rank (or none known).
bool runs_of_one_rank(const SideSamples& side) {
  for (const Run& run : side_runs(side)) {
    std::set<std::optional<unsigned>> ranks;
    for (const std::size_t t : run.traces) {
      ranks.insert(side.traces[t].rank);
    }
    if (ranks.size() > 1) {
      return false;
    }
  }
  return true;
}

// Removes the first trace of each run folder of 2 or more traces; returns how many were removed.
std::size_t remove_first_traces(SideSamples& side) {
  std::vector<bool> drop(side.traces.size(), false);
  std::size_t dropped = 0;
  for (const Run& run : side_runs(side)) {
    if (run.traces.size() >= 2) {
      drop[run.traces.front()] = true;
      ++dropped;
    }
  }
  std::size_t i = 0;
  side.traces.erase(
      std::remove_if(side.traces.begin(), side.traces.end(), [&](const TraceSamples&) { return drop[i++]; }),
      side.traces.end());
  return dropped;
}

}  // namespace

std::optional<WarmUpFinding> warm_up_pattern(const SideSamples& side) {
  std::vector<double> first, rest;
  first_trace_of_run(side, first, rest);
  if (first.size() >= 2 && rest.size() >= 2) {
    const double ratio = median_of(first) / median_of(rest);
    if (ratio >= k_warm_up_ratio) {
      return WarmUpFinding{side.label,   WarmUpKind::first_trace_of_run, ratio,
                           first.size(), median_of(first) / 1000.0,      median_of(rest) / 1000.0};
    }
  }
  std::vector<double> first_step, later_steps;
  first_step_of_trace(side, first_step, later_steps);
  if (!first_step.empty() && later_steps.size() >= 2) {
    const double ratio = median_of(first_step) / median_of(later_steps);
    if (ratio >= k_warm_up_ratio) {
      return WarmUpFinding{side.label,        WarmUpKind::first_step_of_trace, ratio,
                           first_step.size(), median_of(first_step) / 1000.0,  median_of(later_steps) / 1000.0};
    }
  }
  return std::nullopt;
}

std::optional<WarmUpFinding> leave_out_warm_up_traces(SideSamples& base, const std::vector<SideSamples*>& others) {
  std::optional<WarmUpFinding> pattern = warm_up_pattern(base);
  if (!pattern || pattern->kind != WarmUpKind::first_trace_of_run || !runs_of_one_rank(base) ||
      !std::all_of(others.begin(), others.end(), [](const SideSamples* side) { return runs_of_one_rank(*side); })) {
    return std::nullopt;
  }
  pattern->base_left_out = remove_first_traces(base);
  for (SideSamples* side : others) {
    pattern->head_left_out += remove_first_traces(*side);
  }
  return pattern;
}

std::optional<WarmUpFinding> leave_out_warm_up_traces(SideSamples& base, SideSamples& head) {
  return leave_out_warm_up_traces(base, std::vector<SideSamples*>{&head});
}

}  // namespace neuron_gate
