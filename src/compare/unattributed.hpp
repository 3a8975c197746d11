#pragma once
// Device time no op accounts for (issue 13 item 2 against issue 12 item 3). The rows "device time not
// attributed to an op (<category>)" (profile/read_side.hpp k_unattributed_row) are measured and shown with
// their change and CI, but a gate never reports IMPROVED or REGRESSED from events it could not attribute:
// their verdict is capped and they never gate. The device class total `all ops` of the same rank sums
// every op's device time and these rows per step, so it is what gates that time (docs/user-guide.md "Device time").

#include "compare/judgement.hpp"

#include <vector>

namespace neuron_gate {

// True for an unattributed row: a device-time metric of scope op whose name without the rank suffix
// starts with k_unattributed_row.
bool is_unattributed(const MetricMeasurement& m);

// True when a device replacement group (scope replacement_group) rests on device time no op accounts
// for, among `metrics` (same rank and operating point): (a) an unattributed row is one of its members (that time
// appeared or vanished), or (b) an unattributed row on both sides moved by at least `floor_us` per step (median change)
// against the group's own median change: time may have moved between the group's ops and no op (an op's
// kernels that lost their launch read as the op gone), so the group's change is not the ops' own.
bool group_holds_unattributed(const MetricMeasurement& group, const std::vector<MetricComparison>& metrics,
                              double floor_us);

// Marks the unattributed rows and the device replacement groups of group_holds_unattributed()
// (MetricJudgement::unattributed), moves them to Family::unattributed (corrected on their own, never
// gating) and takes them out of `selection`'s material / not_material / sums counts into its
// `unattributed` count. Run after select_material() and before the families are adjusted.
void mark_unattributed(std::vector<MetricComparison>& metrics, double floor_us, MaterialSelection& selection);

// The cap (judgement.hpp): an unattributed metric REGRESSED or IMPROVED becomes INCONCLUSIVE with reason
// not_attributed and capped_from the verdict it had; other verdicts stay.
void cap_unattributed(MetricComparison& m);

// The device class total `all ops` (scope class_total) of a metric's rank and operating point among `metrics`, or
// metrics.size() when there is none.
std::size_t device_total_of(const MetricComparison& m, const std::vector<MetricComparison>& metrics);

}  // namespace neuron_gate
