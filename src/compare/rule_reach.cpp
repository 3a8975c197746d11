#include "compare/rule_reach.hpp"

#include "util/error.hpp"
#include "util/glob.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace neuron_gate {

RuleReach rule_reach(const SideSamples& base, const std::vector<std::string>& patterns) {
  double cpu = 0, device = 0, cpu_matched = 0, device_matched = 0;
  std::map<std::string, double> matched;  // op key -> self CPU + device ns
  for (const TraceSamples& trace : base.traces) {
    std::vector<char> matches(trace.op_keys.size());
    for (std::size_t k = 0; k < trace.op_keys.size(); ++k) {
      const std::string& key = trace.op_keys[k];
      matches[k] = !is_unattributed_row(key) && std::any_of(patterns.begin(), patterns.end(),
                                                            [&](const std::string& p) { return glob_match(p, key); });
    }
    for (const StepSample& step : trace.steps) {
      for (const OpSample& op : step.ops) {
        const auto self_cpu = static_cast<double>(std::max<Nanoseconds>(op.values.self_cpu_ns, 0));
        const auto on_device = static_cast<double>(std::max<Nanoseconds>(op.values.device_ns, 0));
        cpu += self_cpu;
        device += on_device;
        if (op.op < matches.size() && matches[op.op] != 0) {
          cpu_matched += self_cpu;
          device_matched += on_device;
          matched[trace.op_keys[op.op]] += self_cpu + on_device;
        }
      }
    }
  }
  RuleReach reach;
  reach.self_cpu_share = cpu > 0 ? cpu_matched / cpu : 0.0;
  reach.device_share = device > 0 ? device_matched / device : 0.0;
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [key, ns] : matched) {
    order.emplace_back(-ns, key);
  }
  std::sort(order.begin(), order.end());
  for (std::size_t i = 0; i < order.size() && i < 3; ++i) {
    reach.largest.push_back(order[i].second);
  }
  return reach;
}

namespace {

void require_within(const SideSamples& base, const RuleSet& rules, const std::vector<std::string>& patterns,
                    const std::string& key, const std::string& effect) {
  if (patterns.empty()) {
    return;
  }
  const RuleReach reach = rule_reach(base, patterns);
  const double share = std::max(reach.self_cpu_share, reach.device_share);
  if (share <= k_max_rule_reach_share) {
    return;
  }
  std::string ops;
  for (const std::string& op : reach.largest) {
    ops += (ops.empty() ? "" : ", ") + op;
  }
  const bool cpu = reach.self_cpu_share >= reach.device_share;
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.1f%%", share * 100.0);
  throw InputError(rules.source, "`" + key + "` patterns match ops holding " + percent + " of base's " +
                                     (cpu ? "self CPU" : "device") + " time (" + ops + "), more than the " +
                                     std::to_string(static_cast<int>(k_max_rule_reach_share * 100.0)) +
                                     "% a rules file may " + effect + ": name the ops themselves");
}

}  // namespace

void require_rules_within_reach(const SideSamples& base, const RuleSet& rules) {
  // The built-in rules' own ignore patterns (rules/default.json: the ProfilerStep windows) are not counted.
  const std::vector<std::string> built_in = default_rules().ignore;
  std::vector<std::string> ignore;
  for (const std::string& pattern : rules.ignore) {
    if (std::find(built_in.begin(), built_in.end(), pattern) == built_in.end()) {
      ignore.push_back(pattern);
    }
  }
  require_within(base, rules, ignore, "ignore", "take out of the comparison");
  std::vector<std::string> waived;
  for (const Waiver& waiver : rules.waivers) {
    waived.push_back(waiver.pattern);
  }
  require_within(base, rules, waived, "waivers", "waive");
}

}  // namespace neuron_gate
