// Tests for src/report/prose.hpp: reasons, headlines and findings as text, from judged values only.
#include "compare/judgement.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "report/prose.hpp"
#include "report/provenance.hpp"
#include "report/report.hpp"

#include <doctest/doctest.h>

using namespace neuron_gate;

namespace {

// An end-to-end metric with `n` samples a side from k_min_runs_for_e2e_run_unit runs a side (no allowance).
MetricMeasurement e2e(const std::string& name, std::size_t n, double ratio, double low, double high, double p_worse) {
  MetricMeasurement m;
  m.metric_class = MetricClass::end_to_end;
  m.base_processes = m.head_processes = k_min_runs_for_e2e_run_unit;
  m.name = name;
  m.unit = "ms";
  for (std::size_t i = 0; i < n; ++i) {
    m.base_samples.push_back(10.0 + 0.1 * static_cast<double>(i));
    m.head_samples.push_back((10.0 + 0.1 * static_cast<double>(i)) * ratio);
  }
  m.base_median = 10.0;
  m.head_median = 10.0 * ratio;
  m.ratio = ratio;
  m.ratio_low = low;
  m.ratio_high = high;
  m.shift = 10.0 * (ratio - 1.0);
  m.p_worse = p_worse;
  m.p_better = 1.0 - p_worse;
  m.p_two_sided = std::min(1.0, 2.0 * p_worse);
  return m;
}

Judgement judge_all(const std::vector<MetricMeasurement>& measurements) {
  return judge(measurements, ConditionsDiff{}, default_rules(), DecideOptions{});
}

Report report_of(Judgement judgement) {
  const Findings findings = find_findings(SideSamples{}, SideSamples{}, ConditionsDiff{}, judgement, default_rules());
  return build_report(SideSamples{}, SideSamples{}, ConditionsDiff{}, std::move(judgement), findings, default_rules(),
                      Provenance{});
}

}  // namespace

TEST_SUITE_BEGIN("report::prose");

TEST_CASE("an INCONCLUSIVE metric whose CI lies beyond the threshold is not said to straddle it") {
  const Report r = report_of(judge_all({e2e("latency", 10, 1.2, 1.1, 1.3, 0.03), e2e("b", 10, 1.0, 0.99, 1.01, 0.5),
                                        e2e("c", 10, 1.0, 0.99, 1.01, 0.5)}));
  const std::string& reason = r.metrics[0].reason;
  CHECK(reason.find("straddles") == std::string::npos);
  CHECK(reason == "90% CI +10.0…+30.0% lies wholly beyond the ±5% threshold, but the adjusted p 0.0900 "
                  "does not reach alpha 0.05 (3 metrics in the family)");
  CHECK(r.metrics[1].reason == "90% CI -1.0…+1.0% lies within ±5%");
}

TEST_CASE("a CI that straddles the threshold keeps its reason text") {
  const Report r = report_of(judge_all({e2e("latency", 10, 1.04, 0.98, 1.10, 0.2)}));
  CHECK(r.metrics[0].reason ==
        "90% CI -2.0…+10.0% straddles the threshold (±5%) and the change is not significant after correction");
}

TEST_CASE("a CI within the threshold that is not EQUIVALENT says what is not within it") {
  // Found by trial/: aten::mm INCONCLUSIVE read "90% CI -2.0…+1.2% lies within the threshold" while the
  // between-runs interval (-6.0…+3.0%) was what kept it from EQUIVALENT.
  MetricMeasurement runs = e2e("latency", 10, 0.99, 0.98, 1.012, 0.6);
  runs.runs_ratio_low = 0.94;
  runs.runs_ratio_high = 1.03;
  const Report by_runs = report_of(judge_all({runs}));
  REQUIRE(by_runs.metrics[0].verdict == Verdict::inconclusive);
  CHECK(by_runs.metrics[0].reason == "90% CI -2.0…+1.2% lies within the threshold (±5%), but the between-runs "
                                     "interval -6.0…+3.0% does not and the change is not significant after correction");
  MetricMeasurement few = e2e("latency", 10, 1.02, 1.0, 1.04, 0.3);
  few.base_processes = few.head_processes = 2;  // the between-run allowance widens the CI
  const Report widened = report_of(judge_all({few}));
  REQUIRE(widened.metrics[0].verdict == Verdict::inconclusive);
  CHECK(widened.metrics[0].reason.find("lies within the threshold (±5%), but not once widened by the ±") !=
        std::string::npos);
}

TEST_CASE("a 12x regression reads worse by 1100%, not in scientific notation") {
  const Report r = report_of(judge_all({e2e("latency", 20, 12.0, 11.5, 12.5, 1e-6)}));
  REQUIRE(r.metrics[0].verdict == Verdict::regressed);
  CHECK(r.metrics[0].reason == "worse by 1100% (threshold 5%), adjusted p within alpha");
}

TEST_CASE("NO DECISION headline names the metric, its change and the samples needed, never a tick") {
  const Report r = report_of(judge_all({e2e("latency", 2, 1.2, 0.9, 1.5, 0.2)}));
  CHECK(r.outcome == Outcome::no_decision);
  CHECK(prose_markdown(r.verdict_line)
            .rfind("⚠️ NO DECISION · `latency` (end-to-end) +20.0% (90% CI -10.0…+50.0%): too few samples "
                   "to decide; needs about 3 samples per side at this noise (has 2 / 2)",
                   0) == 0);
  CHECK(r.verdict_line.find("✅") == std::string::npos);
  CHECK(std::string(outcome_key(r.outcome)) == "no-decision");
  // Every undecided metric got better: the headline names no regression, only what is missing (a new
  // user's same-code split read "`latency` (end-to-end) -19.4%: too few samples to decide").
  const Report better = report_of(judge_all({e2e("latency", 2, 0.8, 0.6, 1.1, 0.2)}));
  CHECK(better.outcome == Outcome::no_decision);
  CHECK(prose_markdown(better.verdict_line)
            .rfind("⚠️ NO DECISION · too few samples to decide any gating metric (the least improved: `latency` "
                   "(end-to-end) -20.0% (90% CI -40.0…+10.0%)); needs about ",
                   0) == 0);
}

