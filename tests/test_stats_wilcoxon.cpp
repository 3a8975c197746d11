// The signed-rank test and the Walsh Hodges–Lehmann estimate (stats/wilcoxon.hpp) against every case of
// tests/data/reference/wilcoxon.json (SciPy 1.10.1's scipy.stats.wilcoxon for p; an independent
// enumeration for the interval: tests/tools/wilcoxon_reference.py). The cases are iterated, never picked.
#include "stats/wilcoxon.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace neuron_gate {
namespace {

nlohmann::json wilcoxon_reference() {
  std::ifstream in(NEURON_GATE_TEST_DATA "/reference/wilcoxon.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

Alternative alternative_named(const std::string& name) {
  if (name == "greater") {
    return Alternative::greater;
  }
  if (name == "less") {
    return Alternative::less;
  }
  REQUIRE(name == "two-sided");
  return Alternative::two_sided;
}

bool close(double actual, double expected, double tolerance) {
  return std::abs(actual - expected) <= tolerance * std::max(1e-300, std::abs(expected));
}

}  // namespace

TEST_CASE("signed-rank p values and the Walsh Hodges-Lehmann interval equal the reference (SciPy 1.10.1)") {
  const nlohmann::json reference = wilcoxon_reference();
  REQUIRE(reference["cases"].size() >= 10);
  for (const nlohmann::json& c : reference["cases"]) {
    const std::string name = c["name"].get<std::string>();
    INFO("case: ", name);
    const std::vector<double> d = c["d"].get<std::vector<double>>();
    for (const auto& item : c["p"].items()) {
      const std::string alternative = item.key();  // a named copy: INFO captures it (not a structured binding)
      const nlohmann::json& expected = item.value();
      INFO("alternative ", alternative);
      const SignedRankResult result = wilcoxon_signed_rank(d, alternative_named(alternative));
      CHECK(result.exact == c["exact"].get<bool>());
      CHECK(result.n == c["n_nonzero"].get<std::size_t>());
      REQUIRE(result.p.has_value());
      // exact p: a sum of counts over 2^n, to rounding; approximate: Boost's normal against SciPy's
      CHECK(close(*result.p, expected["p"].get<double>(), result.exact ? 1e-12 : 1e-9));
      if (alternative != "two-sided") {
        CHECK(result.r_plus == expected["statistic"].get<double>());
      }
    }
    const nlohmann::json& hl = c["hodges_lehmann"];
    const auto estimate = walsh_hodges_lehmann(d, c["confidence"].get<double>());
    REQUIRE(estimate.has_value());
    CHECK(close(estimate->estimate, hl["estimate"].get<double>(), 1e-12));
    if (hl["low"].is_null()) {
      CHECK_FALSE(estimate->ci_low.has_value());
      CHECK_FALSE(estimate->ci_high.has_value());
    } else {
      REQUIRE(estimate->ci_low.has_value());
      REQUIRE(estimate->ci_high.has_value());
      CHECK(close(*estimate->ci_low, hl["low"].get<double>(), 1e-12));
      CHECK(close(*estimate->ci_high, hl["high"].get<double>(), 1e-12));
    }
  }
}

TEST_CASE("signed-rank: no non-zero difference, or a value that is not finite, has no p") {
  CHECK_FALSE(wilcoxon_signed_rank(std::vector<double>{0.0, 0.0}, Alternative::greater).p.has_value());
  CHECK_FALSE(wilcoxon_signed_rank(std::vector<double>{}, Alternative::two_sided).p.has_value());
  CHECK_FALSE(
      wilcoxon_signed_rank(std::vector<double>{0.1, std::numeric_limits<double>::quiet_NaN()}, Alternative::less)
          .p.has_value());
  CHECK_FALSE(walsh_hodges_lehmann(std::vector<double>{}).has_value());
  CHECK_FALSE(walsh_hodges_lehmann(std::vector<double>{0.2, std::numeric_limits<double>::infinity()}).has_value());
  // All eight pairs slower: the smallest exact one-sided p of 8 pairs, 1/256.
  const std::vector<double> slower{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  CHECK(wilcoxon_signed_rank(slower, Alternative::greater).p == doctest::Approx(1.0 / 256).epsilon(1e-12));
}

}  // namespace neuron_gate
