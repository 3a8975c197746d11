// Timer resolution (issue 14 item 3): integer-µs data widen the CIs by one quantum, a collapsed interval
// never claims EQUIVALENT, and values below one quantum print as "< 1 µs".
#include "compare/judgement.hpp"
#include "compare/metric_comparison.hpp"
#include "profile/op_keys.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

namespace ng = neuron_gate;

namespace {

// A side of 10 runs x 3 traces of one step; op "op" is `us` x exp(noise) rounded to whole µs, as a
// timer of 1-µs resolution writes it (legacy traces); the step is the op plus 50 µs.
ng::SideSamples quantised_side(const std::string& label, double us, double sigma, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  ng::SideSamples side;
  side.label = label;
  side.inventory.spec = label;
  for (int r = 0; r < 10; ++r) {
    for (int s = 0; s < 3; ++s) {
      ng::TraceSamples trace;
      trace.path = label + "/run-" + std::to_string(10 + r) + "/t" + std::to_string(s) + ".json";
      trace.has_profiler_steps = true;
      ng::StepSample step;
      std::map<std::string, ng::OpValues> ops;
      step.name = "ProfilerStep#1";
      const double value = std::max(0.0, std::round(us * std::exp(sigma * normal(rng))));
      ops["op"] = ng::OpValues{static_cast<ng::Nanoseconds>(value * 1000.0), 0, 1};
      step.duration_ns = ops["op"].self_cpu_ns + 50000;
      trace.steps.push_back(step);
      ng::set_trace_ops(trace, {ops});
      side.traces.push_back(trace);
    }
  }
  return side;
}

// A side whose op has the given whole-µs values, one step each (3 steps per run folder).
ng::SideSamples fixed_side(const std::string& label, const std::vector<int>& values_us) {
  ng::SideSamples side;
  side.label = label;
  side.inventory.spec = label;
  for (std::size_t i = 0; i < values_us.size(); ++i) {
    ng::TraceSamples trace;
    trace.path = label + "/run-" + std::to_string(10 + i / 3) + "/t" + std::to_string(i % 3) + ".json";
    trace.has_profiler_steps = true;
    ng::StepSample step;
    std::map<std::string, ng::OpValues> ops;
    step.name = "ProfilerStep#1";
    ops["op"] = ng::OpValues{values_us[i] * 1000, 0, 1};
    step.duration_ns = 60000;
    trace.steps.push_back(step);
    ng::set_trace_ops(trace, {ops});
    side.traces.push_back(trace);
  }
  return side;
}

const ng::MetricComparison& op_of(const ng::Judgement& j) {
  for (const ng::MetricComparison& m : j.metrics) {
    if (m.name == "op" && m.metric_class == ng::MetricClass::self_cpu) {
      return m;
    }
  }
  FAIL("no op metric");
  return j.metrics.front();
}

}  // namespace

TEST_SUITE_BEGIN("compare::resolution");

TEST_CASE("a true +20% on ~1 µs integer samples is never EQUIVALENT (200 seeded trials)") {
  std::size_t widened = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const ng::SideSamples base = quantised_side("base", 1.0, 0.3, rng);
    const ng::SideSamples head = quantised_side("head", 1.2, 0.3, rng);
    REQUIRE(ng::integer_microsecond_data(base));
    const ng::Judgement j = ng::judge(ng::compare_metrics(base, head, ng::default_rules()), ng::ConditionsDiff{},
                                      ng::default_rules(), ng::DecideOptions{});
    const ng::MetricComparison& m = op_of(j);
    CAPTURE(seed);
    CAPTURE(m.ratio_low.value_or(-1));
    CAPTURE(m.ratio_high.value_or(-1));
    CHECK(m.verdict != ng::Verdict::equivalent);
    widened += m.resolution && *m.resolution == 1.0 ? std::size_t{1} : std::size_t{0};
  }
  CHECK(widened == 200);
}

TEST_CASE("a collapsed interval (aten::rsqrt 1 µs -> 0 µs in the examples) is widened and not EQUIVALENT") {
  // Base mostly 1 µs, head mostly 0 µs: the Hodges–Lehmann shift and its CI collapse to [0, 0] on
  // integer data, which read 1.000x EQUIVALENT before.
  std::vector<int> base(30, 1), head(30, 0);
  for (int i = 0; i < 14; ++i) {
    base[static_cast<std::size_t>(i)] = 0;
    head[static_cast<std::size_t>(i)] = 1;
  }
  const ng::Judgement j =
      ng::judge(ng::compare_metrics(fixed_side("base", base), fixed_side("head", head), ng::default_rules()),
                ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{});
  const ng::MetricComparison& m = op_of(j);
  REQUIRE(m.shift_low);
  CHECK(*m.shift_low == -1.0);  // [0, 0] widened by one quantum each side
  CHECK(*m.shift_high == 1.0);
  CHECK(m.verdict == ng::Verdict::inconclusive);
  CHECK(m.why == ng::VerdictReason::within_resolution);
  CHECK(*m.head_median < *m.resolution);  // printed "< 1 µs" (test_report_prose.cpp)
}

TEST_CASE("data with sub-µs durations are not widened") {
  ng::SideSamples base = fixed_side("base", std::vector<int>(12, 5));
  ng::add_op(base.traces[0], base.traces[0].steps[0], "op").self_cpu_ns += 1;
  CHECK_FALSE(ng::integer_microsecond_data(base));
  const auto metrics = ng::compare_metrics(base, base, ng::default_rules());
  for (const ng::MetricMeasurement& m : metrics) {
    CHECK_FALSE(m.resolution);
  }
}

TEST_CASE("the A/A noise blocks a significant change whose CI does not clear it, and names it") {
  std::mt19937_64 rng(5);
  const ng::SideSamples base = quantised_side("base", 20.0, 0.05, rng);
  const ng::SideSamples head = quantised_side("head", 26.0, 0.05, rng);
  const auto measurements = ng::compare_metrics(base, head, ng::default_rules());
  ng::DecideOptions quiet, noisy;
  noisy.base_noise.push_back(ng::BaseNoise{ng::MetricClass::self_cpu, "op", 0.5});
  const ng::Judgement decided = ng::judge(measurements, ng::ConditionsDiff{}, ng::default_rules(), quiet);
  CHECK(op_of(decided).verdict == ng::Verdict::regressed);  // +30% on 20 µs, CI clear of 1
  const ng::Judgement blocked = ng::judge(measurements, ng::ConditionsDiff{}, ng::default_rules(), noisy);
  CHECK(op_of(blocked).verdict == ng::Verdict::inconclusive);
  CHECK(op_of(blocked).why == ng::VerdictReason::within_noise);
  CHECK(*op_of(blocked).base_noise == 0.5);
}

TEST_SUITE_END();
