// Tests for src/compare/: rules loading, conditions, verdicts on constructed samples.
#include "compare/conditions.hpp"
#include "compare/judgement.hpp"
#include "compare/metric_comparison.hpp"
#include "compare/rule_set.hpp"
#include "profile/op_keys.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

namespace ng = neuron_gate;

TEST_SUITE_BEGIN("compare::rule_set");

TEST_CASE("the compiled-in rules are rules/default.json and hold the documented defaults") {
  const ng::RuleSet rules = ng::default_rules();
  std::ifstream in(std::string(NEURON_GATE_SOURCE_DIR) + "/rules/default.json");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(rules.text == text.str());
  CHECK(rules.alpha == 0.05);
  CHECK(rules.correction == ng::Correction::holm);
  CHECK(rules.self_cpu.threshold == 0.05);
  CHECK(rules.device.threshold == 0.05);
  CHECK(rules.end_to_end.threshold == 0.05);
  CHECK(rules.step_time.gate == ng::GateMode::never);
  CHECK(rules.floor_us == 1.0);
  CHECK(rules.is_ignored("ProfilerStep*"));
  CHECK(rules.is_ignored("ProfilerStep#7"));
  CHECK_FALSE(rules.is_ignored("aten::mm"));
}

TEST_CASE("rules errors name the key and suggest the closest one") {
  CHECK_THROWS_WITH(ng::parse_rules(R"({"alpah": 0.05})", "r.json"),
                    "r.json: unknown key \"alpah\", did you mean \"alpha\"?");
  CHECK_THROWS_WITH(ng::parse_rules(R"({"metrics": {"device": {"treshold": 0.1}}})", "r.json"),
                    "r.json: unknown key \"metrics.device.treshold\", did you mean \"threshold\"?");
  CHECK_THROWS_WITH(ng::parse_rules(R"({"alpha": "0.05"})", "r.json"),
                    "r.json: \"alpha\" must be a number, not \"0.05\"");
  CHECK_THROWS_WITH(ng::parse_rules(R"({"alpha": 2})", "r.json"),
                    "r.json: \"alpha\" must be between 1e-12 and 0.5, not 2");
  CHECK_THROWS_WITH(ng::parse_rules(R"({"correction": "bh"})", "r.json"),
                    doctest::Contains("\"correction\" must be \"holm\" or \"bonferroni\""));
  CHECK_THROWS_WITH(ng::parse_rules(R"({"waivers": [{"pattern": "x", "reason": "y", "expires": "soon"}]})", "r.json"),
                    "r.json: \"waivers[].expires\" must be a date YYYY-MM-DD, not \"soon\"");
  CHECK_THROWS_WITH(ng::parse_rules("{\"alpha\": 0.05,", "r.json"), doctest::Contains("r.json:byte "));
}

TEST_CASE("the rules key unit is step or run and defaults to step") {
  CHECK(ng::default_rules().unit == ng::SampleUnit::step);
  CHECK(ng::parse_rules(R"({"unit": "run"})", "r.json").unit == ng::SampleUnit::run);
  CHECK(ng::parse_rules(R"({"unit": "step"})", "r.json").unit == ng::SampleUnit::step);
  CHECK_THROWS_WITH(ng::parse_rules(R"({"unit": "runs"})", "r.json"),
                    "r.json: \"unit\" must be \"step\" or \"run\", not \"runs\"");
  CHECK_THROWS_WITH(ng::parse_rules(R"({"unit": 1})", "r.json"), "r.json: \"unit\" must be a string, not 1");
  CHECK_THROWS_WITH(ng::parse_rules(R"({"unti": "run"})", "r.json"),
                    "r.json: unknown key \"unti\", did you mean \"unit\"?");
  CHECK(std::string(ng::sample_unit_key(ng::SampleUnit::run)) == "run");
  CHECK_FALSE(ng::parse_sample_unit("Run"));
}

TEST_CASE("the applied rules as JSON parse back to the same rules, and an override changes them") {
  ng::RuleSet rules = ng::parse_rules(R"({
    "alpha": 0.01, "correction": "bonferroni", "floor_us": 2.5, "drop_first_steps": 1, "unit": "run",
    "metrics": {"step_time": {"threshold": 0.1, "gate": "always"}},
    "ops": [{"pattern": "aten::copy_*", "threshold": 0.2}], "allow_mismatch": ["traces"],
    "waivers": [{"pattern": "aten::mm", "reason": "known, \"quoted\"", "expires": "2026-12-31"}],
    "max_waiver_days": 30
  })",
                                      "r.json");
  const std::string text = ng::applied_rules_json(rules);
  ng::RuleSet back = ng::parse_rules(text, "applied");
  back.source = rules.source;
  back.text = rules.text;
  CHECK(back == rules);
  CHECK(ng::applied_rules_json(back) == text);
  CHECK(ng::applied_rules_json(ng::default_rules()) != ng::default_rules().text);  // canonical, not the file
  rules.unit = ng::SampleUnit::step;                                               // as --unit step does
  CHECK(ng::applied_rules_json(rules) != text);
  CHECK(ng::applied_rules_json(rules).find("\"unit\": \"step\"") != std::string::npos);
}