TEST_CASE("the report reads significance from the judgement and never applies alpha itself") {
  // EQUIVALENT end-to-end with adjusted p 0.001: the judgement calls it significant, so the report says
  // the change is real. Clearing the judgement's flag (with the p unchanged) removes the sentence:
  // the renderer does not compare p with alpha on its own.
  Judgement j = judge_all({e2e("latency", 20, 1.03, 1.02, 1.04, 0.001)});
  REQUIRE(j.metrics[0].significant_worse);
  const Report real = report_of(j);
  REQUIRE(real.interpretations.size() == 2);
  CHECK(real.interpretations[1].find("the change is real (adjusted p 0.00100)") != std::string::npos);
  j.metrics[0].significant_worse = false;
  const Report not_real = report_of(j);
  CHECK(not_real.interpretations[1].find("the change is real") == std::string::npos);
}

TEST_CASE("every outcome has a name, a key and an emoji") {
  for (Outcome o : {Outcome::pass, Outcome::regression, Outcome::not_comparable, Outcome::no_decision}) {
    CHECK(std::string(outcome_name(o)).size() > 0);
    CHECK(std::string(outcome_key(o)).size() > 0);
  }
  CHECK(std::string(outcome_emoji(Outcome::no_decision)) == "⚠️");
  CHECK(exit_code(Outcome::no_decision, false) == 0);
  CHECK(exit_code(Outcome::no_decision, true) == 4);
}

TEST_CASE("values below the timer resolution print as < 1 µs, others as before") {
  CHECK(format_value(0.0, "us", 1.0) == "< 1 µs");
  CHECK(format_value(0.5, "us", 1.0) == "< 1 µs");
  CHECK(format_value(1.0, "us", 1.0) == "1.00 µs");
  CHECK(format_value(0.5, "us", std::nullopt) == "0.50 µs");
}

TEST_CASE("a ratio that moves the other way from the medians says why (Hodges–Lehmann vs medians)") {
  MetricComparison m;
  m.metric_class = MetricClass::self_cpu;
  m.name = "aten::mul";
  m.verdict = Verdict::inconclusive;
  m.why = VerdictReason::threshold_straddled;
  m.unit = "us";
  m.base_median = 10.0;
  m.head_median = 9.0;
  m.ratio = 1.2;
  CHECK(verdict_reason_text(m).find("the change +20.0% is the Hodges–Lehmann estimate over all base × head pairs of "
                                    "samples and moves the other way from the two medians shown (10.0 µs → 9.00 µs): "
                                    "the samples overlap") != std::string::npos);
  CHECK(ratio_against_medians(m));
  m.ratio = 0.9;  // the same direction: no note
  CHECK(verdict_reason_text(m).find("Hodges–Lehmann") == std::string::npos);
}

// Issue 38 item 7: an undecided metric's reason says where its interval lies as it lies: "straddles" was
// printed for a CI of -100…-66.7%, which lies wholly beyond the ±5% threshold.
TEST_CASE("an undecided metric's interval is described as it lies against the threshold") {
  MetricComparison m;
  m.metric_class = MetricClass::device;
  m.name = "aten::mm";
  m.verdict = Verdict::inconclusive;
  m.why = VerdictReason::threshold_straddled;
  m.unit = "us";
  m.threshold = 0.05;
  m.ratio = 0.2;
  m.ratio_low = 0.0;
  m.ratio_high = 1.0 / 3.0;
  CHECK(verdict_reason_text(m).rfind("90% CI -100.0…-66.7% lies wholly beyond the threshold (±5%) and the change is "
                                     "not significant after correction",
                                     0) == 0);
  m.ratio_low = 0.9;
  m.ratio_high = 1.2;
  CHECK(verdict_reason_text(m).find("straddles the threshold (±5%)") != std::string::npos);
  m.ratio_low = 0.97;
  m.ratio_high = 1.02;
  CHECK(verdict_reason_text(m).find("lies within the threshold (±5%)") != std::string::npos);
}

TEST_CASE("the noise check's provenance line counts its halvings and comparisons and says when the budget cut them") {
  NoiseCheck check{SplitBy::runs, 10, 80, 5, 5, 20, 20, 10, 2000000, 400, 34400, 20240601};
  CHECK(noise_check_text(check) ==
        "base's A/A noise: 20 random halvings of its 10 runs (5 vs 5), seed 20240601: 400 comparisons of 34400 sample "
        "values (budget 2000000 values, at least 10 halvings)");
  check = NoiseCheck{SplitBy::traces, 3, 6, 3, 3, 12, 20, 10, 1000000, 240, 998000, 7};
  CHECK(noise_check_text(check) ==
        "base's A/A noise: 12 random halvings of its 6 traces (3 vs 3), seed 7: 240 comparisons of 998000 sample "
        "values (reduced from 20 halvings: their values exceeded the budget of 1000000 values; never fewer than 10)");
  check.value_budget.reset();
  check.splits = check.requested_splits = 20;
  CHECK(
      noise_check_text(check) ==
      "base's A/A noise: 20 random halvings of its 6 traces (3 vs 3), seed 7: 240 comparisons of 998000 sample values");
}

TEST_SUITE_END();
