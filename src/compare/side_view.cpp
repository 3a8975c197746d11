#include "compare/side_view.hpp"

#include <map>
#include <set>
#include <utility>

namespace neuron_gate {

SideView whole_side(const SideSamples& side) {
  SideView view;
  view.side = &side;
  view.traces.resize(side.traces.size());
  for (std::size_t t = 0; t < side.traces.size(); ++t) {
    view.traces[t] = t;
  }
  view.end_to_end = &side.end_to_end;
  view.screened = side.screened;
  view.label = side.label;
  return view;
}

std::vector<Run> side_runs(const SideSamples& side) {
  return side_runs(whole_side(side));
}

std::vector<Run> side_runs(const SideView& view) {
  std::map<std::string, std::vector<std::size_t>> folders;
  for (const std::size_t t : view.traces) {
    const std::string& path = view.side->traces[t].path;
    const std::size_t slash = path.find_last_of('/');
    folders[slash == std::string::npos ? std::string() : path.substr(0, slash)].push_back(t);
  }
  std::vector<Run> runs;
  for (auto& [folder, traces] : folders) {
    runs.push_back(Run{folder, std::move(traces)});
  }
  return runs;
}

bool views_per_rank(const SideView& base, const SideView& head) {
  for (const SideView* view : {&base, &head}) {
    std::set<std::optional<unsigned>> ranks;
    for (const std::size_t t : view->traces) {
      ranks.insert(view->side->traces[t].rank);
    }
    if (ranks.size() > 1) {
      return true;
    }
  }
  return false;
}

void release_op_samples(SideSamples& side) {
  for (TraceSamples& trace : side.traces) {
    std::vector<OpSample>().swap(trace.outside_steps.ops);
    std::map<std::string, Nanoseconds>().swap(trace.outside_steps.device_kernels);
    for (StepSample& step : trace.steps) {
      std::vector<OpSample>().swap(step.ops);
      std::map<std::string, Nanoseconds>().swap(step.device_kernels);
    }
    std::vector<std::string>().swap(trace.op_keys);
  }
}

}  // namespace neuron_gate
