#pragma once
// How much of base's time the rules take out of the gate (issue 39 item 6): `ignore` drops ops from the
// comparison and `waivers` keep their regressions from failing it. A pattern's shape alone cannot tell a
// catch-all ("*a*", "*:*" match every aten op), so the rules are checked against base's own ops.

#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// Ignored or waived ops may hold at most this share of base's self CPU time, and of its device time.
inline constexpr double k_max_rule_reach_share = 0.5;

// The share (0..1) of base's self CPU and device time, summed over every step of every trace, held by
// ops whose key matches a pattern of `patterns` (glob), and those ops' keys, the largest first (by self
// CPU + device time). Unattributed device rows are never matched. Shares are 0 when base has no time.
struct RuleReach {
  double self_cpu_share = 0;
  double device_share = 0;
  std::vector<std::string> largest;  // at most 3
};
RuleReach rule_reach(const SideSamples& base, const std::vector<std::string>& patterns);

// Throws InputError naming rules.source when the `ignore` patterns (but the built-in rules' own), or
// the `waiver` patterns, reach more than k_max_rule_reach_share of base's self CPU or device time: the
// message gives the share and the largest ops matched.
void require_rules_within_reach(const SideSamples& base, const RuleSet& rules);

}  // namespace neuron_gate
