// Replacement groups and class totals (compare/replacement_groups.hpp, issue 12 item 2) on hand-built
// sides: the per-step sums are exact, a renamed op whose kernels got slower fails through the device
// group, and a group's ops never fail on their own as well.
#include "compare/judgement.hpp"
#include "compare/replacement_groups.hpp"
#include "profile/op_keys.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

namespace ng = neuron_gate;

namespace {

// Per op name: median self CPU µs, median device µs and calls per step.
struct OpSpec {
  double cpu_us = 0, device_us = 0;
  std::int64_t calls = 1;
};

// A side of 10 runs x 3 traces of one step each; every value times exp(2% noise), in whole ns.
ng::SideSamples side_of(const std::string& label, const std::map<std::string, OpSpec>& ops, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.02);
  ng::SideSamples side;
  side.label = label;
  side.inventory.spec = label;
  for (int r = 0; r < 10; ++r) {
    for (int s = 0; s < 3; ++s) {
      ng::TraceSamples trace;
      trace.path = label + "/run-" + std::to_string(10 + r) + "/t" + std::to_string(s) + ".json";
      trace.has_profiler_steps = true;
      ng::StepSample step;
      std::map<std::string, ng::OpValues> step_ops;
      step.name = "ProfilerStep#1";
      step.duration_ns = 10000;
      for (const auto& [name, spec] : ops) {
        const auto ns = [&](double us) {
          return static_cast<ng::Nanoseconds>(std::llround(us * 1000.0 * std::exp(noise(rng))));
        };
        step_ops[name] = ng::OpValues{ns(spec.cpu_us), spec.device_us > 0 ? ns(spec.device_us) : 0, spec.calls};
        step.duration_ns += step_ops[name].self_cpu_ns + step_ops[name].device_ns;
      }
      trace.steps.push_back(step);
      ng::set_trace_ops(trace, {step_ops});
      side.traces.push_back(trace);
    }
  }
  return side;
}

const ng::MetricComparison& metric(const ng::Judgement& j, ng::MetricClass c, ng::MetricScope scope,
                                   const std::string& name) {
  for (const ng::MetricComparison& m : j.metrics) {
    if (m.metric_class == c && m.scope == scope && m.name == name) {
      return m;
    }
  }
  FAIL("no metric " << name);
  return j.metrics.front();
}

ng::Judgement judge(const ng::SideSamples& base, const ng::SideSamples& head) {
  const ng::RuleSet rules = ng::default_rules();
  return ng::judge(ng::compare_metrics(base, head, rules), ng::ConditionsDiff{}, rules, ng::DecideOptions{});
}

}  // namespace

TEST_SUITE_BEGIN("compare::replacements");

TEST_CASE("sum_class: members by rule and exact sums per step") {
  const std::vector<double> a{1, 2, 3}, b{10, 20}, none;
  const std::vector<ng::OpStepValues> ops{
      {"same", &a, &b, true, true, 1.0, 1.0},        // same calls: not a member
      {"more calls", &a, &b, true, true, 1.0, 2.0},  // calls changed
      {"gone", &a, &none, true, false, 1.0, std::nullopt},
      {"new", &none, &b, false, true, std::nullopt, 3.0},
  };
  CHECK(ng::replacement_of(ops[0]) == ng::Replacement::none);
  CHECK(ng::replacement_of(ops[1]) == ng::Replacement::calls_changed);
  CHECK(ng::replacement_of(ops[2]) == ng::Replacement::gone);
  CHECK(ng::replacement_of(ops[3]) == ng::Replacement::appeared);
  const ng::ClassSums sums = ng::sum_class(ops, 3, 2);
  CHECK(sums.members.gone == std::vector<std::string>{"gone"});
  CHECK(sums.members.appeared == std::vector<std::string>{"new"});
  CHECK(sums.members.calls_changed == std::vector<std::string>{"more calls"});
  CHECK(sums.group_base == std::vector<double>{2, 4, 6});
  CHECK(sums.group_head == std::vector<double>{20, 40});
  CHECK(sums.total_base == std::vector<double>{3, 6, 9});
  CHECK(sums.total_head == std::vector<double>{30, 60});
  const std::vector<double> wrong{1, 2};
  CHECK_THROWS_AS(ng::sum_class({{"short", &wrong, &b, true, true, 1.0, 1.0}}, 3, 2), std::invalid_argument);
}

