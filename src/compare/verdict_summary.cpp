#include "compare/verdict_summary.hpp"

#include "compare/findings.hpp"

#include <algorithm>
#include <cmath>

namespace neuron_gate {
namespace {

// The ratio with > 1 meaning worse, whatever the metric's direction (1 when unknown).
double worse_ratio(const MetricComparison& m) {
  const double ratio = m.ratio.value_or(1.0);
  return m.better == Better::lower || ratio <= 0 ? ratio : 1.0 / ratio;
}

double absolute_change(const MetricComparison& m) {
  const auto change = median_change(m);
  return change ? std::fabs(*change) : 0.0;
}

// Both medians 0 or absent: nothing to show.
bool all_zero(const MetricComparison& m) {
  return m.base_median.value_or(0.0) == 0.0 && m.head_median.value_or(0.0) == 0.0;
}

std::vector<std::size_t> gating_where(const Judgement& j, bool (*keep)(const MetricComparison&)) {
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < j.metrics.size(); ++i) {
    if (j.metrics[i].gating && keep(j.metrics[i])) {
      found.push_back(i);
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [&](std::size_t a, std::size_t b) { return worse_ratio(j.metrics[a]) > worse_ratio(j.metrics[b]); });
  return found;
}

// On a pass: the gating metrics of the first gating class that has any, most changed first, at most 3.
std::vector<std::size_t> pass_gate(const Judgement& j) {
  std::vector<std::size_t> found;
  for (MetricClass c : j.decision.gating_classes) {
    for (std::size_t i = 0; i < j.metrics.size(); ++i) {
      const MetricComparison& m = j.metrics[i];
      if (m.gating && m.metric_class == c && !all_zero(m) && m.present_in_base && m.present_in_head) {
        found.push_back(i);
      }
    }
    if (!found.empty()) {
      break;
    }
  }
  // Metrics with a ratio first: a change from a base median of 0 has no % to put in the headline.
  std::stable_sort(found.begin(), found.end(), [&](std::size_t a, std::size_t b) {
    const MetricComparison& x = j.metrics[a];
    const MetricComparison& y = j.metrics[b];
    if (x.ratio.has_value() != y.ratio.has_value()) {
      return x.ratio.has_value();
    }
    return absolute_change(x) > absolute_change(y);
  });
  found.resize(std::min<std::size_t>(found.size(), 3));
  return found;
}

std::vector<std::size_t> deciding_metrics(const Judgement& j) {
  switch (j.decision.outcome) {
  case Outcome::not_comparable:  // head's incomplete data name their metric; differing conditions none
    return j.decision.no_decision ? std::vector<std::size_t>{j.decision.no_decision->metric}
                                  : std::vector<std::size_t>{};
  case Outcome::regression:
    return gating_where(j, [](const MetricComparison& m) { return m.verdict == Verdict::regressed && !m.waiver; });
  case Outcome::no_decision:
    return j.decision.no_decision && j.decision.no_decision->cause != NoDecisionCause::device_time_missing
               ? std::vector<std::size_t>{j.decision.no_decision->metric}
               : std::vector<std::size_t>{};
  case Outcome::pass:
    break;
  }
  std::vector<std::size_t> waived = gating_where(
      j, [](const MetricComparison& m) { return m.verdict == Verdict::regressed && m.waiver.has_value(); });
  return waived.empty() ? pass_gate(j) : waived;
}

// Explaining rows after the deciding ones: STRUCTURAL ops, then the largest op or step-time changes.
void add_explaining(const Judgement& j, VerdictSummary& s, std::size_t max_rows) {
  auto taken = [&](std::size_t i) {
    return std::any_of(s.rows.begin(), s.rows.end(), [i](const SummaryRow& r) { return r.metric == i; });
  };
  std::vector<std::size_t> structural, changes;
  for (std::size_t i = 0; i < j.metrics.size(); ++i) {
    const MetricComparison& m = j.metrics[i];
    if (taken(i) || all_zero(m) || m.metric_class == MetricClass::end_to_end || m.scope == MetricScope::class_total) {
      continue;
    }
    if (m.scope == MetricScope::replacement_group) {
      if (s.rows.size() < max_rows) {
        s.rows.push_back({i, SummaryRole::replacement});  // the replacement explains its ops: first
      }
      continue;
    }
    (m.verdict == Verdict::structural ? structural : changes).push_back(i);
  }
  auto larger = [&](std::size_t a, std::size_t b) {
    return absolute_change(j.metrics[a]) > absolute_change(j.metrics[b]);
  };
  std::stable_sort(structural.begin(), structural.end(), larger);
  std::stable_sort(changes.begin(), changes.end(), larger);
  // Structural ops may take at most half of what is left, so the largest changes are shown too.
  const std::size_t room = max_rows > s.rows.size() ? max_rows - s.rows.size() : 0;
  const std::size_t structural_room = changes.empty() ? room : (room + 1) / 2;
  for (std::size_t k = 0; k < structural.size() && k < structural_room; ++k) {
    s.rows.push_back({structural[k], SummaryRole::structural});
  }
  for (std::size_t k = 0; k < changes.size() && s.rows.size() < max_rows; ++k) {
    const MetricComparison& m = j.metrics[changes[k]];
    // A change that rounds to +0.0% explains nothing.
    if (absolute_change(m) > 0.0 && !(m.ratio && std::fabs(*m.ratio - 1.0) < 0.0005)) {
      s.rows.push_back({changes[k], SummaryRole::top_change});
    }
  }
}

}  // namespace

VerdictSummary summarize_verdict(const Judgement& judgement, const ConditionsDiff& conditions, std::size_t max_rows) {
  VerdictSummary s;
  s.deciding = deciding_metrics(judgement);
  for (MetricClass c : judgement.decision.gating_classes) {
    if (std::any_of(judgement.metrics.begin(), judgement.metrics.end(),
                    [c](const MetricComparison& m) { return m.gating && m.metric_class == c; })) {
      s.gating_classes.push_back(c);
    }
  }
  s.pass_per_op = judgement.decision.outcome == Outcome::pass && !s.deciding.empty() &&
                  judgement.metrics[s.deciding.front()].metric_class != MetricClass::end_to_end &&
                  !judgement.metrics[s.deciding.front()].waiver;
  for (const MetricComparison& m : judgement.metrics) {
    if (m.gating && m.verdict == Verdict::regressed && m.waiver) {
      ++s.waived;
      if (m.waiver_until && (!s.waived_until || *m.waiver_until < *s.waived_until)) {
        s.waived_until = *m.waiver_until;
      }
    }
  }
  for (const ConditionRow& row : conditions.rows) {
    ++s.conditions;
    s.conditions_matched += row.matches && row.verified ? 1 : 0;
    if (row.matches && !row.verified) {
      s.conditions_unverified.push_back(row.name);
    }
    s.conditions_accepted += (!row.matches && row.accepted) ? 1 : 0;
  }
  if (!s.deciding.empty()) {
    s.base_samples = judgement.metrics[s.deciding.front()].base_samples.size();
    s.head_samples = judgement.metrics[s.deciding.front()].head_samples.size();
  }
  if (judgement.decision.outcome == Outcome::not_comparable) {
    return s;
  }
  for (std::size_t i : s.deciding) {
    if (s.rows.size() < max_rows) {
      s.rows.push_back({i, SummaryRole::deciding});
    }
  }
  add_explaining(judgement, s, max_rows);
  return s;
}

const char* summary_role_key(SummaryRole role) {
  switch (role) {
  case SummaryRole::deciding:
    return "deciding";
  case SummaryRole::replacement:
    return "replacement";
  case SummaryRole::structural:
    return "structural";
  case SummaryRole::top_change:
    break;
  }
  return "top_change";
}

}  // namespace neuron_gate
