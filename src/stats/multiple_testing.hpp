#pragma once
// Adjusted p-values for a family of tests, matching statsmodels.stats.multitest.multipletests.

#include <span>
#include <vector>

namespace neuron_gate {

// holm: step-down, adjusted p_(i) = max_{j<=i} min(1, (k - j + 1) p_(j)) over ascending p (Holm 1979);
//   controls the family-wise error rate.
// benjamini_hochberg: step-up, adjusted p_(i) = min_{j>=i} min(1, k p_(j) / j) (Benjamini & Hochberg 1995);
//   controls the false discovery rate.
// bonferroni: min(1, k p). none: p unchanged.
enum class Correction { holm, benjamini_hochberg, bonferroni, none };

// Adjusted p-values in the same order as the input, capped at 1; a test is rejected at level alpha when
// its adjusted p <= alpha. Each p must be in [0, 1] (a NaN or an out-of-range value is a bug: asserts).
// Equal p-values get equal adjusted values, whatever their order. Empty input gives an empty result.
std::vector<double> adjust_p_values(std::span<const double> p, Correction correction);

// "Holm", "Benjamini-Hochberg", "Bonferroni" or "none", for reports.
const char* correction_name(Correction c);

}  // namespace neuron_gate
