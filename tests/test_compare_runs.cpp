// Samples of one process (issue 14 item 4, issue 22 item 2): e2e.json `runs`, the between-run allowance,
// end-to-end samples per run from 5 runs a side, and self CPU of one process not established across runs.
#include "compare/judgement.hpp"
#include "compare/metric_comparison.hpp"
#include "formats/e2e_json.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

namespace ng = neuron_gate;

namespace {

// A latency (ms) with `per_run` samples in each of `runs` runs a side; head is `ratio` times base, with
// a tiny spread so the test is decisive.
std::pair<ng::SideSamples, ng::SideSamples> latency_sides(std::size_t runs, std::size_t per_run, double ratio) {
  ng::SideSamples base, head;
  base.label = "base";
  head.label = "head";
  ng::EndToEndMetric b;
  b.name = "latency";
  b.unit = "ms";
  ng::EndToEndMetric h = b;
  b.runs = h.runs = runs;
  for (std::size_t r = 0; r < runs; ++r) {
    for (std::size_t i = 0; i < per_run; ++i) {
      const double jitter = 0.001 * static_cast<double>((i * 7 + r * 3) % 11);
      b.samples.push_back(10.0 + jitter);
      h.samples.push_back((10.0 + jitter) * ratio);
    }
    b.run_sizes.push_back(per_run);
    h.run_sizes.push_back(per_run);
  }
  base.end_to_end.push_back(b);
  head.end_to_end.push_back(h);
  return {base, head};
}

ng::Judgement judge_sides(const std::pair<ng::SideSamples, ng::SideSamples>& sides, bool strict = false) {
  ng::DecideOptions options;
  options.strict = strict;
  return ng::judge(ng::compare_metrics(sides.first, sides.second, ng::default_rules()), ng::ConditionsDiff{},
                   ng::default_rules(), options);
}

}  // namespace

TEST_SUITE_BEGIN("compare::runs");

TEST_CASE("e2e.json runs: one sample list per process, flattened in order") {
  const auto metrics = ng::parse_e2e_json(
      R"({"schema": "neuron-gate.e2e/1", "metrics": [{"name": "latency", "unit": "ms", "runs": [[1, 2], [3], [4, 5, 6]]}]})",
      "e2e.json");
  REQUIRE(metrics.size() == 1);
  CHECK(metrics[0].samples == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(metrics[0].runs == 3);
  CHECK(metrics[0].run_sizes == std::vector<std::size_t>{2, 1, 3});
  const auto plain = ng::parse_e2e_json(
      R"({"schema": "neuron-gate.e2e/1", "metrics": [{"name": "latency", "unit": "ms", "samples": [1, 2]}]})",
      "e2e.json");
  CHECK(plain[0].runs == 1);
  CHECK_THROWS_WITH_AS(ng::parse_e2e_json(R"({"schema": "neuron-gate.e2e/1", "metrics": [{"name": "l", "unit": "ms",
                           "samples": [1], "runs": [[1]]}]})",
                                          "x/e2e.json"),
                       doctest::Contains("x/e2e.json"), ng::InputError);
  CHECK_THROWS_WITH_AS(ng::parse_e2e_json(R"({"schema": "neuron-gate.e2e/1", "metrics": [{"name": "l", "unit": "ms",
                           "runs": [[1], []]}]})",
                                          "x/e2e.json"),
                       doctest::Contains("non-empty"), ng::InputError);
}

