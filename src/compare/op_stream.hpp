#pragma once
// The per-op samples of both sides, one op at a time (issue 21 item 4: memory by ops). compare_metrics
// (metric_comparison.hpp) reads every op of every group of sample steps (a rank, or a whole side) in op
// key order, building that op's metrics before the next is read: only one op's per-step values are held
// at a time, never every op's, and no op name is copied (the names are views of the traces' op_keys).

#include "compare/rule_set.hpp"
#include "profile/trace_samples.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

namespace neuron_gate {

struct SampleStep;

// One op on one side of a group: its value per sample step (0 where a step did not run it), or empty
// vectors where no sample step of that side ran it (`present` false).
struct OpSeries {
  std::vector<double> self_cpu_us;
  std::vector<double> device_us;
  std::vector<double> calls;
  bool any_device = false;        // some step gave it device time (device_ns != 0)
  bool present = false;           // some sample step of the side ran it
  std::size_t steps_present = 0;  // the sample steps that ran it
};

// The sample steps of one group on each side (e.g. base rank 1 and head rank 1); they must outlive the stream.
struct StepGroup {
  const std::vector<SampleStep>* base = nullptr;
  const std::vector<SampleStep>* head = nullptr;
};

// Walks the op keys of every group's sample steps in key order (std::string order, as op_keys are
// sorted), leaving out the ops `rules` ignore (never the unattributed rows, read_side.hpp). Memory: one
// view per distinct key, one id per key of each trace, one cursor per step. Time: per op, O(steps).
class OpStream {
 public:
  OpStream(std::vector<StepGroup> groups, const RuleSet& rules);

  // Moves to the next op key (the first one on the first call); false after the last.
  bool next();

  // The current op key: a view of a trace's op_keys.
  std::string_view name() const { return m_names[m_current]; }

  // True when some trace read the current op key from runtime calls (TraceSamples::runtime_calls).
  bool runtime_call() const { return m_runtime[m_current]; }

  // The current op's series in group `g` on each side. At most once per group and op, groups in
  // any order; `base` and `head` keep their buffers' capacity from op to op.
  void series(std::size_t g, OpSeries& base, OpSeries& head);

  // Starts again before the first op.
  void rewind();

 private:
  struct Cursors {
    const std::vector<SampleStep>* steps = nullptr;
    std::vector<std::size_t> at;                         // per step: its next op (an index into the step's ops)
    std::vector<const std::vector<std::uint32_t>*> ids;  // per step: its trace's ids (m_ids)
  };
  void read_side(Cursors& side, OpSeries& series);

  std::vector<StepGroup> m_groups;
  const RuleSet& m_rules;
  std::vector<std::string_view> m_names;                            // every distinct key, sorted
  std::vector<bool> m_runtime;                                      // per key: a runtime call's
  std::map<const TraceSamples*, std::vector<std::uint32_t>> m_ids;  // per trace: its op id -> index in m_names
  std::vector<std::pair<Cursors, Cursors>> m_cursors;               // per group: base, head
  std::size_t m_current = 0;
  bool m_started = false;
};

}  // namespace neuron_gate
