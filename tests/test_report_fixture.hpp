#pragma once
// Hand-built Report values for the renderer tests (golden files, HTML, JUnit, chart, size limit), and
// the golden-file comparison. Nothing here reads profiles: every number is set by hand.

#include "compare/verdict_summary.hpp"
#include "report/headline.hpp"
#include "report/report.hpp"
#include "stats/descriptive.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace neuron_gate::testing {

// `n` samples around `centre`: a fixed, uneven spread of ±`spread` (no randomness, so goldens are stable).
inline std::vector<double> spread_samples(double centre, double spread, std::size_t n) {
  static const double offsets[] = {0.0, 0.6, -0.4, 1.0, -0.9, 0.3, -0.2, 0.8, -0.7, 0.1, -1.0, 0.5, -0.5, 0.9, -0.3};
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) {
    values.push_back(centre + spread * offsets[i % std::size(offsets)] + spread * 0.01 * static_cast<double>(i % 4));
  }
  return values;
}

struct MetricSpec {
  MetricClass metric_class = MetricClass::self_cpu;
  std::string name;
  Verdict verdict = Verdict::equivalent;
  std::vector<double> base, head;
  std::optional<double> ratio, low, high, p_worse_adjusted, p_better_adjusted;
  std::string reason;
  bool gating = false;
};

inline MetricComparison make_metric(const MetricSpec& spec) {
  MetricComparison m;
  m.metric_class = spec.metric_class;
  m.name = spec.name;
  m.unit = "us";
  m.base_samples = spec.base;
  m.head_samples = spec.head;
  m.base_median = median(spec.base);
  m.head_median = median(spec.head);
  m.ratio = spec.ratio;
  m.ratio_low = spec.low;
  m.ratio_high = spec.high;
  m.ratio_from_logs = spec.ratio.has_value();
  m.p_worse_adjusted = spec.p_worse_adjusted;
  m.p_better_adjusted = spec.p_better_adjusted;
  m.p_worse = spec.p_worse_adjusted;
  m.p_better = spec.p_better_adjusted;
  m.test_method = spec.base.empty() || spec.head.empty() ? "" : "exact";
  m.family = spec.metric_class == MetricClass::end_to_end  ? Family::end_to_end
             : spec.metric_class == MetricClass::step_time ? Family::step_time
                                                           : Family::per_op;
  m.gating = spec.gating;
  m.verdict = spec.verdict;
  m.reason = spec.reason;
  m.present_in_base = !spec.base.empty();
  m.present_in_head = !spec.head.empty();
  if (spec.metric_class == MetricClass::self_cpu || spec.metric_class == MetricClass::device) {
    if (m.present_in_base) {
      m.base_calls = 1;
    }
    if (m.present_in_head) {
      m.head_calls = 1;
    }
  }
  return m;
}

inline ConditionRow condition_row(std::string name, std::string base, std::string head, bool matches, bool accepted) {
  ConditionRow row;
  row.name = std::move(name);
  row.base = std::move(base);
  row.head = std::move(head);
  row.matches = matches;
  row.accepted = accepted;
  return row;
}

// Fills the report's top (verdict_summary.hpp, headline.hpp) from its metrics, decision and conditions,
// as build_report does; call it again after changing metrics or names.
inline void finish_summary(Report& r) {
  Judgement judgement{r.metrics, r.decision};
  r.summary = summarize_verdict(judgement, r.conditions);
  r.verdict_line = headline_text(judgement, r.conditions, r.summary);
  r.context_line = context_text(judgement, r.summary, r.provenance.base_spec, r.provenance.head_spec);
  r.summary_lines = summary_lines(r.metrics, r.summary, r.decision.outcome);
}

