#include "compare/bimodal_steps.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace neuron_gate {
namespace {

double median_sorted(const std::vector<double>& v, std::size_t begin, std::size_t end) {
  const std::size_t n = end - begin;
  return n % 2 == 1 ? v[begin + n / 2] : (v[begin + n / 2 - 1] + v[begin + n / 2]) / 2.0;
}

// Median absolute deviation of the sorted logs v[begin, end).
double spread(const std::vector<double>& v, std::size_t begin, std::size_t end) {
  const double center = median_sorted(v, begin, end);
  std::vector<double> deviations;
  for (std::size_t i = begin; i < end; ++i) {
    deviations.push_back(std::fabs(v[i] - center));
  }
  std::sort(deviations.begin(), deviations.end());
  return median_sorted(deviations, 0, deviations.size());
}

// Sets found.low_processes / high_processes when every process's steps lie in one mode (the slower mode
// starting at log step time `slow_from`) and both modes hold a process.
void set_mode_processes(const std::vector<std::pair<std::string, double>>& by_process, double slow_from,
                        BimodalStepsFinding& found) {
  std::map<std::string, std::pair<bool, bool>> modes;  // process -> (has fast steps, has slow steps)
  std::vector<std::string> order;
  for (const auto& [process, log_time] : by_process) {
    auto [it, added] = modes.try_emplace(process, false, false);
    if (added) {
      order.push_back(process);
    }
    (log_time < slow_from ? it->second.first : it->second.second) = true;
  }
  std::vector<std::string> low, high;
  for (const std::string& process : order) {
    const auto [fast, slow] = modes[process];
    if (fast && slow) {
      return;  // a process with steps in both modes: a per-step pattern
    }
    (fast ? low : high).push_back(process);
  }
  if (low.empty() || high.empty()) {
    return;
  }
  // Run folders relative to the folder they share ("run-02/", not the whole path given).
  std::size_t common = order.front().size();
  for (const std::string& process : order) {
    common = std::min(common, process.size());
    for (std::size_t i = 0; i < common; ++i) {
      if (process[i] != order.front()[i]) {
        common = i;
        break;
      }
    }
  }
  common = order.front().rfind('/', common == 0 ? 0 : common - 1);
  const std::size_t cut = common == std::string::npos ? 0 : common + 1;
  for (auto* names : {&low, &high}) {
    for (std::string& name : *names) {
      name = name.rfind("rank ", 0) == 0 || cut >= name.size() ? name : name.substr(cut);
    }
  }
  found.low_processes = std::move(low);
  found.high_processes = std::move(high);
}

}  // namespace

std::optional<BimodalStepsFinding> bimodal_steps(const SideSamples& side, WarmUpSteps warm_up) {
  std::vector<double> logs;
  std::vector<std::pair<std::string, double>> by_process;  // (process, log step time)
  std::set<std::string> folders_seen;
  for (const TraceSamples& trace : side.traces) {
    const std::string folder = trace.path.substr(0, trace.path.find_last_of('/') + 1);
    const bool first_of_run = folders_seen.insert(folder).second;
    if (first_of_run && warm_up == WarmUpSteps::first_trace_of_run) {
      continue;
    }
    for (std::size_t i = warm_up == WarmUpSteps::first_step_of_trace ? 1 : 0; i < trace.steps.size(); ++i) {
      if (trace.steps[i].duration_ns > 0) {
        logs.push_back(std::log(static_cast<double>(trace.steps[i].duration_ns)));
        by_process.emplace_back(trace.rank ? "rank " + std::to_string(*trace.rank) : folder, logs.back());
      }
    }
  }
  const std::size_t n = logs.size();
  if (n < k_bimodal_min_steps) {
    return std::nullopt;
  }
  std::sort(logs.begin(), logs.end());
  const std::size_t min_mode = std::max<std::size_t>(2, (20 * n + 99) / 100);
  std::size_t split = 0;  // first index of the slower mode
  for (std::size_t k = min_mode; k + min_mode <= n; ++k) {
    if (split == 0 || logs[k] - logs[k - 1] > logs[split] - logs[split - 1]) {
      split = k;
    }
  }
  if (split == 0) {
    return std::nullopt;
  }
  const double gap = logs[split] - logs[split - 1];
  const double own = std::max({spread(logs, 0, split), spread(logs, split, n), std::log(1.01)});
  if (gap < std::log(k_bimodal_min_gap) || gap < 4 * own) {
    return std::nullopt;
  }
  BimodalStepsFinding found{side.label,
                            split,
                            n - split,
                            std::exp(median_sorted(logs, 0, split)) / 1000.0,
                            std::exp(median_sorted(logs, split, n)) / 1000.0,
                            {},
                            {}};
  set_mode_processes(by_process, logs[split], found);
  return found;
}

}  // namespace neuron_gate
