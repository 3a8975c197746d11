// Every value in tests/data/reference/stats.json (SciPy 1.10.1, statsmodels, NumPy 1.24.2) checked against
// src/stats/. The cases are iterated, never picked, and a key this file does not know fails the test, so
// no reference value is skipped silently. A JSON null must be std::nullopt on our side.
#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/multiple_testing.hpp"
#include "stats/welch_log.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace neuron_gate {
namespace {

const nlohmann::json& reference() {
  static const nlohmann::json parsed = [] {
    std::ifstream in(NEURON_GATE_TEST_DATA "/reference/stats.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
  }();
  return parsed;
}

std::string exact_text(double v) {
  std::ostringstream out;
  out << std::setprecision(17) << v;
  return out.str();
}

// |actual - expected| <= tolerance * |expected|; an expected 0 must be met exactly.
void check_relative(const std::optional<double>& actual, double expected, double tolerance, const std::string& what) {
  INFO(what, ": expected ", exact_text(expected));
  REQUIRE_MESSAGE(actual.has_value(), what, " is nullopt, expected a value");
  INFO("actual ", exact_text(*actual));
  CHECK(std::abs(*actual - expected) <= tolerance * std::abs(expected));
}

// A reference value that may be null: null must be nullopt.
void check_nullable(const std::optional<double>& actual, const nlohmann::json& expected, double tolerance,
                    const std::string& what) {
  if (expected.is_null()) {
    INFO(what, " is null in stats.json");
    CHECK_FALSE(actual.has_value());
  } else {
    check_relative(actual, expected.get<double>(), tolerance, what);
  }
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

constexpr double k_exact_tolerance = 1e-9;
constexpr double k_approximate_tolerance = 1e-6;
constexpr double k_value_tolerance = 1e-9;

}  // namespace

TEST_SUITE_BEGIN("stats::reference");

TEST_CASE("stats.json has the cases and keys these tests know") {
  const std::set<std::string> known = {"name",
                                       "x",
                                       "y",
                                       "mannwhitneyu",
                                       "has_ties",
                                       "p_exact_conditional",
                                       "welch_t_log_y_minus_x",
                                       "hodges_lehmann_log_ratio_y_over_x",
                                       "hodges_lehmann_ci95_ratio_y_over_x",
                                       "median_ratio_y_over_x"};
  const auto& cases = reference().at("cases");
  CHECK(cases.size() == 14);
  for (const auto& c : cases) {
    CAPTURE(c.at("name").get<std::string>());
    for (const auto& item : c.items()) {
      const std::string& key = item.key();  // a variable, not a binding: clang 14 cannot capture bindings (INFO)
      INFO("unknown key ", key);
      CHECK(known.count(key) == 1);
    }
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("stats::mann_whitney");

TEST_CASE(
    "U1, exact and asymptotic p match SciPy mannwhitneyu for every case and alternative, also all three at once") {
  int checked = 0;
  int together = 0;
  for (const auto& c : reference().at("cases")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    const auto x = c.at("x").get<std::vector<double>>();
    const auto y = c.at("y").get<std::vector<double>>();
    for (const auto& alternative_item : c.at("mannwhitneyu").items()) {
      const std::string& alternative_text = alternative_item.key();
      const auto& expected = alternative_item.value();
      CAPTURE(alternative_text);
      const Alternative alternative = alternative_named(alternative_text);
      for (const auto& item : expected.items()) {
        const std::string& key = item.key();
        INFO("unknown key ", key);
        CHECK((key == "U1" || key == "p_exact" || key == "p_asymptotic" || key == "p_asymptotic_continuity"));
      }

      const MannWhitneyResult asymptotic = mann_whitney_u(x, y, alternative, UMethod::asymptotic);
      CHECK(asymptotic.u1 == expected.at("U1").get<double>());
      CHECK(asymptotic.has_ties == c.at("has_ties").get<bool>());
      CHECK(asymptotic.method == UMethod::asymptotic);
      check_nullable(asymptotic.p, expected.at("p_asymptotic"), k_approximate_tolerance, "p_asymptotic");

      const MannWhitneyResult corrected = mann_whitney_u(x, y, alternative, UMethod::asymptotic_continuity);
      CHECK(corrected.u1 == expected.at("U1").get<double>());
      CHECK(corrected.method == UMethod::asymptotic_continuity);
      check_nullable(corrected.p, expected.at("p_asymptotic_continuity"), k_approximate_tolerance,
                     "p_asymptotic_continuity");

      if (expected.contains("p_exact")) {
        const MannWhitneyResult exact = mann_whitney_u(x, y, alternative, UMethod::exact);
        CHECK(exact.method == UMethod::exact);
        CHECK(exact.u1 == expected.at("U1").get<double>());
        check_nullable(exact.p, expected.at("p_exact"), k_exact_tolerance, "p_exact");
      } else {
        // SciPy gives no exact p with ties; asking for it gets the exact conditional distribution.
        INFO("no p_exact in stats.json: expected ties");
        CHECK(c.at("has_ties").get<bool>());
        const UMethod expected_method = x.size() + y.size() <= k_exact_conditional_limit_total
                                            ? UMethod::exact_conditional
                                            : UMethod::asymptotic_continuity;
        CHECK(mann_whitney_u(x, y, alternative, UMethod::exact).method == expected_method);
      }
      ++checked;
    }
    // The three tests at once equal the single tests checked above, bit for bit, under every method.
    for (const UMethod method : {UMethod::automatic, UMethod::exact, UMethod::exact_conditional, UMethod::asymptotic,
                                 UMethod::asymptotic_continuity}) {
      CAPTURE(static_cast<int>(method));
      const MannWhitneyTests tests = mann_whitney_u_tests(x, y, method);
      CHECK(tests.two_sided == mann_whitney_u(x, y, Alternative::two_sided, method));
      CHECK(tests.greater == mann_whitney_u(x, y, Alternative::greater, method));
      CHECK(tests.less == mann_whitney_u(x, y, Alternative::less, method));
      ++together;
    }
  }
  CHECK(checked == 14 * 3);
  CHECK(together == 14 * 5);
}

TEST_CASE("exact conditional p matches the enumerated permutation distribution given the ties") {
  int checked = 0;
  for (const auto& c : reference().at("cases")) {
    if (!c.contains("p_exact_conditional")) {
      continue;
    }
    const std::string name = c.at("name");
    CAPTURE(name);
    const auto x = c.at("x").get<std::vector<double>>();
    const auto y = c.at("y").get<std::vector<double>>();
    for (const auto& item : c.at("p_exact_conditional").items()) {
      const std::string& key = item.key();
      const auto& value = item.value();
      CAPTURE(key);
      if (key == "enumerated") {
        CHECK(value.get<double>() ==
              doctest::Approx(std::tgamma(double(x.size() + y.size()) + 1) / std::tgamma(double(x.size()) + 1) /
                              std::tgamma(double(y.size()) + 1)));
        continue;
      }
      const MannWhitneyResult result = mann_whitney_u(x, y, alternative_named(key), UMethod::exact_conditional);
      CHECK(result.method == UMethod::exact_conditional);
      check_nullable(result.p, value, k_exact_tolerance, "p_exact_conditional");
      ++checked;
    }
  }
  CHECK(checked == 3 * 3);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("stats::hodges_lehmann");

TEST_CASE("Hodges-Lehmann ratio, Moses rank C and its interval match the reference") {
  int checked = 0;
  for (const auto& c : reference().at("cases")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    const auto x = c.at("x").get<std::vector<double>>();
    const auto y = c.at("y").get<std::vector<double>>();
    const std::optional<HodgesLehmannEstimate> ratio = hodges_lehmann_ratio(x, y);
    REQUIRE(ratio.has_value());
    if (!c.contains("hodges_lehmann_log_ratio_y_over_x")) {
      // Only n1_vs_n5 has none: one baseline value is too few for a 95% interval.
      CHECK(name == "n1_vs_n5");
      CHECK_FALSE(moses_rank(x.size(), y.size()).has_value());
      CHECK_FALSE(ratio->ci_low.has_value());
      CHECK_FALSE(ratio->ci_high.has_value());
      continue;
    }
    const double log_ratio = c.at("hodges_lehmann_log_ratio_y_over_x");
    check_relative(std::log(ratio->estimate), log_ratio, k_value_tolerance, "log of the Hodges-Lehmann ratio");

    const auto& interval = c.at("hodges_lehmann_ci95_ratio_y_over_x");
    CHECK(interval.size() == 3);
    CHECK(moses_rank(x.size(), y.size(), 0.95) == std::optional<std::size_t>(interval.at("rank_C").get<std::size_t>()));
    check_nullable(ratio->ci_low, interval.at("ratio_low"), k_value_tolerance, "ratio_low");
    check_nullable(ratio->ci_high, interval.at("ratio_high"), k_value_tolerance, "ratio_high");

    // The same differences on the raw scale give the shift; its log-free interval brackets it.
    const std::optional<HodgesLehmannEstimate> shift = hodges_lehmann_shift(x, y);
    REQUIRE(shift.has_value());
    REQUIRE(shift->ci_low.has_value());
    CHECK(*shift->ci_low <= shift->estimate);
    CHECK(shift->estimate <= *shift->ci_high);
    ++checked;
  }
  CHECK(checked == 13);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("stats::welch_log");

TEST_CASE("Welch t, df, two-sided p and the geometric-mean ratio interval match SciPy ttest_ind on logs") {
  int checked = 0;
  for (const auto& c : reference().at("cases")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    const auto x = c.at("x").get<std::vector<double>>();
    const auto y = c.at("y").get<std::vector<double>>();
    const std::optional<WelchLogResult> result = welch_t_log(x, y);
    if (!c.contains("welch_t_log_y_minus_x")) {
      CHECK(name == "n1_vs_n5");
      CHECK_FALSE(result.has_value());  // one baseline value has no variance
      continue;
    }
    REQUIRE(result.has_value());
    const auto& expected = c.at("welch_t_log_y_minus_x");
    CHECK(expected.size() == 4);
    check_nullable(result->t, expected.at("t"), k_value_tolerance, "t");
    check_nullable(result->df, expected.at("df"), k_value_tolerance, "df");
    check_nullable(result->p_two_sided, expected.at("p_two_sided"), k_value_tolerance, "p_two_sided");
    const auto& interval = expected.at("ci95_ratio_of_geometric_means");
    if (interval.is_null()) {
      CHECK_FALSE(result->ratio_low.has_value());
      CHECK_FALSE(result->ratio_high.has_value());
    } else {
      check_relative(result->ratio_low, interval.at(0).get<double>(), k_value_tolerance, "ratio_low");
      check_relative(result->ratio_high, interval.at(1).get<double>(), k_value_tolerance, "ratio_high");
      // The interval is exp(d -/+ h), so its geometric centre is the ratio of geometric means.
      check_relative(result->ratio_of_geometric_means,
                     std::sqrt(interval.at(0).get<double>() * interval.at(1).get<double>()), k_value_tolerance,
                     "ratio_of_geometric_means");
    }
    ++checked;
  }
  CHECK(checked == 13);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("stats::descriptive");

TEST_CASE("median(y) / median(x) matches NumPy for every case that has it") {
  int checked = 0;
  for (const auto& c : reference().at("cases")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    if (!c.contains("median_ratio_y_over_x")) {
      CHECK(name == "n1_vs_n5");
      continue;
    }
    const auto x = c.at("x").get<std::vector<double>>();
    const auto y = c.at("y").get<std::vector<double>>();
    REQUIRE(median(x).has_value());
    check_relative(*median(y) / *median(x), c.at("median_ratio_y_over_x").get<double>(), 1e-12, "median ratio");
    ++checked;
  }
  CHECK(checked == 13);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("stats::multiple_testing");

TEST_CASE("Holm, Benjamini-Hochberg and Bonferroni adjusted p and rejections match statsmodels multipletests") {
  const auto& p_adjust = reference().at("p_adjust");
  const auto p = p_adjust.at("p").get<std::vector<double>>();
  CHECK(p_adjust.size() == 4);
  const std::pair<const char*, Correction> methods[] = {{"holm", Correction::holm},
                                                        {"benjamini_hochberg", Correction::benjamini_hochberg},
                                                        {"bonferroni", Correction::bonferroni}};
  for (const auto& method : methods) {
    const char* const key = method.first;
    const Correction correction = method.second;
    CAPTURE(key);
    const auto& expected = p_adjust.at(key);
    CHECK(expected.size() == 2);
    const auto adjusted = expected.at("adjusted").get<std::vector<double>>();
    const auto reject = expected.at("reject_at_0.05").get<std::vector<bool>>();
    const std::vector<double> ours = adjust_p_values(p, correction);
    REQUIRE(ours.size() == adjusted.size());
    REQUIRE(reject.size() == adjusted.size());
    for (std::size_t i = 0; i < ours.size(); ++i) {
      CAPTURE(i);
      check_relative(ours[i], adjusted[i], 1e-12, "adjusted p");
      CHECK((ours[i] <= 0.05) == reject[i]);
    }
  }
}

TEST_SUITE_END();

}  // namespace neuron_gate