TEST_CASE("one process a side: a significant change within (1 + t)(1 + allowance) passes, not established - beyond it "
          "NO DECISION") {
  // +8%: significant, beyond the 5% threshold, within the 10% allowance: not established across runs, and
  // within (1.05)(1.10) = +15.5%, so a pass (docs/decision-rule.md, 1-2 processes a side).
  const ng::Judgement j = judge_sides(latency_sides(1, 200, 1.08));
  const ng::MetricComparison& m = j.metrics[0];
  CHECK(m.significant_worse);
  CHECK(m.run_allowance == doctest::Approx(0.10));
  CHECK(m.verdict == ng::Verdict::inconclusive);
  CHECK(m.why == ng::VerdictReason::within_run_allowance);
  CHECK(j.decision.outcome == ng::Outcome::pass);
  CHECK(judge_sides(latency_sides(1, 200, 1.08), true).decision.exit_code == 0);
  // +1%: inside ±5%, but one process cannot show equivalence (the CI widened by the allowance is not within
  // ±5%): undecided, and a pass.
  const ng::Judgement same = judge_sides(latency_sides(1, 200, 1.01));
  CHECK(same.metrics[0].verdict == ng::Verdict::inconclusive);
  CHECK(same.decision.outcome == ng::Outcome::pass);
  // 5 runs a side: per-run samples, no allowance: +1% is EQUIVALENT.
  CHECK(judge_sides(latency_sides(5, 40, 1.01)).metrics[0].verdict == ng::Verdict::equivalent);
  // +16% from one process a side (within the allowance would need <= +10%; it is beyond +15.5%): whatever
  // the test says, NO DECISION asking for runs, exit 4 under --strict.
  auto sides = latency_sides(1, 200, 1.16);
  for (ng::SideSamples* side : {&sides.first, &sides.second}) {  // 2 v 2 samples: undecided
    side->end_to_end[0].samples.resize(2);
    side->end_to_end[0].run_sizes = {2};
  }
  const ng::Judgement beyond = judge_sides(sides);
  CHECK(undecided(beyond.metrics[0].verdict));
  CHECK(beyond.decision.outcome == ng::Outcome::no_decision);
  REQUIRE(beyond.decision.no_decision);
  CHECK(beyond.decision.no_decision->cause == ng::NoDecisionCause::one_process);
  CHECK(beyond.decision.no_decision->samples_needed == ng::k_min_runs_for_e2e_run_unit);
  CHECK(judge_sides(sides, true).decision.exit_code == 4);
}

TEST_CASE("one process a side: +42% (the bundled A->Areg) still fails") {
  const ng::Judgement j = judge_sides(latency_sides(1, 200, 1.42));
  CHECK(j.metrics[0].verdict == ng::Verdict::regressed);
  CHECK(j.decision.exit_code == 1);
}

TEST_CASE("5 runs a side: samples are the runs' medians, no allowance, +8% regresses") {
  const ng::Judgement j = judge_sides(latency_sides(5, 40, 1.08));
  const ng::MetricComparison& m = j.metrics[0];
  CHECK(m.base_samples.size() == 5);
  CHECK(m.base_processes == 5);
  CHECK(m.run_allowance == 0.0);
  CHECK(m.verdict == ng::Verdict::regressed);
  // 4 runs a side: pooled, and the allowance applies.
  const ng::Judgement pooled = judge_sides(latency_sides(4, 40, 1.08));
  CHECK(pooled.metrics[0].base_samples.size() == 160);
  CHECK(pooled.metrics[0].why == ng::VerdictReason::within_run_allowance);
}

TEST_CASE("pooled from 3 runs a side: a change the runs' medians do not establish is not REGRESSED") {
  // Runs at 8, 10 and 12 ms on base and 9.6, 12, 14.4 on head: the 120 pooled samples a side put head
  // +20% and significant, beyond the 10% allowance and beyond (1 + t)(1 + allowance), but the runs spread
  // so widely that their medians do not establish it (between-run 90% interval from Welch on the runs'
  // medians reaches below 1).
  auto sides = latency_sides(3, 40, 1.0);
  const std::vector<double> base_levels{8.0, 10.0, 12.0}, head_levels{9.6, 12.0, 14.4};
  for (std::size_t i = 0; i < 120; ++i) {
    sides.first.end_to_end[0].samples[i] *= base_levels[i / 40] / 10.0;
    sides.second.end_to_end[0].samples[i] *= head_levels[i / 40] / 10.0;
  }
  const ng::Judgement j = judge_sides(sides);
  const ng::MetricComparison& m = j.metrics[0];
  CHECK(m.significant_worse);
  REQUIRE(m.ratio);
  CHECK(*m.ratio > 1.155);
  REQUIRE(m.runs_ratio_low);
  CHECK(*m.runs_ratio_low < 1.0);
  CHECK(m.verdict == ng::Verdict::inconclusive);
  CHECK(m.why == ng::VerdictReason::runs_disagree);
  // Undecided beyond (1 + t)(1 + allowance): NO DECISION, never a pass.
  CHECK(j.decision.outcome == ng::Outcome::no_decision);
  // The same +14% in every run: the runs agree, REGRESSED.
  const ng::Judgement agree = judge_sides(latency_sides(3, 40, 1.14));
  REQUIRE(agree.metrics[0].runs_ratio_low);
  CHECK(*agree.metrics[0].runs_ratio_low > 1.0);
  CHECK(agree.metrics[0].verdict == ng::Verdict::regressed);
  // One run a side: no between-run interval (the allowance stands for it).
  CHECK(!judge_sides(latency_sides(1, 200, 1.14)).metrics[0].runs_ratio_low);
}

