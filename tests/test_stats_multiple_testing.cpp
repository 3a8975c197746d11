// p-value adjustment beyond the statsmodels reference (test_stats_reference.cpp): hand-worked values,
// order, ties and names.
#include "stats/multiple_testing.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace neuron_gate {

TEST_SUITE_BEGIN("stats::multiple_testing");

TEST_CASE("Holm and Benjamini-Hochberg on three p-values, worked by hand, keep the input order") {
  const std::vector<double> p = {0.01, 0.04, 0.03};
  // Holm: sorted 0.01 * 3, 0.03 * 2, max(0.04 * 1, 0.06) -> in input order 0.03, 0.06, 0.06.
  const std::vector<double> holm = adjust_p_values(p, Correction::holm);
  CHECK(holm[0] == doctest::Approx(0.03));
  CHECK(holm[1] == doctest::Approx(0.06));
  CHECK(holm[2] == doctest::Approx(0.06));
  // BH: 0.01 * 3/1, 0.03 * 3/2, 0.04 * 3/3, then the running minimum from the top -> 0.03, 0.04, 0.04.
  const std::vector<double> bh = adjust_p_values(p, Correction::benjamini_hochberg);
  CHECK(bh[0] == doctest::Approx(0.03));
  CHECK(bh[1] == doctest::Approx(0.04));
  CHECK(bh[2] == doctest::Approx(0.04));
  const std::vector<double> bonferroni = adjust_p_values(p, Correction::bonferroni);
  CHECK(bonferroni[1] == doctest::Approx(0.12));
  CHECK(adjust_p_values(p, Correction::none) == p);
}

TEST_CASE("adjusted p-values are capped at 1 and equal p-values get equal adjusted values") {
  const std::vector<double> p = {0.5, 0.2, 0.5, 0.9, 0.2};
  for (const Correction correction : {Correction::holm, Correction::benjamini_hochberg, Correction::bonferroni}) {
    CAPTURE(correction_name(correction));
    const std::vector<double> adjusted = adjust_p_values(p, correction);
    REQUIRE(adjusted.size() == p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      CHECK(adjusted[i] <= 1.0);
      CHECK(adjusted[i] >= p[i]);
    }
    CHECK(adjusted[0] == adjusted[2]);
    CHECK(adjusted[1] == adjusted[4]);
  }
}

TEST_CASE("an empty family gives an empty result and one test is left unchanged") {
  const std::vector<double> empty;
  const std::vector<double> one = {0.03};
  for (const Correction correction :
       {Correction::holm, Correction::benjamini_hochberg, Correction::bonferroni, Correction::none}) {
    CAPTURE(correction_name(correction));
    CHECK(adjust_p_values(empty, correction).empty());
    CHECK(adjust_p_values(one, correction) == one);
  }
}

TEST_CASE("correction names are the ones reports print") {
  CHECK(std::string(correction_name(Correction::holm)) == "Holm");
  CHECK(std::string(correction_name(Correction::benjamini_hochberg)) == "Benjamini-Hochberg");
  CHECK(std::string(correction_name(Correction::bonferroni)) == "Bonferroni");
  CHECK(std::string(correction_name(Correction::none)) == "none");
}

TEST_SUITE_END();

}  // namespace neuron_gate
