#pragma once
// Which per-op metrics matter (issue 14 item 1): the material ones form the per-op correction family and
// gate; the others are reported, corrected on their own, and never fail the gate. Chosen from base's
// data alone, before any test, so the choice cannot depend on the change being tested.

#include "compare/judgement.hpp"

#include <vector>

namespace neuron_gate {

// Marks every per-op metric of `metrics` material or not (MetricJudgement::material, base_share) and
// moves the non-material ones to Family::per_op_minor. References, per rank (a rank-less comparison is
// one rank): self CPU against base's median step time (or, without a step-time metric, the sum of the
// self CPU ops' base medians); device time against the sum of the device ops' base medians (or, without
// device time, the step time). An op is material when its base or head median >= share x base's reference; an op
// absent from base is not; without a positive reference every op is. share 0 makes every op material.
// Replacement groups and class totals (MetricScope) are always material, stay in Family::per_op and
// do not count toward the references. Ops that are members of a replacement group of their class and
// rank move to Family::replaced (judged through the group). Counts cover metrics with both sides
// present. Other metric classes are left material.
MaterialSelection select_material(std::vector<MetricComparison>& metrics, double share);

}  // namespace neuron_gate