TEST_CASE("self CPU of one process a side is not established across runs — device time still decides") {
  ng::MetricMeasurement cpu;
  cpu.metric_class = ng::MetricClass::self_cpu;
  cpu.name = "aten::mul_";
  cpu.unit = "us";
  for (int i = 0; i < 12; ++i) {
    cpu.base_samples.push_back(1000.0 + static_cast<double>(i));
    cpu.head_samples.push_back(1300.0 + static_cast<double>(i));
  }
  cpu.base_median = 1006;
  cpu.head_median = 1306;
  cpu.ratio = 1.3;
  cpu.ratio_low = 1.29;
  cpu.ratio_high = 1.31;
  cpu.shift = 300;
  cpu.shift_low = 299;
  cpu.shift_high = 301;
  cpu.p_worse = 1e-6;
  cpu.p_better = 1.0;
  cpu.p_two_sided = 2e-6;
  cpu.base_processes = cpu.head_processes = 1;
  ng::MetricMeasurement device = cpu;
  device.metric_class = ng::MetricClass::device;
  const ng::Judgement j = ng::judge({cpu, device}, ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{});
  CHECK(j.metrics[0].verdict == ng::Verdict::inconclusive);
  CHECK(j.metrics[0].why == ng::VerdictReason::not_across_runs);
  CHECK(j.metrics[1].verdict == ng::Verdict::regressed);
  CHECK(j.decision.outcome == ng::Outcome::regression);
  // With 3 runs a side the self CPU change is decided; with 2 it is not (k_processes_to_establish).
  cpu.base_processes = cpu.head_processes = 3;
  const ng::Judgement runs = ng::judge({cpu}, ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{});
  CHECK(runs.metrics[0].verdict == ng::Verdict::regressed);
  cpu.base_processes = cpu.head_processes = 2;
  CHECK(ng::judge({cpu}, ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{}).metrics[0].why ==
        ng::VerdictReason::not_across_runs);
  // Alone and of one process, +30% (beyond (1.05)(1.10)) is NO DECISION, not a pass.
  cpu.base_processes = 1;
  const ng::Judgement alone = ng::judge({cpu}, ng::ConditionsDiff{}, ng::default_rules(), ng::DecideOptions{});
  CHECK(alone.decision.outcome == ng::Outcome::no_decision);
}

TEST_CASE("a ratio's confidence bounds are never negative, also when a zero sample forces the shift path") {
  // A zero sample: no ratio on logs, so the ratio is (base median + HL shift) / base median, and the lower
  // shift bound (-5 ms against a 3 ms median) would make the lower ratio bound negative (issue 13 item 4).
  auto sides = latency_sides(1, 6, 1.0);
  sides.first.end_to_end[0].samples = {1, 1, 1, 5, 5, 5};
  sides.second.end_to_end[0].samples = {0, 0, 0, 0, 0, 0.5};
  const ng::Judgement j = judge_sides(sides);
  const ng::MetricComparison& m = j.metrics.at(0);
  REQUIRE(m.shift_low.has_value());
  CHECK(*m.shift_low < -3.0);
  CHECK_FALSE(m.ratio_from_logs);
  REQUIRE(m.ratio_low.has_value());
  CHECK(*m.ratio_low == 0.0);
  CHECK(*m.ratio_high >= *m.ratio_low);
}

// Two sides of 8 runs each whose run medians drift between runs (base 8-15 ms), head run i `factor[i]`
// times base run i, one sample per run; both manifests name `session` (empty: none).
std::pair<ng::SideSamples, ng::SideSamples> paired_sides(const std::string& base_session,
                                                         const std::string& head_session, std::size_t pairs = 8) {
  const std::vector<double> base_runs{10, 13, 9, 14, 8, 12, 11, 15};
  const std::vector<double> factor{1.19, 1.69, 1.25, 1.31, 1.45, 1.22, 1.38, 1.27};
  auto sides = latency_sides(pairs, 1, 1.0);
  for (std::size_t i = 0; i < pairs; ++i) {
    sides.first.end_to_end[0].samples[i] = base_runs[i];
    sides.second.end_to_end[0].samples[i] = base_runs[i] * factor[i];
  }
  for (auto [side, session] : {std::pair{&sides.first, base_session}, std::pair{&sides.second, head_session}}) {
    side->manifest = ng::RunManifest{};
    side->manifest->pairing_session = session;
  }
  return sides;
}

