#include "compare/operating_points.hpp"

#include "compare/material.hpp"
#include "compare/unattributed.hpp"
#include "profile/operating_points.hpp"
#include "util/error.hpp"

#include <algorithm>

namespace neuron_gate {
namespace {

// The point's metrics with names carrying the point.
std::vector<MetricMeasurement> point_metrics(const PointComparison& point, const RuleSet& rules) {
  std::vector<MetricMeasurement> metrics = compare_metrics(*point.base, *point.head, rules);
  for (MetricMeasurement& m : metrics) {
    m.point = point.label;
    m.name += point_suffix(point.label);
  }
  return metrics;
}

// The metrics of `point` in `all`, named as a comparison of that point alone would name them.
std::vector<MetricComparison> slice_of(const std::vector<MetricComparison>& all, const std::string& label) {
  std::vector<MetricComparison> slice;
  const std::string suffix = point_suffix(label);
  for (const MetricComparison& m : all) {
    if (m.point == label) {
      slice.push_back(m);
      slice.back().name.resize(slice.back().name.size() - suffix.size());
      slice.back().point.clear();
    }
  }
  return slice;
}

// The point's own decision over its slice, under the gate's classes.
Judgement point_judgement(const PointComparison& point, const Judgement& all, const RuleSet& rules,
                          const DecideOptions& options) {
  Judgement judgement;
  judgement.decision.gating_classes = all.decision.gating_classes;
  if (point.status == PointStatus::compared) {
    judgement.metrics = slice_of(all.metrics, point.label);
    std::vector<MetricComparison> copy = judgement.metrics;  // the families are already set: only the counts
    judgement.decision.material = select_material(copy, rules.material_share);
    mark_unattributed(copy, rules.floor_us, judgement.decision.material);
  }
  if (point.status == PointStatus::compared) {
    DecideOptions own = options;  // device time missing at this point, judged over its own slice
    own.device_time_missing = device_time_missing(*point.base, *point.head);
    own.device_time_missing_point.clear();
    decide(judgement, point.conditions, own);
  } else {
    judgement.decision.outcome = Outcome::not_comparable;
    judgement.decision.exit_code = exit_code(Outcome::not_comparable, options.strict);
  }
  return judgement;
}

}  // namespace

void set_point_status(PointComparison& point) {
  if (!point.base || !point.head) {
    point.status = point.base ? PointStatus::base_only : PointStatus::head_only;
  } else {
    point.status = point.conditions.comparable() ? PointStatus::compared : PointStatus::conditions_differ;
  }
}

PointsJudgement judge_points(std::vector<PointComparison> points, const RuleSet& rules, const DecideOptions& options) {
  std::vector<MetricMeasurement> measurements;
  DecideOptions all_options = options;
  bool any_compared = false;
  for (const PointComparison& point : points) {
    if (point.status != PointStatus::compared) {
      continue;
    }
    any_compared = true;
    std::vector<MetricMeasurement> metrics = point_metrics(point, rules);
    const DeviceTimeMissing missing = device_time_missing(*point.base, *point.head);
    if (!missing.sides.empty() && all_options.device_time_missing.sides.empty() &&
        std::none_of(metrics.begin(), metrics.end(),
                     [](const MetricMeasurement& m) { return m.metric_class == MetricClass::device; })) {
      all_options.device_time_missing = missing;  // the first such point names the gate's NO DECISION
      all_options.device_time_missing_point = point.label;
    }
    std::move(metrics.begin(), metrics.end(), std::back_inserter(measurements));
    for (BaseNoise noise : point.base_noise) {
      noise.name += point_suffix(point.label);
      all_options.base_noise.push_back(noise);
    }
  }
  // The gate's conditions (docs/decision-rule.md, fail closed): every base point compared in head. A base
  // point head lacks (dropped or relabelled) or whose conditions differ makes the whole comparison NOT
  // COMPARABLE, named here; a point only in head is new and does not block. Each point's own rows are in
  // its PointComparison.
  ConditionsDiff conditions;
  for (const PointComparison& point : points) {
    if (point.status == PointStatus::base_only) {
      conditions.rows.push_back(ConditionRow{"operating_point", point.label, "missing", false, false,
                                             "a base operating point absent in head (dropped or relabelled) is not "
                                             "compared, so head cannot pass on the others"});
    } else if (point.status == PointStatus::conditions_differ) {
      conditions.rows.push_back(ConditionRow{"operating_point", point.label, point.label, false, false,
                                             "its conditions differ (see the point's own table)"});
    }
  }
  if (!any_compared) {
    conditions.rows.push_back(ConditionRow{"operating_points", "", "", false, false, "no point compared"});
  }
  PointsJudgement result;
  result.judgement = judge(std::move(measurements), conditions, rules, all_options);
  std::size_t gating = 0;
  for (const auto& [verdict, count] : result.judgement.decision.gating_counts) {
    gating += count;
  }
  if (any_compared && gating == 0) {
    throw UsageError("nothing to gate: no gating metric has samples on both sides at any operating point after the "
                     "rules (" +
                     rules.source + ": ignore, drop_first_steps, gate) were applied");
  }
  for (PointComparison& point : points) {
    point.judgement = point_judgement(point, result.judgement, rules, all_options);
  }
  result.points = std::move(points);
  return result;
}

const char* point_status_key(PointStatus status) {
  switch (status) {
  case PointStatus::compared:
    return "compared";
  case PointStatus::base_only:
    return "base_only";
  case PointStatus::head_only:
    return "head_only";
  case PointStatus::conditions_differ:
    break;
  }
  return "conditions_differ";
}

}  // namespace neuron_gate
