#include "compare/ranking.hpp"

#include "compare/step_totals.hpp"
#include "profile/device_capture.hpp"
#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/multiple_testing.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <numeric>

namespace neuron_gate {

const char* rank_evidence_key(RankEvidence evidence) {
  switch (evidence) {
  case RankEvidence::established:
    return "established";
  case RankEvidence::not_significant:
    return "not significant";
  case RankEvidence::within_run_allowance:
    return "within the between-run allowance";
  }
  return "not significant";
}

const RankPair& Ranking::pair(std::size_t i, std::size_t j) const {
  const std::size_t a = std::min(i, j), b = std::max(i, j);
  const auto found =
      std::find_if(pairs.begin(), pairs.end(), [&](const RankPair& p) { return p.better == a && p.worse == b; });
  if (found == pairs.end()) {
    throw std::logic_error("ranking: no pair for these positions");
  }
  return *found;
}

bool Ranking::separated_from_above(std::size_t i) const {
  return i > 0 && i < profiles.size() && pair(i - 1, i).evidence == RankEvidence::established;
}

namespace {

// The deciding metric's name: `requested`, else base's first end-to-end metric measured by the
// application (e2e.json, a benchmark tool), else its first end-to-end metric, else (traces without
// end-to-end numbers) the profiled step time "step-time".
std::string deciding_metric(const SideSamples& base, const std::string& requested, const std::string& label) {
  if (!requested.empty()) {
    return requested;
  }
  for (const EndToEndMetric& metric : base.end_to_end) {
    if (metric.origin == EndToEndOrigin::application) {
      return metric.name;
    }
  }
  if (!base.end_to_end.empty()) {
    return base.end_to_end.front().name;
  }
  if (base.traces.empty()) {
    throw UsageError("rank needs an end-to-end metric (e2e.json or a benchmark tool's file) or traces in the base "
                     "profile \"" +
                     label + "\": neither was found");
  }
  return "step-time";
}

// The deciding metric of one profile: a step total of its traces (step_totals.hpp) or its end-to-end metric
// `name`; throws UsageError naming the profile when it lacks it.
EndToEndMetric metric_of(const SideSamples& side, const std::string& name, const std::string& label,
                         const RuleSet& rules) {
  if (const std::optional<StepTotal> total = step_total_named(name)) {
    return step_total_metric(side, *total, rules.drop_first_steps, label);
  }
  const auto found = std::find_if(side.end_to_end.begin(), side.end_to_end.end(),
                                  [&](const EndToEndMetric& m) { return m.name == name; });
  if (found == side.end_to_end.end()) {
    throw UsageError("rank: the profile \"" + label + "\" has no end-to-end metric \"" + name +
                     "\", which decides the ranking (--metric step-time or device-total ranks on traces)");
  }
  return *found;
}

// One pair measured as `compare` measures an end-to-end metric (compare_metrics on these samples only), but
// with the ratio's 95% CI: rank's tests are two-sided at alpha, compare's one-sided (its CIs are 90%).
MetricMeasurement measure(const EndToEndMetric& base, const EndToEndMetric& head, const RuleSet& rules) {
  SideSamples b, h;
  b.end_to_end = {base};
  h.end_to_end = {head};
  h.end_to_end.front().unit = base.unit;  // checked equal by rank_profiles
  std::vector<MetricMeasurement> measured = compare_metrics(b, h, rules);
  MetricMeasurement& m = measured.front();
  if (m.ratio_from_logs && !m.paired) {
    if (const auto ratio = hodges_lehmann_ratio(m.base_samples, m.head_samples, 0.95)) {
      m.ratio_low = ratio->ci_low;
      m.ratio_high = ratio->ci_high;
    }
  }
  return std::move(m);
}

// The gate's between-run allowance for a pair (judgement.cpp): samples of fewer than 5 processes a side.
double run_allowance(const MetricMeasurement& m, const RuleSet& rules) {
  return m.base_processes < k_min_runs_for_e2e_run_unit || m.head_processes < k_min_runs_for_e2e_run_unit
             ? rules.between_run_allowance
             : 0.0;
}

RankEvidence evidence(const MetricMeasurement& m, std::optional<double> p_adjusted, double allowance, double alpha) {
  const bool excludes_one = m.ratio_low && m.ratio_high && (*m.ratio_low > 1.0 || *m.ratio_high < 1.0);
  if (!p_adjusted || *p_adjusted > alpha || !excludes_one || !m.ratio) {
    return RankEvidence::not_significant;
  }
  if (allowance > 0 && *m.ratio<1.0 + allowance&& * m.ratio> 1.0 - allowance) {
    return RankEvidence::within_run_allowance;
  }
  return RankEvidence::established;
}

// The ranked profiles (base and comparable alternatives) with their deciding metric, best first.
struct Entry {
  RankedProfile profile;
  EndToEndMetric metric;
};

std::vector<Entry> ranked_entries(const std::vector<RankInput>& inputs, const std::string& name, const RuleSet& rules,
                                  Ranking& ranking) {
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const RankInput& input = inputs[i];
    if (i > 0 && !input.conditions.comparable()) {
      UnrankedProfile unranked{i, input.label, {}};
      for (const ConditionRow& row : input.conditions.rows) {
        if (!row.matches && !row.accepted) {
          unranked.differing.push_back(row.name);
        }
      }
      ranking.unranked.push_back(std::move(unranked));
      continue;
    }
    Entry entry;
    entry.metric = metric_of(*input.side, name, input.label, rules);
    if (i > 0 && entry.metric.unit != entries.front().metric.unit) {
      throw UsageError("rank: \"" + name + "\" is in " + entry.metric.unit + " in \"" + input.label + "\" but in " +
                       entries.front().metric.unit + " in the base profile");
    }
    entry.profile.input = i;
    entry.profile.label = input.label;
    if (device_time_unknown(*input.side)) {
      ranking.device_unknown.emplace_back(input.label, device_capture_sign(*input.side));
    }
    entry.profile.median = median(entry.metric.samples);
    if (input.side->manifest) {
      const auto path = input.side->manifest->fields.find("compilation_path");
      if (path != input.side->manifest->fields.end()) {
        entry.profile.compilation_path = path->second;
      }
    }
    entries.push_back(std::move(entry));
  }
  const bool lower = entries.front().metric.better == Better::lower;
  std::stable_sort(entries.begin(), entries.end(), [lower](const Entry& a, const Entry& b) {
    const double x = a.profile.median.value_or(0.0), y = b.profile.median.value_or(0.0);
    return lower ? x < y : x > y;
  });
  return entries;
}

// Every pair (i < j) of the ordered entries measured, then one Holm (rules.correction) family over them.
void test_pairs(const std::vector<Entry>& entries, const RuleSet& rules, Ranking& ranking) {
  std::vector<MetricMeasurement> measured;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    for (std::size_t j = i + 1; j < entries.size(); ++j) {
      MetricMeasurement m = measure(entries[i].metric, entries[j].metric, rules);
      RankPair pair;
      pair.better = i;
      pair.worse = j;
      pair.ratio = m.ratio;
      pair.ratio_low = m.ratio_low;
      pair.ratio_high = m.ratio_high;
      pair.p = m.p_two_sided;
      ranking.pairs.push_back(pair);
      measured.push_back(std::move(m));
    }
  }
  std::vector<double> p(measured.size());
  for (std::size_t k = 0; k < measured.size(); ++k) {
    p[k] = measured[k].p_two_sided.value_or(1.0);
  }
  const std::vector<double> adjusted = adjust_p_values(p, rules.correction);
  for (std::size_t k = 0; k < measured.size(); ++k) {
    const double allowance = run_allowance(measured[k], rules);
    ranking.run_allowance = std::max(ranking.run_allowance, allowance);
    ranking.pairs[k].p_adjusted = adjusted[k];
    ranking.pairs[k].evidence = evidence(measured[k], adjusted[k], allowance, rules.alpha);
  }
  ranking.family_size = measured.size();
}

}  // namespace

