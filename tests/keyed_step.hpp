#pragma once
// Tests read a step's ops by key: a copy of a StepSample with its op ids resolved through the trace's
// op_keys (profile/op_keys.hpp).

#include "profile/op_keys.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

namespace neuron_gate {

// A step as the tests check it: ops by key; the other fields as in StepSample.
struct KeyedStep {
  std::string name;
  Nanoseconds start_ns = 0;
  Nanoseconds duration_ns = 0;
  std::map<std::string, OpValues> ops;
  std::map<std::string, Nanoseconds> device_kernels;
  Nanoseconds unattributed_device_ns = 0;
  std::map<std::string, Nanoseconds> unattributed_by_category;
};

// `step` (a step of `trace`, or its outside_steps) with its ops by key.
inline KeyedStep keyed(const TraceSamples& trace, const StepSample& step) {
  return KeyedStep{step.name,
                   step.start_ns,
                   step.duration_ns,
                   ops_by_key(trace, step),
                   step.device_kernels,
                   step.unattributed_device_ns,
                   step.unattributed_by_category};
}

// The values of op `key` in `step`; fails the test when the step has no such op.
inline OpValues op(const KeyedStep& step, const std::string& key) {
  const auto found = step.ops.find(key);
  REQUIRE_MESSAGE(found != step.ops.end(), "no op '" << key << "' in " << step.name);
  return found->second;
}

}  // namespace neuron_gate
