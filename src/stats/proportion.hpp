#pragma once
// A binomial proportion with its confidence interval: how often an event happened in independent trials
// (the calibration's false-alarm rate: splits where the gate would fail, out of all splits).

#include <cstddef>
#include <optional>

namespace neuron_gate {

// Observed proportion successes/trials with its two-sided confidence interval.
struct Proportion {
  double estimate = 0;  // successes / trials
  double low = 0;       // lower bound of the interval, 0 when successes == 0
  double high = 1;      // upper bound, 1 when successes == trials
  bool operator==(const Proportion&) const = default;
};

// Clopper–Pearson ("exact") interval at `confidence` (0.95 = 95%): the bounds are the beta quantiles
// B(a/2; k, n-k+1) and B(1-a/2; k+1, n-k) (Clopper & Pearson 1934; Boost.Math binomial_distribution
// find_lower/upper_bound_on_p with the two-sided interval). nullopt if trials == 0, successes > trials,
// or confidence is outside (0, 1).
std::optional<Proportion> clopper_pearson(std::size_t successes, std::size_t trials, double confidence = 0.95);

}  // namespace neuron_gate
