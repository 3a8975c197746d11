#pragma once
// The op keys of a trace (TraceSamples::op_keys): looking an op up by key in a step, and building or
// extending a trace's sorted key table. Steps hold ops as sorted (id, values) vectors; ids index op_keys.

#include "profile/trace_samples.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The id of `key` in trace.op_keys, or nullopt. O(log keys).
std::optional<std::uint32_t> find_op_key(const TraceSamples& trace, std::string_view key);

// The values of op `id` in `step`, or nullptr when the step does not hold it. O(log ops of the step).
const OpValues* find_op(const StepSample& step, std::uint32_t id);

// The values of the op keyed `key` in `step` (a step of `trace`), or nullptr.
const OpValues* find_op(const TraceSamples& trace, const StepSample& step, std::string_view key);

// The ops of `step` (a step of `trace`) by key: a copy, for tests and checks, never on a hot path.
std::map<std::string, OpValues> ops_by_key(const TraceSamples& trace, const StepSample& step);

// The values of the op keyed `key` in `step`, which must be one of trace.steps or trace.outside_steps; added
// as zeros when absent. A new key is inserted into trace.op_keys and the ids after it in every step are
// renumbered (O(ops of the trace)): for the few rows added after reading (unattributed rows) and tests.
OpValues& add_op(TraceSamples& trace, StepSample& step, const std::string& key);

// Sets trace.op_keys and the ops of every step from string-keyed maps: `ops[i]` for trace.steps[i], and
// ops[trace.steps.size()], when present, for outside_steps. Keys held by no map are not kept.
void set_trace_ops(TraceSamples& trace, const std::vector<std::map<std::string, OpValues>>& ops);

}  // namespace neuron_gate
