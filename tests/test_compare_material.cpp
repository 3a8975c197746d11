// Tests for src/compare/material.hpp: the per-op family holds the material ops only (issue 14 item 1).
#include "compare/judgement.hpp"
#include "compare/material.hpp"

#include <doctest/doctest.h>

namespace ng = neuron_gate;

namespace {

// An op (or step-time) metric in µs per step: `n` samples a side from 3 processes a side around `base_us`,
// head `ratio` times slower, with the p value given (the judgement takes the measurement as it is).
ng::MetricMeasurement metric(ng::MetricClass c, const std::string& name, double base_us, double ratio, double p_worse,
                             std::size_t n = 12) {
  ng::MetricMeasurement m;
  m.metric_class = c;
  m.name = name;
  m.unit = "us";
  m.base_processes = m.head_processes = ng::k_processes_to_establish;
  m.base_runs = m.head_runs = ng::k_processes_to_establish;
  for (std::size_t i = 0; i < n; ++i) {
    m.base_samples.push_back(base_us * (1.0 + 0.001 * static_cast<double>(i)));
    m.head_samples.push_back(base_us * ratio * (1.0 + 0.001 * static_cast<double>(i)));
  }
  m.base_median = base_us;
  m.head_median = base_us * ratio;
  m.ratio = ratio;
  m.ratio_low = ratio * 0.99;
  m.ratio_high = ratio * 1.01;
  m.shift = base_us * (ratio - 1.0);
  m.shift_low = *m.shift * 0.99;
  m.shift_high = *m.shift * 1.01;
  m.p_worse = p_worse;
  m.p_better = 1.0 - p_worse;
  m.p_two_sided = std::min(1.0, 2.0 * p_worse);
  return m;
}

const ng::MetricComparison& find(const ng::Judgement& j, const std::string& name, ng::MetricClass c) {
  for (const ng::MetricComparison& m : j.metrics) {
    if (m.name == name && m.metric_class == c) {
      return m;
    }
  }
  FAIL("no metric " << name);
  return j.metrics.front();
}

using C = ng::MetricClass;

std::vector<ng::MetricMeasurement> profile() {
  return {metric(C::step_time, "step time", 1000.0, 1.0, 0.5), metric(C::self_cpu, "big", 50.0, 1.0, 0.5),
          metric(C::self_cpu, "tiny", 5.0, 1.5, 1e-6), metric(C::device, "conv", 400.0, 1.0, 0.5),
          metric(C::device, "small_dev", 2.0, 1.5, 1e-6)};
}

}  // namespace

TEST_SUITE_BEGIN("compare::material");

TEST_CASE("ops below 1% of base's step time (self CPU) or device time (device) on both sides leave the family and "
          "never gate") {
  const ng::Judgement j = ng::judge(profile(), ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{});
  const auto& big = find(j, "big", C::self_cpu);
  const auto& tiny = find(j, "tiny", C::self_cpu);
  const auto& conv = find(j, "conv", C::device);
  const auto& small = find(j, "small_dev", C::device);
  CHECK(big.material);
  CHECK(*big.base_share == doctest::Approx(0.05));  // 50 of 1000 µs step
  CHECK_FALSE(tiny.material);
  CHECK(*tiny.base_share == doctest::Approx(0.005));
  CHECK(conv.material);
  CHECK(*conv.base_share == doctest::Approx(400.0 / 402.0));  // device reference: 402 µs per step
  CHECK_FALSE(small.material);
  CHECK(big.family == ng::Family::per_op);
  CHECK(big.family_size == 2);  // big and conv
  CHECK(tiny.family == ng::Family::per_op_minor);
  CHECK(tiny.family_size == 2);  // tiny and small_dev, corrected on their own
  CHECK(big.gating);
  CHECK_FALSE(tiny.gating);
  // Both minor ops regress clearly (1.5x, p 1e-6; 7.5 µs of 1000, 3 of 402 in head) and are reported
  // so, but the gate passes.
  CHECK(tiny.verdict == ng::Verdict::regressed);
  CHECK(small.verdict == ng::Verdict::regressed);
  CHECK(j.decision.outcome == ng::Outcome::pass);
  CHECK(j.decision.material.material == 2);
  CHECK(j.decision.material.not_material == 2);
  CHECK(*j.decision.material.step_us == 1000.0);
  CHECK(*j.decision.material.device_us == doctest::Approx(402.0));
}

TEST_CASE("an op below 1% in base that grows past 1% in head is material and gates (materiality by either side)") {
  auto measurements = profile();
  measurements[2] = metric(C::self_cpu, "tiny", 5.0, 10.0, 1e-6);  // 0.5% of the step in base, 5% in head
  const ng::Judgement j = ng::judge(measurements, ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{});
  const auto& tiny = find(j, "tiny", C::self_cpu);
  CHECK(tiny.material);
  CHECK(*tiny.base_share == doctest::Approx(0.005));
  CHECK(tiny.gating);
  CHECK(tiny.verdict == ng::Verdict::regressed);
  CHECK(j.decision.outcome == ng::Outcome::regression);
}

TEST_CASE("material_share 0 makes every op material, and the minor regression then fails the gate") {
  ng::RuleSet rules = ng::default_rules();
  rules.material_share = 0.0;
  const ng::Judgement j = ng::judge(profile(), ng::ConditionsDiff{}, rules, ng::DecideOptions{});
  CHECK(find(j, "tiny", C::self_cpu).material);
  CHECK(find(j, "big", C::self_cpu).family_size == 4);
  CHECK(j.decision.outcome == ng::Outcome::regression);
}

TEST_CASE("a material op that regresses fails the gate — an op only in head is not material") {
  auto measurements = profile();
  measurements[1] = metric(C::self_cpu, "big", 50.0, 1.5, 1e-6);
  ng::MetricMeasurement added = metric(C::self_cpu, "new_op", 500.0, 1.0, 0.5);
  added.present_in_base = false;
  added.base_samples.clear();
  added.base_median.reset();
  measurements.push_back(added);
  const ng::Judgement j = ng::judge(measurements, ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{});
  CHECK(j.decision.outcome == ng::Outcome::regression);
  CHECK_FALSE(find(j, "new_op", C::self_cpu).material);
  CHECK(find(j, "new_op", C::self_cpu).verdict == ng::Verdict::structural);
}

TEST_CASE("references are per rank, and without step time self CPU is measured against the ops' total") {
  std::vector<ng::MetricComparison> metrics(3);
  metrics[0].metric_class = C::self_cpu;
  metrics[0].base_median = 95.0;
  metrics[1].metric_class = C::self_cpu;
  metrics[1].base_median = 4.0;
  metrics[2].metric_class = C::self_cpu;
  metrics[2].base_median = 1.0;  // 1 of 100 µs: below 5% if it were on rank-less base
  metrics[2].rank = 1;           // but alone on rank 1: 100% of its rank
  metrics[2].ranked = true;
  const ng::MaterialSelection selection = ng::select_material(metrics, 0.05);
  CHECK(metrics[0].material);
  CHECK(*metrics[0].base_share == doctest::Approx(95.0 / 99.0));
  CHECK_FALSE(metrics[1].material);
  CHECK(metrics[2].material);
  CHECK(*metrics[2].base_share == 1.0);
  CHECK(selection.material == 2);
  CHECK(selection.not_material == 1);
  CHECK_FALSE(selection.step_us);
}

TEST_SUITE_END();
