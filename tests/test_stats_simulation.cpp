// Monte Carlo checks of the gate's statistical contract: the one-sided U test with the automatic method,
// Holm across a family of 50 ops, at alpha 0.05. Seeded, so every run gives the same rates.
#include "stats/mann_whitney.hpp"
#include "stats/multiple_testing.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace neuron_gate {
namespace {

constexpr double k_alpha = 0.05;
constexpr std::size_t k_ops = 50;
constexpr std::size_t k_trials = 1000;

// n lognormal durations; rounded to a multiple of quantum_us when it is > 0 (as printed tables do).
std::vector<double> lognormal_sample(std::mt19937_64& generator, std::size_t n, double median, double sigma,
                                     double quantum_us) {
  std::lognormal_distribution<double> distribution(std::log(median), sigma);
  std::vector<double> sample(n);
  for (double& v : sample) {
    v = distribution(generator);
    if (quantum_us > 0) {
      v = std::round(v / quantum_us) * quantum_us;
    }
  }
  return sample;
}

// One comparison: per op, base vs head, one-sided "head slower" (y larger: SciPy alternative "less"),
// then Holm across the ops. Op 0's head is scaled by shifted_ratio. Returns which ops are flagged.
std::vector<bool> flag_regressions(std::mt19937_64& generator, std::size_t n, double sigma, double shifted_ratio,
                                   double quantum_us = 0) {
  std::vector<double> p(k_ops);
  for (std::size_t op = 0; op < k_ops; ++op) {
    const double median = 10.0 * static_cast<double>(op + 1);  // µs; ops differ in scale
    const std::vector<double> base = lognormal_sample(generator, n, median, sigma, quantum_us);
    const std::vector<double> head =
        lognormal_sample(generator, n, op == 0 ? median * shifted_ratio : median, sigma, quantum_us);
    const MannWhitneyResult result = mann_whitney_u(base, head, Alternative::less);
    REQUIRE(result.p.has_value());
    p[op] = *result.p;
  }
  const std::vector<double> adjusted = adjust_p_values(p, Correction::holm);
  std::vector<bool> flagged(k_ops);
  for (std::size_t op = 0; op < k_ops; ++op) {
    flagged[op] = adjusted[op] <= k_alpha;
  }
  return flagged;
}

}  // namespace

TEST_SUITE_BEGIN("stats::simulation");

TEST_CASE("Holm over 50 one-sided U tests keeps the family-wise false-alarm rate within alpha + 0.02") {
  std::mt19937_64 generator(0x6e6575726f6eULL);
  struct Setting {
    std::size_t n;
    double quantum_us;  // 1: durations rounded to whole µs, so the small ops tie (exact conditional test)
  };
  for (const Setting setting : {Setting{8, 0}, Setting{15, 0}, Setting{15, 1.0}}) {
    CAPTURE(setting.n);
    CAPTURE(setting.quantum_us);
    std::size_t families_with_false_alarm = 0;
    for (std::size_t trial = 0; trial < k_trials; ++trial) {
      const std::vector<bool> flagged = flag_regressions(generator, setting.n, 0.05, 1.0, setting.quantum_us);
      if (std::find(flagged.begin(), flagged.end(), true) != flagged.end()) {
        ++families_with_false_alarm;
      }
    }
    const double rate = static_cast<double>(families_with_false_alarm) / static_cast<double>(k_trials);
    MESSAGE("n = ", setting.n, " per side", std::string(setting.quantum_us > 0 ? ", rounded to 1 µs" : ""),
            ", equal distributions (sigma 0.05): family-wise false-alarm rate ", rate, " (", families_with_false_alarm,
            " of ", k_trials, " comparisons of ", k_ops, " ops)");
    CHECK(rate <= k_alpha + 0.02);
  }
}

TEST_CASE("one op among 50 slowed by 10% at n = 15 with 3% noise is flagged after Holm in >= 90% of trials") {
  std::mt19937_64 generator(0x7368696674ULL);
  std::size_t detected = 0;
  std::size_t other_ops_flagged = 0;
  for (std::size_t trial = 0; trial < k_trials; ++trial) {
    const std::vector<bool> flagged = flag_regressions(generator, 15, 0.03, 1.10);
    detected += flagged[0] ? 1U : 0U;
    other_ops_flagged += static_cast<std::size_t>(std::count(flagged.begin() + 1, flagged.end(), true));
  }
  const double rate = static_cast<double>(detected) / static_cast<double>(k_trials);
  MESSAGE("10% slowdown, n = 15, sigma 0.03: detection rate after Holm ", rate, " (", detected, " of ", k_trials,
          " trials); unchanged ops flagged ", other_ops_flagged, " times in ", k_trials * (k_ops - 1));
  CHECK(rate >= 0.90);
}

TEST_SUITE_END();

}  // namespace neuron_gate
