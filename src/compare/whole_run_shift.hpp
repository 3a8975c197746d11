#pragma once
// Step 5: a shift of everything read as one finding (issue 13 item 3). When most ops move by about the
// same factor, the cause is rarely in the code: a clock, power or environment change moves every op
// alike. The finding names the factor once; it changes no verdict and no exit code (issue 22 item 3).

#include "compare/judgement.hpp"
#include "compare/rule_set.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace neuron_gate {

// Ops of one run that moved together: `along` of `eligible` per-op metrics (self CPU and device time,
// present on both sides, base median >= k_shift_min_floors x rules.floor_us) have a ratio head/base (the
// Hodges–Lehmann estimate, else the ratio of medians) within k_shift_band of `factor`, the median of all
// eligible ratios.
struct WholeRunShiftFinding {
  double factor = 1;                 // median of the eligible metrics' ratios (Hodges–Lehmann, else of medians)
  std::size_t eligible = 0;          // per-op metrics large enough to show a ratio above the timer quantum
  std::vector<std::size_t> along;    // metric indices (into Judgement::metrics) within the band, in order
  std::vector<std::size_t> decided;  // of `along`, the gating ones REGRESSED or IMPROVED (set by interpret())
  bool operator==(const WholeRunShiftFinding&) const = default;
};

// Base medians below this many floors (µs) are too close to the timer quantum to show a few per cent.
constexpr double k_shift_min_floors = 20;
// The least ratio that counts as a shift: |ln factor| >= ln(k_shift_min_factor).
constexpr double k_shift_min_factor = 1.03;
// An op moves along when |ln ratio - ln factor| <= max(ln(k_shift_band), |ln factor| / 3).
constexpr double k_shift_band = 1.02;
// A shift needs at least this many eligible ops, and at least 2/3 of them along.
constexpr std::size_t k_shift_min_ops = 5;

// The whole-run shift in `metrics`, if most eligible ops moved by about the same factor; nullopt
// otherwise (fewer than k_shift_min_ops eligible or along, fewer than 2/3 along, or the factor within
// k_shift_min_factor of 1). The metrics of every rank are read together.
std::optional<WholeRunShiftFinding> whole_run_shift(const std::vector<MetricComparison>& metrics, const RuleSet& rules);

}  // namespace neuron_gate
