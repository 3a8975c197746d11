#include "compare/unattributed.hpp"

#include "compare/findings.hpp"
#include "profile/read_side.hpp"

#include <algorithm>

namespace neuron_gate {
namespace {

bool both_sides(const MetricMeasurement& m) {
  return m.present_in_base && m.present_in_head;
}

}  // namespace

bool is_unattributed(const MetricMeasurement& m) {
  return m.metric_class == MetricClass::device && m.scope == MetricScope::op && is_unattributed_row(unranked_name(m));
}

bool group_holds_unattributed(const MetricMeasurement& group, const std::vector<MetricComparison>& metrics,
                              double floor_us) {
  if (group.metric_class != MetricClass::device || group.scope != MetricScope::replacement_group) {
    return false;
  }
  for (const auto* list : {&group.replaced->gone, &group.replaced->appeared, &group.replaced->calls_changed}) {
    if (std::any_of(list->begin(), list->end(), [](const std::string& name) { return is_unattributed_row(name); })) {
      return true;  // (a) a member
    }
  }
  const double group_change = median_change(group).value_or(0.0);
  for (const MetricComparison& m : metrics) {
    if (!is_unattributed(m) || m.rank != group.rank || m.point != group.point || !both_sides(m)) {
      continue;
    }
    const double change = median_change(m).value_or(0.0);
    if (std::abs(change) >= floor_us && std::abs(change) > 0 && (change > 0) != (group_change > 0)) {
      return true;  // (b) moved against the group
    }
  }
  return false;
}

void mark_unattributed(std::vector<MetricComparison>& metrics, double floor_us, MaterialSelection& selection) {
  std::vector<bool> mark(metrics.size());
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    mark[i] = is_unattributed(metrics[i]) || group_holds_unattributed(metrics[i], metrics, floor_us);
  }
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    MetricComparison& m = metrics[i];
    if (!mark[i]) {
      continue;
    }
    if (both_sides(m)) {
      // Out of the counts select_material made (an op present on one side only was never counted).
      std::size_t& count = m.scope != MetricScope::op     ? selection.sums
                           : m.family == Family::replaced ? selection.replaced
                           : m.family == Family::per_op   ? selection.material
                                                          : selection.not_material;
      count -= count > 0 ? 1 : 0;
      ++selection.unattributed;
    }
    m.unattributed = true;
    if (m.family != Family::replaced) {
      m.family = Family::unattributed;  // a row that appeared or vanished stays STRUCTURAL with its group
    }
  }
}

void cap_unattributed(MetricComparison& m) {
  if (m.unattributed && (m.verdict == Verdict::regressed || m.verdict == Verdict::improved)) {
    m.capped_from = m.verdict;
    m.verdict = Verdict::inconclusive;
    m.why = VerdictReason::not_attributed;
  }
}

std::size_t device_total_of(const MetricComparison& m, const std::vector<MetricComparison>& metrics) {
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& t = metrics[i];
    if (t.metric_class == MetricClass::device && t.scope == MetricScope::class_total && t.rank == m.rank &&
        t.point == m.point) {
      return i;
    }
  }
  return metrics.size();
}

}  // namespace neuron_gate
