#include "compare/material.hpp"

#include <map>
#include <set>
#include <tuple>

namespace neuron_gate {
namespace {

// Base's reference times of one rank, in µs per step.
struct References {
  std::optional<double> step_us;
  double cpu_us = 0, device_us = 0;
};

bool per_op(const MetricComparison& m) {
  return (m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::device) &&
         m.scope == MetricScope::op;
}

// The members of every replacement group, by class, rank and op name (no rank suffix).
using MemberKey = std::tuple<std::string, MetricClass, std::optional<unsigned>, std::string>;
// References are per operating point and rank.
using ReferenceKey = std::pair<std::string, std::optional<unsigned>>;

std::set<MemberKey> group_members(const std::vector<MetricComparison>& metrics) {
  std::set<MemberKey> members;
  for (const MetricComparison& m : metrics) {
    if (m.scope == MetricScope::replacement_group) {
      for (const auto* list : {&m.replaced->gone, &m.replaced->appeared, &m.replaced->calls_changed}) {
        for (const std::string& name : *list) {
          members.insert({m.point, m.metric_class, m.rank, name});
        }
      }
    }
  }
  return members;
}

std::optional<double> positive(std::optional<double> value) {
  return value && *value > 0 ? value : std::nullopt;
}

std::optional<double> reference_for(const MetricComparison& m, const References& r) {
  if (m.metric_class == MetricClass::self_cpu) {
    return positive(r.step_us) ? r.step_us : positive(r.cpu_us);
  }
  return r.device_us > 0 ? std::optional<double>(r.device_us) : positive(r.step_us);
}

}  // namespace

MaterialSelection select_material(std::vector<MetricComparison>& metrics, double share) {
  std::map<ReferenceKey, References> by_rank;
  for (const MetricComparison& m : metrics) {
    References& r = by_rank[{m.point, m.rank}];
    if (m.metric_class == MetricClass::step_time) {
      r.step_us = m.base_median;
    } else if (per_op(m) && m.present_in_base && m.base_median) {
      (m.metric_class == MetricClass::self_cpu ? r.cpu_us : r.device_us) += *m.base_median;
    }
  }
  MaterialSelection selection;
  selection.share = share;
  if (!by_rank.empty()) {
    const References& first = by_rank.begin()->second;
    selection.step_us = first.step_us;
    selection.device_us = first.device_us > 0 ? std::optional<double>(first.device_us) : std::nullopt;
  }
  const std::set<MemberKey> members = group_members(metrics);
  for (MetricComparison& m : metrics) {
    if (m.scope != MetricScope::op) {
      selection.sums += (m.present_in_base && m.present_in_head) ? 1 : 0;  // always material, in Family::per_op
    }
    if (!per_op(m)) {
      continue;
    }
    const std::optional<double> reference = reference_for(m, by_rank[{m.point, m.rank}]);
    if (reference && m.base_median) {
      m.base_share = *m.base_median / *reference;
    }
    // Material by either side (docs/decision-rule.md): base's or head's median per step against base's
    // reference, so an op that grows from a small share gates.
    const bool head_material = reference && m.head_median && *m.head_median / *reference >= share;
    m.material = !m.present_in_base
                     ? false
                     : !reference || share <= 0 || (m.base_share && *m.base_share >= share) || head_material;
    const bool replaced = members.count({m.point, m.metric_class, m.rank, unranked_name(m)}) > 0;
    if (replaced) {
      m.family = Family::replaced;
    } else if (!m.material && m.family != Family::runtime_calls) {
      m.family = Family::per_op_minor;
    }
    if (m.present_in_base && m.present_in_head) {
      ++(replaced ? selection.replaced : m.material ? selection.material : selection.not_material);
    }
  }
  return selection;
}

}  // namespace neuron_gate