// A report with every verdict, every metric class, an accepted condition difference, a new and a gone
// op, and names that need escaping in every output (<script>, quotes, pipes, brackets, backticks, &).
inline Report sample_report() {
  Report r;
  r.verdict_line = "❌ REGRESSION · 2 regressed · 1 improved · 3 structural · 3 equivalent · 2 inconclusive · 1 "
                   "insufficient (too few samples to decide)";
  r.outcome = Outcome::regression;
  r.decision.outcome = Outcome::regression;
  r.decision.exit_code = 1;
  r.decision.gating_classes = {MetricClass::end_to_end};
  r.decision.counts = {{Verdict::regressed, 2},  {Verdict::improved, 1},     {Verdict::structural, 3},
                       {Verdict::equivalent, 3}, {Verdict::inconclusive, 2}, {Verdict::insufficient, 1}};
  r.decision.regressed = {"latency"};
  r.conditions.rows = {
      condition_row("schedule", "8 steps per trace", "8 steps per trace", true, false),
      condition_row("traces", "3", "3", true, false),
      condition_row("record_shapes", "true", "false", false, true),
  };

  MetricComparison latency =
      make_metric({MetricClass::end_to_end, "latency", Verdict::regressed, spread_samples(12.0, 0.3, 20),
                   spread_samples(13.4, 0.35, 20), 1.118, 1.09, 1.15, 2.4e-7, 1.0,
                   "ratio 1.118x ≥ 1 + 5% threshold, adjusted p 2.4e-7 ≤ alpha 0.05", true});
  latency.unit = "ms";
  MetricComparison throughput = make_metric({MetricClass::end_to_end, "throughput", Verdict::equivalent,
                                             spread_samples(330, 2, 20), spread_samples(329, 2, 20), 0.997, 0.985,
                                             1.009, 0.61, 0.78, "90% CI [0.985, 1.009] within ±5%", true});
  throughput.unit = "samples/s";
  throughput.better = Better::higher;
  MetricComparison memory = make_metric({MetricClass::end_to_end,
                                         "peak_memory",
                                         Verdict::insufficient,
                                         {512, 514},
                                         {530, 529},
                                         1.03,
                                         std::nullopt,
                                         std::nullopt,
                                         1.0,
                                         1.0,
                                         "2 vs 2 samples: the smallest attainable p 0.167 exceeds alpha / 3",
                                         true});
  memory.unit = "MB";
  memory.samples_needed = 6;
  MetricComparison step = make_metric({MetricClass::step_time, "step time", Verdict::inconclusive,
                                       spread_samples(1450, 40, 24), spread_samples(1510, 45, 24), 1.04, 0.98, 1.10,
                                       0.21, 1.0, "90% CI [0.980, 1.100] crosses the ±5% threshold"});
  MetricComparison mm_device =
      make_metric({MetricClass::device, "aten::mm", Verdict::regressed, spread_samples(820, 10, 24),
                   spread_samples(905, 12, 24), 1.104, 1.09, 1.12, 1.1e-9, 1.0, "ratio 1.104x ≥ 1 + 5% threshold"});
  MetricComparison mm_cpu =
      make_metric({MetricClass::self_cpu, "aten::mm", Verdict::equivalent, spread_samples(45, 1, 24),
                   spread_samples(45.2, 1, 24), 1.004, 0.98, 1.03, 0.7, 0.9, "90% CI [0.980, 1.030] within ±5%"});
  MetricComparison add_cpu =
      make_metric({MetricClass::self_cpu, "aten::add_", Verdict::improved, spread_samples(60, 2, 24),
                   spread_samples(41, 2, 24), 0.68, 0.65, 0.71, 1.0, 3.0e-8, "ratio 0.680x ≤ 1 - 5% threshold"});
  MetricComparison fused = make_metric({MetricClass::self_cpu,
                                        "fused_rms_norm",
                                        Verdict::structural,
                                        {},
                                        spread_samples(38, 1.5, 24),
                                        std::nullopt,
                                        std::nullopt,
                                        std::nullopt,
                                        std::nullopt,
                                        std::nullopt,
                                        "runs in head only"});
  MetricComparison pow_cpu = make_metric({MetricClass::self_cpu,
                                          "aten::pow",
                                          Verdict::structural,
                                          spread_samples(22, 1, 24),
                                          {},
                                          std::nullopt,
                                          std::nullopt,
                                          std::nullopt,
                                          std::nullopt,
                                          std::nullopt,
                                          "runs in base only"});
  MetricComparison mul_cpu =
      make_metric({MetricClass::self_cpu, "aten::mul", Verdict::structural, spread_samples(16, 0.5, 24),
                   spread_samples(31, 0.8, 24), 1.93, 1.88, 2.0, 0.11, 1.0, "median calls per step 2 → 4"});
  mul_cpu.base_calls = 2;
  mul_cpu.head_calls = 4;
  mul_cpu.calls_changed = true;
  MetricComparison script = make_metric(
      {MetricClass::self_cpu, "<script>alert(\"pwned\")</script>", Verdict::inconclusive, spread_samples(9, 1, 24),
       spread_samples(9.6, 1.2, 24), 1.06, 0.97, 1.15, 0.3, 1.0, "90% CI [0.970, 1.150] crosses the ±5% threshold"});
  MetricComparison odd = make_metric({MetricClass::self_cpu, "aten::index_put_ [a|b] \"q\" `x` & {y}",
                                      Verdict::equivalent, spread_samples(5, 0.2, 24), spread_samples(5.05, 0.2, 24),
                                      1.01, 0.97, 1.04, 0.8, 0.9, "90% CI [0.970, 1.040] within ±5%"});
  r.metrics = {latency, throughput, memory, step, mm_device, mm_cpu, add_cpu, fused, pow_cpu, mul_cpu, script, odd};

  r.interpretations = {
      "Gate: end-to-end metrics decide (end-to-end numbers are present; per-op findings explain them), Holm "
      "correction at alpha 0.05.",
      "`latency` (end-to-end) REGRESSED: 1.118x of base, 90% CI [1.090, 1.150], beyond the +5.0% threshold; "
      "adjusted p 2.4e-07. [Measurements: `latency`]",
      "Structural change, read together: 1 op no longer runs (`aten::pow`) and 1 new op runs (`fused_rms_norm`). "
      "[Measurements: STRUCTURAL rows]",
  };
  r.open_hypotheses = {
      "1 of 3 gating metrics are INSUFFICIENT: with 2 vs 2 samples no outcome can pass the corrected alpha. Test: "
      "capture at least 6 samples per side.",
      "Device time of `aten::mm` grew +10.4%: open this op's kernels in Neuron Explorer on both sides.",
  };
  r.base_facts = {3, 24, 5120, 12, 0, 0, {}, {}};
  r.head_facts = {3, 24, 5004, 9, 0, 0, {}, {}};
  r.rules.source = "built-in rules/default.json";
  r.provenance.tool_version = "0.1.0-test";
  r.provenance.base_spec = "profiles/base";
  r.provenance.head_spec = "profiles/head";
  r.provenance.rules_source = "built-in rules/default.json";
  r.provenance.rules_sha256 = "5d41402abc4b2a76b9719d911017c592aaf0e9a1b2c3d4e5f60718293a4b5c6d";
  r.provenance.files = {
      {"base", "run1/trace.pt.trace.json.gz", "kineto trace", 482133,
       "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "", ""},
      {"base", "e2e.json", "e2e", 811, "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "",
       "1 metric"},
      {"head", "run1/trace.pt.trace.json.gz", "kineto trace", 479820,
       "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9", "", ""},
      {"head", "notes <draft>.txt", "ignored", 120, "", "not a trace, table, or e2e.json", ""},
  };
  r.provenance.commits = {{"base", "fedcba9876543210fedcba9876543210fedcba98", "Merge `main` | *base*", false,
                           "main|`x`", "/src/repo <1>", true, ""},
                          {"head", "0123456789abcdef0123456789abcdef01234567", "Fuse RMSNorm <fast> & \"safe\"", true,
                           "feature/<fast>&", "/src/repo <1>", false, "0123456789ab"}};
  r.provenance.noise_check = NoiseCheck{SplitBy::runs, 8, 24, 4, 4, 12, 20, 10, 1000000, 240, 998000, 20240601};
  r.provenance.warnings = {"head: summary <1>.json: no value (NaN, Infinity or null) for `total_active_time`: "
                           "skipped, not counted as 0"};
  finish_summary(r);
  return r;
}

// Compares `actual` with tests/golden/`name` byte for byte. With NEURON_GATE_UPDATE_GOLDEN=1 it rewrites
// the golden file instead. On a mismatch it writes the actual output to golden-actual/`name` in the
// working folder (the build's tests folder under ctest) and reports the first differing line.
inline void check_golden(const std::string& name, const std::string& actual) {
  const std::filesystem::path golden = std::filesystem::path(NEURON_GATE_SOURCE_DIR) / "tests" / "golden" / name;
  const char* update = std::getenv("NEURON_GATE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
    MESSAGE("rewrote " << golden.string());
    return;
  }
  std::ifstream in(golden, std::ios::binary);
  REQUIRE_MESSAGE(in.good(),
                  "missing golden file " << golden.string() << " (run with NEURON_GATE_UPDATE_GOLDEN=1 to create it)");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string expected = buffer.str();
  if (expected == actual) {
    return;
  }
  const std::filesystem::path saved = std::filesystem::current_path() / "golden-actual" / name;
  std::filesystem::create_directories(saved.parent_path());
  std::ofstream(saved, std::ios::binary) << actual;
  std::istringstream expected_lines(expected), actual_lines(actual);
  std::string e, a;
  int line = 0;
  while (true) {
    ++line;
    const bool more_e = static_cast<bool>(std::getline(expected_lines, e));
    const bool more_a = static_cast<bool>(std::getline(actual_lines, a));
    e = more_e ? e : "(end of file)";
    a = more_a ? a : "(end of file)";
    if (!more_e && !more_a) {
      break;  // differ only in a final newline
    }
    if (e != a || more_e != more_a) {
      break;
    }
  }
  FAIL_CHECK(name << " differs from " << golden.string() << " at line " << line << "\n  expected: " << e
                  << "\n  actual:   " << a << "\n  actual output saved to " << saved.string()
                  << "\n  (NEURON_GATE_UPDATE_GOLDEN=1 rewrites the golden files)");
}

}  // namespace neuron_gate::testing