TEST_CASE("a renamed op whose kernels got 30% slower fails through the device replacement group") {
  const auto base = side_of("base", {{"launch_old", {5, 100}}, {"other", {5, 50}}}, 1);
  const auto head = side_of("head", {{"launch_new", {5, 130}}, {"other", {5, 50}}}, 2);
  const ng::Judgement j = judge(base, head);
  CHECK(j.decision.outcome == ng::Outcome::regression);
  const auto& group = metric(j, ng::MetricClass::device, ng::MetricScope::replacement_group, "replaced ops");
  CHECK(group.verdict == ng::Verdict::regressed);
  CHECK(group.gating);
  CHECK(group.family == ng::Family::per_op);
  CHECK(*group.base_median == doctest::Approx(100).epsilon(0.02));
  CHECK(*group.ratio == doctest::Approx(1.3).epsilon(0.02));
  CHECK(group.replaced->gone == std::vector<std::string>{"launch_old"});
  CHECK(group.replaced->appeared == std::vector<std::string>{"launch_new"});
  const auto& total = metric(j, ng::MetricClass::device, ng::MetricScope::class_total, "all ops");
  CHECK(total.verdict == ng::Verdict::regressed);
  CHECK(*total.ratio == doctest::Approx(1.2).epsilon(0.02));  // (130 + 50) / (100 + 50)
  // The renamed op itself is STRUCTURAL: the group names it, the decision does not list it twice.
  const auto& renamed = metric(j, ng::MetricClass::device, ng::MetricScope::op, "launch_new");
  CHECK(renamed.verdict == ng::Verdict::structural);
  CHECK_FALSE(renamed.gating);
  CHECK(j.decision.regressed == std::vector<std::string>{"all ops", "replaced ops"});  // device total, then group
  // Self CPU is unchanged: its group holds the same two ops at the same time and does not regress.
  const auto& cpu_group = metric(j, ng::MetricClass::self_cpu, ng::MetricScope::replacement_group, "replaced ops");
  CHECK(cpu_group.verdict != ng::Verdict::regressed);
}

TEST_CASE("an op whose calls per step changed is judged through its group only") {
  // "extra" runs twice per step in head and takes 2x; alone it would be a significant REGRESSED op.
  const auto base = side_of("base", {{"extra", {20, 0, 1}}, {"steady", {40, 0, 1}}}, 3);
  const auto head = side_of("head", {{"extra", {40, 0, 2}}, {"steady", {40, 0, 1}}}, 4);
  const ng::Judgement j = judge(base, head);
  const auto& extra = metric(j, ng::MetricClass::self_cpu, ng::MetricScope::op, "extra");
  CHECK(extra.verdict == ng::Verdict::structural);
  CHECK(extra.why == ng::VerdictReason::in_replacement_group);
  CHECK(extra.family == ng::Family::replaced);
  CHECK_FALSE(extra.gating);
  CHECK(extra.significant_worse);  // its own family (replaced) still measures it
  const auto& group = metric(j, ng::MetricClass::self_cpu, ng::MetricScope::replacement_group, "replaced ops");
  CHECK(group.verdict == ng::Verdict::regressed);
  CHECK(group.replaced->calls_changed == std::vector<std::string>{"extra"});
  CHECK(*group.ratio == doctest::Approx(2.0).epsilon(0.02));
  CHECK(j.decision.material.sums == 2);      // self CPU total and group
  CHECK(j.decision.material.replaced == 1);  // "extra"
  CHECK(j.decision.material.material == 1);  // "steady"
  CHECK(group.family_size == 3);
  // No device time anywhere: no device sums.
  for (const ng::MetricComparison& m : j.metrics) {
    CHECK(m.metric_class != ng::MetricClass::device);
  }
}

TEST_CASE("the same ops and calls on both sides: a class total and no replacement group") {
  const auto base = side_of("base", {{"a", {20, 0, 1}}}, 5);
  const auto head = side_of("head", {{"a", {20, 0, 1}}}, 6);
  const ng::Judgement j = judge(base, head);
  std::size_t totals = 0, groups = 0;
  for (const ng::MetricComparison& m : j.metrics) {
    totals += m.scope == ng::MetricScope::class_total ? 1 : 0;
    groups += m.scope == ng::MetricScope::replacement_group ? 1 : 0;
  }
  CHECK(totals == 1);
  CHECK(groups == 0);
  CHECK(metric(j, ng::MetricClass::self_cpu, ng::MetricScope::class_total, "all ops").verdict ==
        ng::Verdict::equivalent);
}

TEST_SUITE_END();
