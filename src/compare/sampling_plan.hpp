#pragma once
// How many processes (runs) a side needs for each use of its samples: the one place these counts are
// written (docs/decision-rule.md "Processes a side"). Steps of one process share its state, so what a
// side's samples can show depends on how many processes they come from.

#include <cstddef>

namespace neuron_gate {

struct SamplingPlan {
  // SampleUnit::run needs this many runs a side: 3 vs 3 reach a one-sided p of 1/20 = 0.05 at best.
  std::size_t run_unit = 3;
  // Self CPU can be REGRESSED or IMPROVED, and an undecided metric is held to its threshold rather than to
  // the threshold widened by the between-run allowance, from this many processes a side.
  std::size_t to_establish = 3;
  // End-to-end samples are taken per run (each run's median, no between-run allowance) from this many
  // runs a side.
  std::size_t e2e_run_unit = 5;
  // Base's A/A noise (compare's noise check, `calibrate`) splits this many runs (or traces, or end-to-end
  // runs) into halves; under SampleUnit::run twice run_unit.
  std::size_t noise_check = 4;
  std::size_t noise_check_run_unit = 6;
};

// The plan: every process-count rule of the gate.
constexpr SamplingPlan sampling_plan() {
  return SamplingPlan{};
}

}  // namespace neuron_gate