Ranking rank_profiles(const std::vector<RankInput>& inputs, const RuleSet& rules, const std::string& metric) {
  if (inputs.empty() || inputs.front().side == nullptr) {
    throw std::logic_error("rank_profiles: no base");
  }
  Ranking ranking;
  const std::string name = deciding_metric(*inputs.front().side, metric, inputs.front().label);
  ranking.step_total = step_total_named(name);
  ranking.metric = ranking.step_total ? step_total_title(*ranking.step_total) : name;
  ranking.drop_first_steps = rules.drop_first_steps;
  ranking.alpha = rules.alpha;
  std::vector<Entry> entries = ranked_entries(inputs, name, rules, ranking);
  const auto base_entry =
      std::find_if(entries.begin(), entries.end(), [](const Entry& e) { return e.profile.input == 0; });
  ranking.unit = base_entry->metric.unit;
  ranking.better = base_entry->metric.better;
  test_pairs(entries, rules, ranking);
  const std::size_t base_position = static_cast<std::size_t>(base_entry - entries.begin());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    RankedProfile profile = entries[i].profile;
    if (i == base_position) {
      profile.ratio = profile.ratio_low = profile.ratio_high = 1.0;
    } else {
      // Versus base with this profile as head: the ratio this profile / base, as `compare BASE ALT` shows it.
      const MetricMeasurement m = measure(base_entry->metric, entries[i].metric, rules);
      profile.ratio = m.ratio;
      profile.ratio_low = m.ratio_low;
      profile.ratio_high = m.ratio_high;
      profile.p_adjusted = ranking.pair(i, base_position).p_adjusted;
      profile.versus_base = ranking.pair(i, base_position).evidence;
    }
    profile.samples = entries[i].metric.samples.size();
    for (std::size_t j = 0; j < i; ++j) {
      profile.rank += ranking.pair(j, i).evidence == RankEvidence::established ? 1U : 0U;
    }
    ranking.profiles.push_back(std::move(profile));
  }
  return ranking;
}

}  // namespace neuron_gate
