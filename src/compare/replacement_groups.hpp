#pragma once
// Replacement groups and class totals (issue 12 item 2). Ops that appear, disappear or change their
// calls per step cannot be compared one by one: a fused op replacing three separate ones, or a kernel
// renamed and made slower, leaves only STRUCTURAL rows. Per metric class (self CPU, device time) and
// rank, the ops that changed structure are read together as one replacement group, whose summed time
// per step, base vs head, is one metric; the class total (every op's time summed per step) is another.
// Both are measured like an op (metric_comparison.hpp) and judged in the per-op family
// (judgement.hpp); docs/user-guide.md "Replaced ops" says how they gate.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// What a per-op-class metric sums: one op, the ops of a replacement group, or every op of the class.
enum class MetricScope { op, replacement_group, class_total };

// "op", "replacement group", "class total" (the JSON report's `scope`).
const char* metric_scope_key(MetricScope scope);

// Metric names of the sums, before a rank suffix. The scope, not the name, tells them from an op of
// the same name (an op name is any string a profile holds).
inline constexpr const char* k_replacement_group_name = "replaced ops";
inline constexpr const char* k_class_total_name = "all ops";

// The ops of a replacement group by op name (no rank suffix), each list sorted by name.
struct ReplacementMembers {
  std::vector<std::string> gone;           // run in base only (in this class: device time in base only)
  std::vector<std::string> appeared;       // run in head only (device time in head only)
  std::vector<std::string> calls_changed;  // on both sides, median calls per step differ
  bool empty() const { return gone.empty() && appeared.empty() && calls_changed.empty(); }
  bool operator==(const ReplacementMembers&) const = default;
};

// One op of one metric class on both sides of one rank: its value per sample step in µs (an empty
// vector on a side where the op never ran; otherwise one value per step of that side, 0 where it did
// not run), whether it is there in this class on each side (self CPU: the op ran; device time: it has
// device time), and its median calls per step on each side (nullopt where it never ran).
struct OpStepValues {
  std::string name;
  const std::vector<double>* base = nullptr;  // never null; may point to an empty vector
  const std::vector<double>* head = nullptr;
  bool in_base = false, in_head = false;
  std::optional<double> base_calls, head_calls;
};

// How an op takes part in its class's replacement group.
enum class Replacement {
  none,           // on both sides with the same median calls per step: compared on its own
  gone,           // in base only (OpStepValues::in_base and not in_head)
  appeared,       // in head only
  calls_changed,  // on both sides with different median calls per step
};

// The membership rule above. For device time "in" means the op has device time, so an op whose
// kernels appear or vanish (a kernel renamed under another op) is gone / appeared.
Replacement replacement_of(const OpStepValues& op);

// Per-step sums of one class and rank, in µs: the replacement group's members and their summed time
// per step on each side, and every op's time summed per step (the class total). Sides' step counts
// are base_steps and head_steps; each op's non-empty vector must have that length (std::invalid_argument
// otherwise, a programming error).
struct ClassSums {
  ReplacementMembers members;
  std::vector<double> group_base, group_head;  // sums over members (0 per step when there are none)
  std::vector<double> total_base, total_head;  // sums over every op
};

// Sums `ops` per step (formula: for step s, sum over ops of op.base[s]; likewise for head).
ClassSums sum_class(const std::vector<OpStepValues>& ops, std::size_t base_steps, std::size_t head_steps);

// sum_class one op at a time, for ops streamed in name order (compare/op_stream.hpp): sums of zeros for
// sides of base_steps and head_steps steps, then add_to_class_sums per op in the order sum_class would
// take them (the same additions in the same order: the same sums), then finish_class_sums.
ClassSums start_class_sums(std::size_t base_steps, std::size_t head_steps);
void add_to_class_sums(ClassSums& sums, const OpStepValues& op);
void finish_class_sums(ClassSums& sums);  // sorts each member list by name

}  // namespace neuron_gate
