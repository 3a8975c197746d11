#include "compare/replacement_groups.hpp"

#include <algorithm>
#include <stdexcept>

namespace neuron_gate {
namespace {

void add_into(std::vector<double>& sums, const std::vector<double>& values, const std::string& name) {
  if (values.empty()) {
    return;
  }
  if (values.size() != sums.size()) {
    throw std::invalid_argument("sum_class: op " + name + " has " + std::to_string(values.size()) +
                                " step values for " + std::to_string(sums.size()) + " steps");
  }
  for (std::size_t s = 0; s < sums.size(); ++s) {
    sums[s] += values[s];
  }
}

}  // namespace

const char* metric_scope_key(MetricScope scope) {
  switch (scope) {
  case MetricScope::op:
    return "op";
  case MetricScope::replacement_group:
    return "replacement group";
  case MetricScope::class_total:
    return "class total";
  }
  return "op";
}

Replacement replacement_of(const OpStepValues& op) {
  if (op.in_base && !op.in_head) {
    return Replacement::gone;
  }
  if (op.in_head && !op.in_base) {
    return Replacement::appeared;
  }
  if (op.in_base && op.base_calls && op.head_calls && *op.base_calls != *op.head_calls) {
    return Replacement::calls_changed;
  }
  return Replacement::none;
}

ClassSums start_class_sums(std::size_t base_steps, std::size_t head_steps) {
  ClassSums sums;
  sums.group_base.assign(base_steps, 0.0);
  sums.group_head.assign(head_steps, 0.0);
  sums.total_base.assign(base_steps, 0.0);
  sums.total_head.assign(head_steps, 0.0);
  return sums;
}

void add_to_class_sums(ClassSums& sums, const OpStepValues& op) {
  add_into(sums.total_base, *op.base, op.name);
  add_into(sums.total_head, *op.head, op.name);
  const Replacement how = replacement_of(op);
  if (how == Replacement::none) {
    return;
  }
  add_into(sums.group_base, *op.base, op.name);
  add_into(sums.group_head, *op.head, op.name);
  (how == Replacement::gone       ? sums.members.gone
   : how == Replacement::appeared ? sums.members.appeared
                                  : sums.members.calls_changed)
      .push_back(op.name);
}

void finish_class_sums(ClassSums& sums) {
  for (std::vector<std::string>* list : {&sums.members.gone, &sums.members.appeared, &sums.members.calls_changed}) {
    std::sort(list->begin(), list->end());
  }
}

ClassSums sum_class(const std::vector<OpStepValues>& ops, std::size_t base_steps, std::size_t head_steps) {
  ClassSums sums = start_class_sums(base_steps, head_steps);
  for (const OpStepValues& op : ops) {
    add_to_class_sums(sums, op);
  }
  finish_class_sums(sums);
  return sums;
}

}  // namespace neuron_gate
