// `history`'s analysis (compare/history.hpp) on real sides: the bundled examples A and A2 (the same code,
// two processes) alternate as ten stored baselines, so each metric carries real run-to-run noise.
#include "compare/history.hpp"
#include "compare/rule_set.hpp"
#include "formats/discover.hpp"
#include "profile/read_side.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace ng = neuron_gate;

namespace {

const ng::SideSamples& example(const std::string& name) {
  static const ng::SideSamples a =
      ng::read_side("base", ng::discover_profile(NEURON_GATE_SOURCE_DIR "/examples/rmsnorm-4x512/A"), {});
  static const ng::SideSamples a2 =
      ng::read_side("base", ng::discover_profile(NEURON_GATE_SOURCE_DIR "/examples/rmsnorm-4x512/A2"), {});
  return name == "A" ? a : a2;
}

// Ten baselines, A and A2 alternating (their latency medians differ by 1.3%, step time by 3.3%: the
// runs' noise); from baseline `step_at` on, every latency sample (e2e.json) times `factor`.
std::vector<ng::SideSamples> ten_baselines(std::size_t step_at, double factor) {
  std::vector<ng::SideSamples> baselines;
  for (std::size_t i = 0; i < 10; ++i) {
    ng::SideSamples side = example(i % 2 == 0 ? "A" : "A2");
    if (i >= step_at) {
      for (auto& metric : side.end_to_end) {
        if (metric.name == "latency") {
          for (double& sample : metric.samples) {
            sample *= factor;
          }
        }
      }
    }
    baselines.push_back(std::move(side));
  }
  return baselines;
}

const ng::HistorySeries* series_named(const ng::History& history, const std::string& name) {
  for (const auto& series : history.series) {
    if (series.name == name) {
      return &series;
    }
  }
  return nullptr;
}

}  // namespace

TEST_SUITE_BEGIN("compare::history");

TEST_CASE("a 3% step in latency at the sixth of ten baselines is marked there, and nothing else is") {
  const ng::RuleSet rules = ng::default_rules();
  const ng::History history = ng::analyse_history(ten_baselines(5, 1.03), rules);
  // Deciding metrics of the examples: their e2e.json metrics, step time, and the two class totals.
  REQUIRE(series_named(history, "step time") != nullptr);
  REQUIRE(series_named(history, "latency") != nullptr);
  REQUIRE(series_named(history, "all ops") != nullptr);
  CHECK(history.series.size() == 3);
  CHECK(history.tests == 3);
  for (const auto& series : history.series) {
    CHECK(series.medians.size() == 10);
  }
  REQUIRE(history.shifts.size() == 1);
  const ng::HistoryShift& shift = history.shifts.front();
  CHECK(history.series[shift.series].name == "latency");
  CHECK(shift.baseline == 5);
  CHECK(shift.before == 5);
  CHECK(shift.after == 5);
  CHECK(shift.ratio == doctest::Approx(1.03).epsilon(0.01));
  CHECK(shift.worse);
  // Five below five: the most extreme arrangement, exact p = 2 / C(10, 5); Holm over the metrics tested.
  CHECK(shift.exact);
  CHECK(shift.p_value == doctest::Approx(2.0 / 252.0));
  CHECK(shift.adjusted_p == doctest::Approx(std::min(1.0, 2.0 / 252.0 * static_cast<double>(history.tests))));
}

TEST_CASE("ten baselines of the same code mark no shift, and a 0.5% step is below the size marked") {
  const ng::RuleSet rules = ng::default_rules();
  const ng::History same = ng::analyse_history(ten_baselines(10, 1.0), rules);
  CHECK(same.tests >= 3);
  CHECK(same.shifts.empty());
  const ng::History small = ng::analyse_history(ten_baselines(5, 1.005), rules);
  CHECK(small.shifts.empty());
  const ng::History big_down = ng::analyse_history(ten_baselines(4, 0.95), rules);
  REQUIRE(big_down.shifts.size() == 1);
  CHECK(big_down.shifts.front().baseline == 4);
  CHECK_FALSE(big_down.shifts.front().worse);
  CHECK(big_down.shifts.front().ratio == doctest::Approx(0.95).epsilon(0.01));
}

TEST_SUITE_END();
