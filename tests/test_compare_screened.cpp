// Which metrics hold events the event screen excluded (compare/screened_metrics.hpp, issue 13 item 2) on
// hand-built sides of two ranks: only the op named, its class total and its rank are marked, and only the
// marked metrics are INCONCLUSIVE when the side's share of that class is beyond max_excluded_share.
#include "compare/judgement.hpp"
#include "compare/screened_metrics.hpp"
#include "profile/op_keys.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

namespace ng = neuron_gate;

namespace {

// 10 runs x 2 ranks, one trace of one step each: aten::mm (50 µs CPU, 300 µs device), aten::add (20, 40)
// and ProfilerStep* (ignored by the default rules), every value times exp(2% noise), in whole ns.
ng::SideSamples side_of(const std::string& label, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.02);
  const auto ns = [&](double us) {
    return static_cast<ng::Nanoseconds>(std::llround(us * 1000.0 * std::exp(noise(rng))));
  };
  ng::SideSamples side;
  side.label = label;
  side.inventory.spec = label;
  for (int r = 0; r < 10; ++r) {
    for (unsigned rank = 0; rank < 2; ++rank) {
      ng::TraceSamples trace;
      trace.path = label + "/run-" + std::to_string(10 + r) + "/rank" + std::to_string(rank) + ".json";
      trace.has_profiler_steps = true;
      trace.rank = rank;
      ng::StepSample step;
      std::map<std::string, ng::OpValues> ops;
      step.name = "ProfilerStep#1";
      step.duration_ns = ns(1000);
      ops["aten::mm"] = ng::OpValues{ns(50), ns(300), 1};
      ops["aten::add"] = ng::OpValues{ns(20), ns(40), 1};
      ops["ProfilerStep*"] = ng::OpValues{ns(5), 0, 1};
      trace.steps.push_back(step);
      ng::set_trace_ops(trace, {ops});
      side.traces.push_back(trace);
    }
  }
  side.screened.kept_cpu_ns = 20 * 75'000;
  side.screened.kept_device_ns = 20 * 340'000;
  return side;
}

const ng::MetricMeasurement& find(const std::vector<ng::MetricMeasurement>& metrics, ng::MetricClass c,
                                  const std::string& name) {
  for (const ng::MetricMeasurement& m : metrics) {
    if (m.metric_class == c && m.name == name) {
      return m;
    }
  }
  FAIL("no metric " << name);
  return metrics.front();
}

const ng::MetricComparison& find(const ng::Judgement& j, ng::MetricClass c, const std::string& name) {
  for (const ng::MetricComparison& m : j.metrics) {
    if (m.metric_class == c && m.name == name) {
      return m;
    }
  }
  FAIL("no metric " << name);
  return j.metrics.front();
}

// The traces of one rank of `side`.
template <typename F>
void for_rank(ng::SideSamples& side, unsigned rank, F f) {
  for (ng::TraceSamples& trace : side.traces) {
    if (trace.rank == rank) {
      f(trace);
    }
  }
}

}  // namespace

TEST_SUITE_BEGIN("compare::screened");

