#pragma once
// Step 5: step times of one side that fall into two separate groups (issue 13 item 4: bimodal steps are
// named as such). A median over two modes depends on how many steps of each a profile caught, so a
// comparison of such sides can move without any code change.

#include "profile/read_side.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// Two modes of one side's step times (every ProfilerStep of every trace).
struct BimodalStepsFinding {
  std::string side;            // the side's label, "base" or "head"
  std::size_t low_steps = 0;   // steps in the faster mode
  std::size_t high_steps = 0;  // steps in the slower mode
  double low_us = 0;           // median step time of the faster mode, µs
  double high_us = 0;          // median step time of the slower mode, µs
  // Each process (a rank where one is known, else a run folder) has all its steps in one mode, and both
  // modes hold one: the modes are processes that differ (e.g. rank 1 waiting on rank 0), not a per-step
  // pattern. Then the processes of each mode, in path order ("rank 0", "run-02/"); else both empty.
  std::vector<std::string> low_processes, high_processes;
  bool operator==(const BimodalStepsFinding&) const = default;
};

// Which steps are left out as warm-up (already named by the warm-up finding, findings.hpp).
enum class WarmUpSteps { none, first_trace_of_run, first_step_of_trace };

// The two modes of `side`'s step times, warm-up steps left out, if there are: at least k_bimodal_min_steps steps, each
// mode at least max(2, 20%) of them, the widest gap between sorted step times splitting them (the faster mode's slowest
// x k_bimodal_min_gap <= the slower mode's fastest), and that gap (in log time) at least 4 times either mode's own
// spread (median absolute deviation of log time, at least ln 1.01).
std::optional<BimodalStepsFinding> bimodal_steps(const SideSamples& side, WarmUpSteps warm_up);

constexpr std::size_t k_bimodal_min_steps = 8;
constexpr double k_bimodal_min_gap = 1.25;

}  // namespace neuron_gate
