#pragma once
// `neuron-gate rank BASE ALT...` (issue 19 item 2): several alternatives measured against one baseline
// under the same conditions and rules, ranked by one deciding end-to-end metric. Every pair of ranked
// profiles (base included) is one test of one family, Holm-corrected together; a difference is
// "established" only when that family says so, so a ranking never orders two profiles whose difference
// is not established without saying so. docs/user-guide.md "Ranking alternatives".

#include "compare/conditions.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"
#include "compare/step_totals.hpp"
#include "profile/read_side.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Why a difference between two ranked profiles is or is not established.
enum class RankEvidence {
  established,           // adjusted two-sided p <= alpha, the ratio CI excludes 1, beyond any run allowance
  not_significant,       // adjusted p > alpha (or the CI holds 1): the data cannot tell them apart
  within_run_allowance,  // significant, but samples of fewer than 5 processes a side and |ratio - 1| below
                         // the rules' between_run_allowance (the same code in another process moves this much)
};

// "established", "not significant", "within the between-run allowance": JSON and prose keys.
const char* rank_evidence_key(RankEvidence evidence);

// One profile of the ranking: the base (input 0) or an alternative (input 1..k), with the deciding
// metric's samples summarised in the metric's own unit.
struct RankedProfile {
  std::size_t input = 0;  // position on the command line: 0 = BASE, 1.. = ALT1..
  // 1 + the number of profiles established to be better than this one: profiles that cannot be told
  // apart share a rank (no ranking where the data do not support one).
  std::size_t rank = 1;
  std::string label;        // the profile as given on the command line
  std::size_t samples = 0;  // samples of the deciding metric (per run when both sides of a pair have runs)
  std::optional<double> median;
  // Versus the base (head = this profile): Hodges-Lehmann ratio with its 95% CI; 1 and [1, 1] for base.
  std::optional<double> ratio, ratio_low, ratio_high;
  std::optional<double> p_adjusted;  // Holm-adjusted two-sided p of this profile vs base; nullopt for base
  RankEvidence versus_base = RankEvidence::not_significant;
  // The manifest's compilation_path ("eager", "jit", "torch.compile"), "" without one: what alternatives
  // differ in by design, so rank shows it rather than refusing it as a condition.
  std::string compilation_path;
};

// The difference between two ranked profiles (indices into Ranking::profiles; `worse` follows `better`
// in the order): ratio worse/better with its 95% CI, raw and Holm-adjusted two-sided p.
struct RankPair {
  std::size_t better = 0, worse = 0;
  std::optional<double> ratio, ratio_low, ratio_high;
  std::optional<double> p, p_adjusted;
  RankEvidence evidence = RankEvidence::not_significant;
};

// An alternative left out of the ranking: its conditions differ from base's (and were not accepted).
struct UnrankedProfile {
  std::size_t input = 0;
  std::string label;
  std::vector<std::string> differing;  // the differing condition names
};

// The typed decision of a `rank`: profiles best first by the deciding metric's median (better = lower
// or higher per the metric), every pair's test (one Holm family over all pairs), and the ones not ranked.
struct Ranking {
  std::string metric;  // the deciding metric, e.g. "latency", or a step total's title ("profiled step time")
  std::optional<StepTotal> step_total;  // set when the traces' per-step totals decide (step_totals.hpp)
  std::size_t drop_first_steps = 0;     // steps left out at the start of each trace (step totals)
  // Step totals only: the first trace of each run folder was left out of every profile (the profiler's
  // warm-up cycle, compare/warm_up.hpp); base's first traces' median step over its later ones' (>= 1.5).
  std::optional<double> warm_up_ratio;
  std::string unit;  // its unit, e.g. "ms"; "us" for step totals
  Better better = Better::lower;
  double alpha = 0.05;
  double run_allowance = 0;             // the between-run allowance applied to at least one pair, 0 when none
  std::size_t family_size = 0;          // pairs tested = n(n-1)/2 for n ranked profiles
  std::vector<RankedProfile> profiles;  // best first
  std::vector<RankPair> pairs;          // every pair, in order (i, j) with i < j in `profiles`
  std::vector<UnrankedProfile> unranked;
  // Ranked profiles whose device time is unknown (profile/device_capture.hpp): device activity was captured
  // but they hold no device time. Labels with the sign, e.g. {"B", "1 NTFF file"}; empty when none.
  std::vector<std::pair<std::string, std::string>> device_unknown;
  // The pair of profiles at positions i and j (i != j) of `profiles`.
  const RankPair& pair(std::size_t i, std::size_t j) const;
  // True when position i (> 0) is established as worse than every profile before it.
  bool separated_from_above(std::size_t i) const;
};

// One input of the ranking: the profile's samples and its conditions versus base (base's own entry has
// an empty diff).
struct RankInput {
  std::string label;
  const SideSamples* side = nullptr;
  ConditionsDiff conditions;
};

// Ranks `inputs` (inputs[0] is the base) by `metric`: an end-to-end metric, "step-time" or
// "device-total" (step_total_named; samples per step, drop_first_steps of each trace left out), or "" =
// the first end-to-end metric of base from the application (e.g. "latency"), else base's step time.
// Measures every pair of comparable profiles with compare_metrics on these samples, Holm over all pairs
// (rules.alpha), the between-run allowance as the gate applies it. Throws UsageError when base has no
// such metric or a comparable alternative lacks it (naming the profile), or as step_total_metric.
Ranking rank_profiles(const std::vector<RankInput>& inputs, const RuleSet& rules, const std::string& metric);

}  // namespace neuron_gate
