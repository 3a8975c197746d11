#pragma once
// Step 4-5 for sides of several operating points (docs/user-guide.md "Operating points"; profile/operating_points.hpp
// finds them): points are matched by label, each point's conditions are checked on their own, every
// metric of every compared point is judged in one set of families (one Holm correction across all
// points), and each point gets its own decision from its metrics. A point on one side only, or whose
// conditions differ, is not compared; a base point so left out makes the whole comparison NOT COMPARABLE.

#include "compare/conditions.hpp"
#include "compare/judgement.hpp"
#include "compare/warm_up.hpp"
#include "profile/read_side.hpp"
#include "store/repository_state.hpp"

#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Why a point was or was not compared.
enum class PointStatus {
  compared,           // on both sides, conditions comparable
  base_only,          // present in base only
  head_only,          // present in head only
  conditions_differ,  // on both sides, a condition differs (ConditionsDiff names it)
};

// One operating point of a comparison.
struct PointComparison {
  std::string label;
  std::optional<SideSamples> base, head;  // nullopt on a side that lacks the point
  // What a side read from digests recorded of its repository (load_sides), kept beside its samples.
  std::optional<RecordedRepository> base_recorded, head_recorded;
  ConditionsDiff conditions;  // the point's own (empty when a side lacks it)
  PointStatus status = PointStatus::compared;
  // The point's metrics, names without the point suffix, adjusted p values from the whole family; its
  // decision is the point's own (not_comparable unless compared). Set by judge_points.
  Judgement judgement;
  std::vector<BaseNoise> base_noise;     // base's A/A noise at this point (names without suffix), if estimated
  std::optional<WarmUpFinding> warm_up;  // the warm-up screen's finding when it left traces out (warm_up.hpp)
};

// The outcome across points: every metric of every compared point (names with point_suffix) and the
// gate's decision: not_comparable when a base point is missing in head or its conditions differ, or when
// no point was compared (fail closed: the PR controls which points head holds); else regression when any
// point regressed; else decided by the compared points as one comparison.
struct PointsJudgement {
  std::vector<PointComparison> points;  // ordered by label
  Judgement judgement;
};

// Sets each point's status from its sides and conditions (compared only with both sides present and
// conditions.comparable()).
void set_point_status(PointComparison& point);

// The status as the points JSON report writes it: "compared", "base_only", "head_only", "conditions_differ".
const char* point_status_key(PointStatus status);

// Measures every compared point (compare_metrics), names its metrics with the point, judges them all at
// once (judge(): families and Holm across points), then gives each point its slice of the metrics and
// its own decision. Throws UsageError when no compared point has a gating metric with samples on both
// sides (nothing to gate).
PointsJudgement judge_points(std::vector<PointComparison> points, const RuleSet& rules, const DecideOptions& options);

}  // namespace neuron_gate