TEST_CASE("paired runs of one capture session: the Wilcoxon signed-rank test of the per-run ratios decides") {
  // Every pair slower (x1.19-x1.69) while the runs drift 8-15 ms: unpaired, base's and head's run medians
  // overlap; paired, all 8 log ratios are positive: exact one-sided p 1/2^8 = 0.00390625 (SciPy:
  // wilcoxon(d, alternative="greater").pvalue), REGRESSED.
  const ng::Judgement paired = judge_sides(paired_sides("s-1", "s-1"));
  const ng::MetricComparison& m = paired.metrics[0];
  CHECK(m.paired);
  CHECK(std::string(m.test_method) == "Wilcoxon signed-rank, paired runs (exact)");
  CHECK(*m.p_worse == doctest::Approx(0.00390625).epsilon(1e-12));
  CHECK(*m.ratio > 1.25);
  CHECK(*m.ratio_low > 1.0);
  CHECK(m.verdict == ng::Verdict::regressed);
  CHECK(paired.decision.exit_code == 1);
  // Different sessions (or none on one side): unpaired, and the reason says so.
  const ng::Judgement unpaired = judge_sides(paired_sides("s-1", "s-2"));
  CHECK_FALSE(unpaired.metrics[0].paired);
  CHECK(std::string(unpaired.metrics[0].pairing) == "unpaired: the sides were captured in different sessions");
  CHECK(*unpaired.metrics[0].p_worse > 0.00390625);
  CHECK(std::string(judge_sides(paired_sides("s-1", "")).metrics[0].pairing) ==
        "unpaired: only one side's manifest names a capture session");
  // No session on either side: nothing is said about pairing.
  CHECK(std::string(judge_sides(paired_sides("", "")).metrics[0].pairing).empty());
}

TEST_CASE("paired runs need the manifests' capture order to put each base run next to its head run") {
  // Issue 37 item 2: the helper writes pairing.order into both manifests; the pairs are tested only where
  // base/run-i and head/run-i were captured one right after the other, in the same order on both sides.
  const auto with_order = [](std::vector<std::string> base_order, std::vector<std::string> head_order) {
    auto sides = paired_sides("s-1", "s-1");
    sides.first.manifest->pairing_order = std::move(base_order);
    sides.second.manifest->pairing_order = std::move(head_order);
    return judge_sides(sides).metrics[0];
  };
  std::vector<std::string> alternating, base_first;
  for (int i = 1; i <= 8; ++i) {
    const std::string run = "run-0" + std::to_string(i);
    const bool head_leads = i % 2 == 0;
    alternating.push_back((head_leads ? "head/" : "base/") + run);
    alternating.push_back((head_leads ? "base/" : "head/") + run);
    base_first.push_back("base/" + run);
  }
  for (int i = 1; i <= 8; ++i) {
    base_first.push_back("head/run-0" + std::to_string(i));
  }
  CHECK(with_order(alternating, alternating).paired);
  const ng::MetricComparison sequential = with_order(base_first, base_first);
  CHECK_FALSE(sequential.paired);
  CHECK(std::string(sequential.pairing).rfind("unpaired: the manifests' capture order (pairing.order)", 0) == 0);
  std::vector<std::string> other = alternating;
  std::swap(other[0], other[1]);
  CHECK_FALSE(with_order(alternating, other).paired);  // the sides' manifests disagree
}

TEST_CASE("paired runs: 4 pairs cannot reach p 0.05 (2^-4 = 0.0625), so the verdict asks for 5 pairs") {
  // Exact one-sided signed-rank p of n positive differences: 2^-n (SciPy: wilcoxon([1]*4,
  // alternative="greater").pvalue 0.0625, [1]*5: 0.03125).
  const ng::Judgement four = judge_sides(paired_sides("s-1", "s-1", 4));
  const ng::MetricComparison& m = four.metrics[0];
  REQUIRE(m.paired);
  CHECK(*m.p_worse == doctest::Approx(0.0625).epsilon(1e-12));
  CHECK(m.verdict == ng::Verdict::insufficient);
  CHECK(m.samples_needed == std::optional<std::size_t>(5));  // the unpaired count for 0.05 would be 3
  REQUIRE(four.decision.no_decision.has_value());
  CHECK(four.decision.no_decision->samples_needed == 5);
  const ng::Judgement five = judge_sides(paired_sides("s-1", "s-1", 5));
  CHECK(*five.metrics[0].p_worse == doctest::Approx(0.03125).epsilon(1e-12));
  CHECK(five.metrics[0].verdict == ng::Verdict::regressed);
  CHECK(five.decision.exit_code == 1);
}

TEST_SUITE_END();