TEST_CASE(
    "a screened kernel of one op on rank 1 marks that op's device time, the device total of rank 1, nothing else") {
  const ng::SideSamples base = side_of("base", 1);
  ng::SideSamples head = side_of("head", 2);
  for_rank(head, 1, [](ng::TraceSamples& t) { t.screened_ops["aten::mm"].device_events = 1; });
  head.screened.excluded_device_ns = 20 * 300'000;  // 47% of head's device time
  const ng::RuleSet rules = ng::default_rules();
  const std::vector<ng::MetricMeasurement> metrics = ng::compare_metrics(base, head, rules);
  using ng::MetricClass;
  const auto& mm1 = find(metrics, MetricClass::device, "aten::mm [rank 1]");
  CHECK(mm1.head_screened);
  CHECK_FALSE(mm1.base_screened);
  CHECK(mm1.head_excluded_share == doctest::Approx(6.0 / 12.8));
  CHECK_FALSE(find(metrics, MetricClass::device, "aten::mm [rank 0]").head_screened);
  CHECK_FALSE(find(metrics, MetricClass::device, "aten::add [rank 1]").head_screened);
  CHECK(find(metrics, MetricClass::device, "all ops [rank 1]").head_screened);
  CHECK_FALSE(find(metrics, MetricClass::device, "all ops [rank 0]").head_screened);
  CHECK_FALSE(find(metrics, MetricClass::self_cpu, "aten::mm [rank 1]").head_screened);
  CHECK_FALSE(find(metrics, MetricClass::self_cpu, "all ops [rank 1]").head_screened);
  CHECK_FALSE(find(metrics, MetricClass::step_time, "step time [rank 1]").head_screened);

  const ng::Judgement j = ng::judge(metrics, ng::ConditionsDiff{}, rules, ng::DecideOptions{});
  CHECK(find(j, MetricClass::device, "aten::mm [rank 1]").why == ng::VerdictReason::data_incomplete);
  CHECK(find(j, MetricClass::device, "all ops [rank 1]").why == ng::VerdictReason::data_incomplete);
  for (const char* name : {"aten::mm [rank 0]", "aten::add [rank 0]", "aten::add [rank 1]", "all ops [rank 0]"}) {
    CAPTURE(name);
    CHECK(find(j, MetricClass::device, name).verdict == ng::Verdict::equivalent);
  }
  // head's data alone are incomplete: evidence the PR controls fails closed (exit 3, "re-profile head")
  CHECK(j.decision.outcome == ng::Outcome::not_comparable);
  CHECK(j.decision.exit_code == 3);
  CHECK(j.decision.no_decision->cause == ng::NoDecisionCause::head_data_incomplete);
  // the same screen on base: NO DECISION
  const ng::Judgement swapped = ng::judge(ng::compare_metrics(head, base, rules), ng::ConditionsDiff{}, rules, {});
  CHECK(swapped.decision.outcome == ng::Outcome::no_decision);
  CHECK(swapped.decision.no_decision->cause == ng::NoDecisionCause::data_incomplete);

  SUBCASE("below max_excluded_share the marked metrics are judged on what remains") {
    ng::SideSamples small = head;
    small.screened.excluded_device_ns = 20 * 300;  // 0.05%
    const ng::Judgement k =
        ng::judge(ng::compare_metrics(base, small, rules), ng::ConditionsDiff{}, rules, ng::DecideOptions{});
    CHECK(find(k, MetricClass::device, "aten::mm [rank 1]").verdict == ng::Verdict::equivalent);
    CHECK(k.decision.outcome == ng::Outcome::pass);
  }
}

TEST_CASE("screened CPU events mark self CPU metrics — cut steps mark step time — lost device time marks every device "
          "metric of its rank") {
  const ng::SideSamples head = side_of("head", 2);
  ng::SideSamples base = side_of("base", 1);
  for_rank(base, 0, [](ng::TraceSamples& t) {
    t.screened_ops["aten::add"].cpu_events = 2;
    t.steps_screened = true;
  });
  for_rank(base, 1, [](ng::TraceSamples& t) {
    t.screened_ops["ProfilerStep*"].cpu_events = 1;  // ignored by the rules: no op metric, no total
    t.screened.device_time_lost = true;
  });
  const std::vector<ng::MetricMeasurement> metrics = ng::compare_metrics(base, head, ng::default_rules());
  using ng::MetricClass;
  CHECK(find(metrics, MetricClass::self_cpu, "aten::add [rank 0]").base_screened);
  CHECK(find(metrics, MetricClass::self_cpu, "all ops [rank 0]").base_screened);
  CHECK(find(metrics, MetricClass::step_time, "step time [rank 0]").base_screened);
  CHECK_FALSE(find(metrics, MetricClass::self_cpu, "aten::mm [rank 0]").base_screened);
  CHECK_FALSE(find(metrics, MetricClass::device, "aten::add [rank 0]").base_screened);
  CHECK_FALSE(find(metrics, MetricClass::self_cpu, "all ops [rank 1]").base_screened);
  CHECK_FALSE(find(metrics, MetricClass::step_time, "step time [rank 1]").base_screened);
  for (const char* name : {"aten::mm [rank 1]", "aten::add [rank 1]", "all ops [rank 1]"}) {
    CAPTURE(name);
    CHECK(find(metrics, MetricClass::device, name).base_screened);
  }
  CHECK_FALSE(find(metrics, MetricClass::device, "all ops [rank 0]").base_screened);
  for (const ng::MetricMeasurement& m : metrics) {
    CHECK_FALSE(m.head_screened);
  }
}

TEST_SUITE_END();