TEST_CASE("per-op thresholds and waivers apply by glob pattern") {
  const ng::RuleSet rules = ng::parse_rules(R"({
    // comments are allowed
    "ops": [{"pattern": "aten::copy_*", "threshold": 0.2}],
    "waivers": [{"pattern": "aten::mm", "reason": "known, tracked in #12", "expires": "2026-12-31"}]
  })",
                                            "r.json");
  CHECK(rules.threshold_for(ng::MetricClass::self_cpu, "aten::copy_") == 0.2);
  CHECK(rules.threshold_for(ng::MetricClass::self_cpu, "aten::mm") == 0.05);
  CHECK(rules.threshold_for(ng::MetricClass::end_to_end, "aten::copy_") == 0.05);
  CHECK(rules.waiver_for("aten::mm", "2026-12-31") != nullptr);
  CHECK(rules.waiver_for("aten::mm", "2027-01-01") == nullptr);
}

TEST_CASE("catch-all patterns are refused in waivers and ignore, naming the rules file") {
  // The bypass of issue 15: a pull request waiving everything until 2999.
  CHECK_THROWS_WITH(
      ng::parse_rules(R"({"waivers": [{"pattern": "*", "reason": "x", "expires": "2999-12-31"}]})", "pr/rules.json"),
      "pr/rules.json: \"waivers[0].pattern\" is \"*\", which matches every metric: catch-all patterns are "
      "refused in waivers and ignore (name the ops)");
  for (const char* pattern : {"*", "**", "?*", "*?*", "***?"}) {
    CAPTURE(pattern);
    CHECK(ng::is_catch_all_pattern(pattern));
    const std::string ignore = std::string(R"({"ignore": ["ProfilerStep*", ")") + pattern + "\"]}";
    CHECK_THROWS_WITH(ng::parse_rules(ignore, "r.json"), doctest::Contains("r.json: \"ignore[1]\" is \""));
    const std::string waiver =
        std::string(R"({"waivers": [{"pattern": "aten::mm", "reason": "ok", "expires": "2026-01-01"},
                                                           {"pattern": ")") +
        pattern + R"(", "reason": "r", "expires": "2026-01-01"}]})";
    CHECK_THROWS_WITH(ng::parse_rules(waiver, "r.json"), doctest::Contains("r.json: \"waivers[1].pattern\""));
  }
  for (const char* pattern : {"aten::*", "*mm*", "ProfilerStep*", "?", "??", "", "latency"}) {
    CAPTURE(pattern);
    CHECK_FALSE(ng::is_catch_all_pattern(pattern));
  }
  CHECK(ng::parse_rules(R"({"ignore": ["aten::*"]})", "r.json").is_ignored("aten::mm"));
}

TEST_CASE("a waiver needs a reason and a real date") {
  CHECK_THROWS_WITH(
      ng::parse_rules(R"({"waivers": [{"pattern": "aten::mm", "reason": " ", "expires": "2026-01-01"}]})", "r.json"),
      "r.json: \"waivers[0].reason\" is empty: a waiver must say why the regression is accepted");
  CHECK_THROWS_WITH(ng::parse_rules(R"({"waivers": [{"pattern": "aten::mm", "expires": "2026-01-01"}]})", "r.json"),
                    "r.json: \"waivers[]\" entries need \"pattern\", \"reason\" and \"expires\"");
  CHECK_THROWS_WITH(
      ng::parse_rules(R"({"waivers": [{"pattern": "aten::mm", "reason": "r", "expires": "2026-02-30"}]})", "r.json"),
      "r.json: \"waivers[].expires\" must be a date YYYY-MM-DD, not \"2026-02-30\"");
}

