// The whole-run shift finding (issue 13 item 3) on hand-built measurements: the rule's thresholds, and
// what interpret() does with the ops along a shift. The end-to-end check on a real trace scaled by 1.07
// is tests/shift_checks.sh.
#include "compare/findings.hpp"
#include "compare/whole_run_shift.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace ng = neuron_gate;

namespace {

ng::MetricComparison op(const std::string& name, double base_us, double ratio,
                        ng::MetricClass metric_class = ng::MetricClass::self_cpu) {
  ng::MetricComparison m;
  m.metric_class = metric_class;
  m.name = name;
  m.unit = "us";
  m.present_in_base = m.present_in_head = true;
  m.base_median = base_us;
  m.head_median = base_us * ratio;
  m.ratio = ratio;
  return m;
}

std::vector<ng::MetricComparison> ops(const std::vector<double>& ratios, double base_us = 100) {
  std::vector<ng::MetricComparison> metrics;
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    metrics.push_back(op("op_" + std::to_string(i), base_us, ratios[i]));
  }
  return metrics;
}

}  // namespace

TEST_SUITE_BEGIN("compare whole-run shift");

TEST_CASE("most ops moved by about one factor: one finding with the factor and the ops along it") {
  // 8 ops at +7% (one at +6%, one at +8%), two off it: 8 of 10 along, factor the median ratio.
  const auto metrics = ops({1.07, 1.07, 1.07, 1.06, 1.08, 1.07, 1.07, 1.07, 1.30, 0.90});
  const auto shift = ng::whole_run_shift(metrics, ng::default_rules());
  REQUIRE(shift.has_value());
  CHECK(shift->factor == doctest::Approx(1.07));
  CHECK(shift->eligible == 10);
  CHECK(shift->along == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("the factor is of the Hodges–Lehmann ratios, not of medians that a bimodal side moves") {
  // Issue 38 item 7: medians +33.5% apart on steps of two modes while every op's own change is <= 2%.
  auto metrics = ops({1.01, 1.02, 1.02, 1.01, 1.02, 1.02});
  for (ng::MetricComparison& m : metrics) {
    m.head_median = *m.base_median * 1.335;
  }
  CHECK_FALSE(ng::whole_run_shift(metrics, ng::default_rules()).has_value());
  for (ng::MetricComparison& m : metrics) {
    m.ratio.reset();  // without an estimate the medians are all there is
  }
  REQUIRE(ng::whole_run_shift(metrics, ng::default_rules()).has_value());
  CHECK(ng::whole_run_shift(metrics, ng::default_rules())->factor == doctest::Approx(1.335));
}

TEST_CASE("no finding: one op moved, the factor is within 3% of 1, too few ops, or no majority along") {
  CHECK_FALSE(ng::whole_run_shift(ops({1.30, 1.0, 1.0, 1.0, 1.0, 1.0}), ng::default_rules()).has_value());
  CHECK_FALSE(ng::whole_run_shift(ops({1.02, 1.02, 1.02, 1.02, 1.02, 1.02}), ng::default_rules()).has_value());
  CHECK_FALSE(ng::whole_run_shift(ops({1.10, 1.10, 1.10, 1.10}), ng::default_rules()).has_value());
  // 5 of 9 near 1.10 and 4 spread out: fewer than 2/3 along.
  CHECK_FALSE(
      ng::whole_run_shift(ops({1.10, 1.10, 1.10, 1.10, 1.10, 1.5, 0.7, 2.0, 1.3}), ng::default_rules()).has_value());
}

TEST_CASE("ops below 20 floors (20 µs by default) are too close to the timer quantum to count") {
  CHECK_FALSE(ng::whole_run_shift(ops({1.2, 1.2, 1.2, 1.2, 1.2, 1.2}, 19.0), ng::default_rules()).has_value());
  CHECK(ng::whole_run_shift(ops({1.2, 1.2, 1.2, 1.2, 1.2, 1.2}, 20.0), ng::default_rules()).has_value());
}

TEST_CASE("interpret() says the shift once and keeps only the ops off it one by one") {
  ng::Judgement judgement;
  judgement.metrics = ops({1.07, 1.07, 1.07, 1.07, 1.07, 1.07, 1.40});
  for (ng::MetricComparison& m : judgement.metrics) {
    m.verdict = ng::Verdict::regressed;
  }
  judgement.metrics[0].gating = true;  // a gating per-op regression along the shift
  judgement.metrics[6].gating = true;  // and one off it
  const ng::Interpretations found = ng::interpret(ng::ConditionsDiff{}, judgement, ng::default_rules());
  REQUIRE(found.whole_run_shift.has_value());
  CHECK(found.whole_run_shift->along.size() == 6);
  CHECK(found.whole_run_shift->decided == std::vector<std::size_t>{0});
  CHECK(found.gating_metrics == std::vector<std::size_t>{6});
  CHECK(found.op_regressions.empty());  // 1..5 are along the shift; 6 is gating
}

TEST_SUITE_END();
