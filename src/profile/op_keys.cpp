#include "profile/op_keys.hpp"

#include <algorithm>

namespace neuron_gate {

std::optional<std::uint32_t> find_op_key(const TraceSamples& trace, std::string_view key) {
  const auto found = std::lower_bound(trace.op_keys.begin(), trace.op_keys.end(), key);
  if (found == trace.op_keys.end() || *found != key) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(found - trace.op_keys.begin());
}

const OpValues* find_op(const StepSample& step, std::uint32_t id) {
  const auto found = std::lower_bound(step.ops.begin(), step.ops.end(), id,
                                      [](const OpSample& op, std::uint32_t value) { return op.op < value; });
  return found != step.ops.end() && found->op == id ? &found->values : nullptr;
}

const OpValues* find_op(const TraceSamples& trace, const StepSample& step, std::string_view key) {
  const std::optional<std::uint32_t> id = find_op_key(trace, key);
  return id ? find_op(step, *id) : nullptr;
}

std::map<std::string, OpValues> ops_by_key(const TraceSamples& trace, const StepSample& step) {
  std::map<std::string, OpValues> ops;
  for (const auto& [op, values] : step.ops) {
    ops.emplace(trace.op_keys[op], values);
  }
  return ops;
}

OpValues& add_op(TraceSamples& trace, StepSample& step, const std::string& key) {
  const auto at = std::lower_bound(trace.op_keys.begin(), trace.op_keys.end(), key);
  const auto id = static_cast<std::uint32_t>(at - trace.op_keys.begin());
  if (at == trace.op_keys.end() || *at != key) {
    trace.op_keys.insert(at, key);
    const auto renumber = [id](StepSample& s) {
      for (OpSample& op : s.ops) {
        op.op += op.op >= id ? 1 : 0;
      }
    };
    std::for_each(trace.steps.begin(), trace.steps.end(), renumber);
    renumber(trace.outside_steps);
  }
  const auto found = std::lower_bound(step.ops.begin(), step.ops.end(), id,
                                      [](const OpSample& op, std::uint32_t value) { return op.op < value; });
  if (found != step.ops.end() && found->op == id) {
    return found->values;
  }
  return step.ops.insert(found, OpSample{id, OpValues{}})->values;
}

void set_trace_ops(TraceSamples& trace, const std::vector<std::map<std::string, OpValues>>& ops) {
  std::map<std::string_view, std::uint32_t> ids;
  for (const auto& step_ops : ops) {
    for (const auto& [key, values] : step_ops) {
      ids.emplace(key, 0);
    }
  }
  trace.op_keys.clear();
  trace.op_keys.reserve(ids.size());
  for (auto& [key, id] : ids) {
    id = static_cast<std::uint32_t>(trace.op_keys.size());
    trace.op_keys.emplace_back(key);
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    StepSample& step = i < trace.steps.size() ? trace.steps[i] : trace.outside_steps;
    step.ops.clear();
    step.ops.reserve(ops[i].size());
    for (const auto& [key, values] : ops[i]) {
      step.ops.push_back(OpSample{ids.at(key), values});  // map order is key order: sorted by id
    }
  }
}

}  // namespace neuron_gate