TEST_CASE("a waiver may expire at most max_waiver_days (default 90) after today") {
  const ng::RuleSet rules = ng::parse_rules(R"({"waivers": [
      {"pattern": "aten::mm", "reason": "tracked in #12", "expires": "2026-03-31"},
      {"pattern": "aten::add", "reason": "tracked in #13", "expires": "2999-12-31"}]})",
                                            "ci/rules.json");
  CHECK(rules.max_waiver_days == 90);
  // 2026-01-01 + 89 days = 2026-03-31 for the first; the second is 356,000+ days away.
  CHECK_THROWS_WITH(ng::check_waiver_expiry(rules, "2026-01-01"),
                    "ci/rules.json: \"waivers[1]\" (pattern \"aten::add\") expires 2999-12-31, 355745 days after today "
                    "(2026-01-01); the rules allow at most 90 days (max_waiver_days)");
  const ng::RuleSet one =
      ng::parse_rules(R"({"waivers": [{"pattern": "aten::mm", "reason": "r", "expires": "2026-04-01"}]})", "r.json");
  CHECK_NOTHROW(ng::check_waiver_expiry(one, "2026-01-01"));  // exactly 90 days
  CHECK_THROWS_WITH(ng::check_waiver_expiry(one, "2025-12-31"), doctest::Contains("91 days after today (2025-12-31)"));
  CHECK_NOTHROW(ng::check_waiver_expiry(one, "2027-01-01"));  // expired: no error, it just no longer applies
  const ng::RuleSet longer = ng::parse_rules(
      R"({"max_waiver_days": 365, "waivers": [{"pattern": "aten::mm", "reason": "r", "expires": "2026-12-31"}]})",
      "r.json");
  CHECK_NOTHROW(ng::check_waiver_expiry(longer, "2026-01-01"));
  CHECK_THROWS_WITH(ng::parse_rules(R"({"max_waiver_days": 5000})", "r.json"),
                    "r.json: \"max_waiver_days\" must be between 1 and 3650, not 5000");
  CHECK_THROWS_AS(ng::check_waiver_expiry(one, "01/01/2026"), ng::UsageError);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("compare::conditions");

TEST_CASE("a differing condition makes the sides not comparable unless accepted") {
  ng::Fingerprint base, head;
  base.values = {{"schedule", "1 step per trace"}, {"traces", "30"}};
  head.values = {{"schedule", "2 steps per trace"}, {"traces", "30"}};
  const ng::ConditionsDiff diff = ng::diff_conditions(base, head, {});
  CHECK_FALSE(diff.comparable());
  REQUIRE(diff.rows.size() == 3);  // and inputs: unknown, not verified
  CHECK(diff.rows[2].name == "inputs");
  CHECK_FALSE(diff.rows[2].verified);
  CHECK(diff.rows[0].name == "schedule");
  CHECK_FALSE(diff.rows[0].matches);
  CHECK(diff.rows[1].matches);
  const ng::ConditionsDiff accepted = ng::diff_conditions(base, head, {"schedule"});
  CHECK(accepted.comparable());
  CHECK(accepted.rows[0].accepted);
  CHECK_THROWS_WITH(ng::diff_conditions(base, head, {"shedule"}),
                    "unknown condition \"shedule\", did you mean \"schedule\"?");
}

TEST_CASE("a differing operating point blocks, a differing workload name is shown and does not") {
  ng::Fingerprint base, head;
  base.values = {{"manifest.workload", "model_a:step"}, {"manifest.operating_point", "bs4"}};
  head.values = {{"manifest.workload", "model_b:step"}, {"manifest.operating_point", "bs4"}};
  ng::ConditionsDiff diff = ng::diff_conditions(base, head, {});
  CHECK(diff.comparable());
  REQUIRE(diff.rows.size() == 3);  // inputs first: unknown, not verified
  CHECK(diff.rows[0].name == "inputs");
  CHECK(diff.rows[2].name == "manifest.workload");
  CHECK(diff.rows[2].matches);
  CHECK(diff.rows[2].base == "model_a:step");
  CHECK(diff.rows[2].head == "model_b:step");
  CHECK(diff.rows[2].note == "the workload's name differs: shown, not a condition (its inputs are compared)");
  head.values["manifest.operating_point"] = "bs8";
  diff = ng::diff_conditions(base, head, {});
  CHECK_FALSE(diff.comparable());
  CHECK(diff.rows[1].name == "manifest.operating_point");
  CHECK_FALSE(diff.rows[1].matches);
  CHECK(ng::diff_conditions(base, head, {"manifest.operating_point"}).comparable());
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("compare::verdict");

namespace {

// A side whose single trace has one step per sample, each with op "op" taking `values[i]` µs.
// One step per value, each in a trace of its own run folder (a process of its own: independent samples).
ng::SideSamples side_with(const std::vector<double>& values) {
  ng::SideSamples side;
  for (std::size_t i = 0; i < values.size(); ++i) {
    ng::TraceSamples trace;
    trace.path = "side/run-" + std::to_string(100 + i) + "/trace.json";
    trace.has_profiler_steps = true;
    ng::StepSample step;
    std::map<std::string, ng::OpValues> ops;
    step.name = "ProfilerStep#1";
    step.duration_ns = static_cast<ng::Nanoseconds>(std::llround(values[i] * 1000.0)) + 1000;
    ops["op"] = ng::OpValues{static_cast<ng::Nanoseconds>(std::llround(values[i] * 1000.0)), 0, 1};
    trace.steps.push_back(step);
    ng::set_trace_ops(trace, {ops});
    side.traces.push_back(trace);
  }
  return side;
}

std::vector<double> lognormal(std::mt19937_64& rng, std::size_t n, double median, double sigma) {
  std::lognormal_distribution<double> dist(std::log(median), sigma);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) {
    v.push_back(std::round(dist(rng) * 1000.0) / 1000.0);
  }
  return v;
}

ng::MetricComparison judge_op(const std::vector<double>& base, const std::vector<double>& head) {
  const ng::RuleSet rules = ng::default_rules();
  const ng::Judgement judged = ng::judge(ng::compare_metrics(side_with(base), side_with(head), rules),
                                         ng::ConditionsDiff{}, rules, ng::DecideOptions{});
  for (const auto& m : judged.metrics) {
    if (m.metric_class == ng::MetricClass::self_cpu && m.name == "op") {
      return m;
    }
  }
  FAIL("no self CPU metric for op");
  return {};
}

}  // namespace

TEST_CASE("a 20% slower op with 2% noise and 20 steps a side is REGRESSED") {
  std::mt19937_64 rng(7);
  const auto m = judge_op(lognormal(rng, 20, 100.0, 0.02), lognormal(rng, 20, 120.0, 0.02));
  CHECK(m.verdict == ng::Verdict::regressed);
  CHECK(m.gating);
  CHECK(*m.ratio == doctest::Approx(1.2).epsilon(0.03));
  CHECK(*m.p_worse_adjusted < 1e-6);
}

TEST_CASE("the same distribution on both sides is EQUIVALENT") {
  std::mt19937_64 rng(11);
  const auto m = judge_op(lognormal(rng, 30, 100.0, 0.02), lognormal(rng, 30, 100.0, 0.02));
  CHECK(m.verdict == ng::Verdict::equivalent);
  CHECK(*m.ratio_low >= 0.95);
  CHECK(*m.ratio_high <= 1.05);
}

TEST_CASE("two vs three steps can never pass and are INSUFFICIENT with the samples needed") {
  const auto m = judge_op({100, 101}, {150, 151, 149});
  CHECK(m.verdict == ng::Verdict::insufficient);  // smallest one-sided p = 1/C(5,2) = 0.1 > 0.05
  REQUIRE(m.samples_needed.has_value());
  // The per-op family holds the op and the self CPU total (replacement_groups.hpp): alpha / 2 = 0.025;
  // 1/C(6,3) = 0.05 > 0.025, 1/C(8,4) = 1/70 <= 0.025.
  CHECK(*m.samples_needed == 4);
}

TEST_CASE("constant samples give a verdict and no NaN") {
  // Whole microseconds are quantised data (1-µs timer): a constant cannot be told from a change of less
  // than one quantum, so it is INCONCLUSIVE within the resolution, never EQUIVALENT "within ±5%".
  const auto m = judge_op(std::vector<double>(10, 0.0), std::vector<double>(10, 0.0));
  CHECK(m.verdict == ng::Verdict::inconclusive);
  CHECK(m.why == ng::VerdictReason::within_resolution);
  CHECK_FALSE(m.ratio.has_value());
  const auto same = judge_op(std::vector<double>(10, 5.0), std::vector<double>(10, 5.0));
  CHECK(same.verdict == ng::Verdict::inconclusive);
  CHECK(*same.ratio == 1.0);
  CHECK(*same.ratio_low == doctest::Approx(0.8));  // [1, 1] widened by 1 µs over 5 µs
  // With nanosecond data the same constants are EQUIVALENT.
  const auto fine = judge_op(std::vector<double>(10, 5.001), std::vector<double>(10, 5.001));
  CHECK(fine.verdict == ng::Verdict::equivalent);
  CHECK(*fine.ratio == 1.0);
}

TEST_CASE("a regression below the absolute floor is not REGRESSED") {
  std::mt19937_64 rng(3);
  // 0.5 µs -> 0.6 µs: +20%, significant, but only 0.1 µs per step.
  const auto m = judge_op(lognormal(rng, 30, 0.5, 0.01), lognormal(rng, 30, 0.6, 0.01));
  CHECK(m.verdict != ng::Verdict::regressed);
}

TEST_SUITE_END();
