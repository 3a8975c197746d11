// GitHub annotations (report/annotations): which findings become ::error / ::warning, the cap per kind,
// and hostile names (LF, CR, '::', '%', ',' and ':' in the title property) that can never end a command
// or start another.
#include "report/annotations.hpp"
#include "report/escape.hpp"
#include "test_report_fixture.hpp"

#include <doctest/doctest.h>

#include <regex>

using namespace neuron_gate;
using neuron_gate::testing::condition_row;
using neuron_gate::testing::make_metric;
using neuron_gate::testing::sample_report;
using neuron_gate::testing::spread_samples;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  CHECK(start == text.size());  // every line ends in "\n", nothing after the last
  return lines;
}

// A workflow command as the runner parses it: `::kind title=VALUE::MESSAGE`, where VALUE holds no ':'
// or ',' (they would end the property list) and nothing holds CR or LF.
bool is_command(const std::string& line) {
  static const std::regex command("^::(error|warning|notice) title=[^:,\r\n]*::[^\r\n]*$");
  return std::regex_match(line, command);
}

std::size_t count_kind(const std::vector<std::string>& lines, const std::string& kind) {
  std::size_t count = 0;
  for (const std::string& line : lines) {
    count += line.rfind("::" + kind + " ", 0) == 0 ? 1U : 0U;
  }
  return count;
}

MetricComparison regressed(const std::string& name, bool gating) {
  MetricComparison m = make_metric({MetricClass::device, name, Verdict::regressed, spread_samples(100, 2, 12),
                                    spread_samples(150, 2, 12), 1.5, 1.45, 1.55, 1e-6, 1.0, "worse by 50.0%", gating});
  m.threshold = 0.05;
  return m;
}

Report empty_report() {
  Report r;
  r.verdict_line = "✅ PASS";
  return r;
}

}  // namespace

TEST_CASE("annotations: an error per gating regression, a warning per non-gating one, none for structure") {
  const std::vector<std::string> lines = lines_of(render_annotations(sample_report()));
  REQUIRE(lines.size() == 2);
  for (const std::string& line : lines) {
    CHECK(is_command(line));
  }
  // latency gates (REGRESSED, no waiver); aten::mm device time regressed but does not gate.
  // '%' is the runner's escape character: %25 in the message.
  CHECK(lines[0] == "::error title=neuron-gate%3A latency regressed::latency (end-to-end): +11.8%25 (90%25 CI +9.0…"
                    "+15.0%25, threshold 5%25), median 12.00 ms -> 13.41 ms (n 20 / 20); ratio 1.118x ≥ 1 + 5%25 "
                    "threshold, adjusted p 2.4e-7 ≤ alpha 0.05");
  CHECK(lines[1].rfind(
            "::warning title=neuron-gate%3A aten%3A%3Amm regressed (not gating)::aten::mm (device time): +10.4%", 0) ==
        0);
  // STRUCTURAL (fused_rms_norm, aten::pow, aten::mul), INCONCLUSIVE and INSUFFICIENT are left to the report.
  const std::string text = render_annotations(sample_report());
  for (const char* name : {"fused_rms_norm", "aten::pow", "aten::mul", "peak_memory", "script"}) {
    CHECK_MESSAGE(text.find(name) == std::string::npos, name);
  }
}

TEST_CASE("annotations: a pass with nothing to say writes nothing") {
  CHECK(render_annotations(empty_report()).empty());
}

TEST_CASE("annotations: hostile metric names stay inside one escaped command") {
  Report r = empty_report();
  r.outcome = Outcome::regression;
  r.decision.exit_code = 1;
  r.metrics = {regressed("evil\n::stop-commands::tok\r%0A, x:y", true), regressed("a%b,c:d\x1b[31m", false)};
  const std::string text = render_annotations(r);
  const std::vector<std::string> lines = lines_of(text);
  REQUIRE(lines.size() == 2);
  for (const std::string& line : lines) {
    CHECK_MESSAGE(is_command(line), line);
  }
  CHECK(text.find('\r') == std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  // LF and CR become visible pictures (sanitize_text); '%' is escaped first so "%0A" in a name stays text;
  // in the title ':' and ',' are escaped too, in the message they are harmless and kept.
  CHECK(lines[0].rfind("::error title=neuron-gate%3A evil␊%3A%3Astop-commands%3A%3Atok␍%250A%2C x%3Ay regressed::"
                       "evil␊::stop-commands::tok␍%250A, x:y (device time): +50.0%",
                       0) == 0);
  CHECK(lines[1].rfind("::warning title=neuron-gate%3A a%25b%2Cc%3Ad␛[31m regressed (not gating)::a%25b,c:d␛[31m", 0) ==
        0);
}

TEST_CASE("annotations: a differing condition is an error naming it — an accepted one is not") {
  Report r = empty_report();
  r.outcome = Outcome::not_comparable;
  r.decision.exit_code = 3;
  r.conditions.rows = {condition_row("schedule", "8 steps", "6 steps", false, false),
                       condition_row("manifest.model\n::error::x", "v1,2", "v2:3%", false, false),
                       condition_row("record_shapes", "true", "false", false, true)};
  const std::vector<std::string> lines = lines_of(render_annotations(r));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "::error title=neuron-gate%3A not comparable::condition schedule differs: base 8 steps; head 6 "
                    "steps; rerun both sides with the same settings or accept it with --allow-mismatch schedule");
  CHECK(is_command(lines[1]));
  CHECK(lines[1].find("condition manifest.model␊::error::x differs: base v1,2; head v2:3%25") != std::string::npos);
}

TEST_CASE("annotations: waived regressions warn — --strict makes NO DECISION, not each undecided metric, an error") {
  Report r = empty_report();
  MetricComparison waived = regressed("aten::mm", true);
  waived.waiver = "known, tracked in #12";
  MetricComparison open = make_metric({MetricClass::end_to_end,
                                       "latency",
                                       Verdict::inconclusive,
                                       {1, 2, 3},
                                       {2, 3, 4},
                                       1.2,
                                       0.9,
                                       1.6,
                                       0.2,
                                       1.0,
                                       "90% CI crosses the threshold",
                                       true});
  r.metrics = {waived, open};
  r.decision.exit_code = 0;
  std::vector<std::string> lines = lines_of(render_annotations(r));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("::warning title=neuron-gate%3A aten%3A%3Amm regressed (waived)::", 0) == 0);
  CHECK(lines[0].find("; waived: known, tracked in #12") != std::string::npos);

  r.outcome = Outcome::no_decision;
  r.verdict_line = "⚠️ NO DECISION · `latency` (end-to-end) +20.0%";
  r.decision.exit_code = 4;
  lines = lines_of(render_annotations(r));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "::error title=neuron-gate%3A no decision (--strict)::⚠️ NO DECISION · `latency` (end-to-end) +20.0%25");
  CHECK(count_kind(lines, "warning") == 1);
}

TEST_CASE("annotations: NO DECISION is a warning with the headline, an error under --strict") {
  Report r = empty_report();
  r.outcome = Outcome::no_decision;
  r.verdict_line = "⚠️ NO DECISION · " + prose_code("lat\nency") + " (end-to-end) +7.0%: needs 6 per side";
  r.decision.exit_code = 0;
  std::vector<std::string> lines = lines_of(render_annotations(r));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] ==
        "::warning title=neuron-gate%3A no decision::⚠️ NO DECISION · `lat␊ency` (end-to-end) +7.0%25: "
        "needs 6 per side");
  r.decision.exit_code = 4;
  lines = lines_of(render_annotations(r));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("::error title=neuron-gate%3A no decision (--strict)::⚠️ NO DECISION", 0) == 0);
}

TEST_CASE("annotations: at most 10 of each kind, then one notice with what was left out") {
  Report r = empty_report();
  r.outcome = Outcome::regression;
  r.decision.exit_code = 1;
  for (int i = 0; i < 25; ++i) {
    r.metrics.push_back(regressed("op" + std::to_string(i), true));
  }
  for (int i = 0; i < 12; ++i) {
    r.metrics.push_back(regressed("minor" + std::to_string(i), false));
  }
  const std::vector<std::string> lines = lines_of(render_annotations(r));
  REQUIRE(lines.size() == 21);
  CHECK(count_kind(lines, "error") == 10);
  CHECK(count_kind(lines, "warning") == 10);
  CHECK(lines[0].find("title=neuron-gate%3A op0 regressed") != std::string::npos);
  CHECK(lines[20] == "::notice title=neuron-gate::15 more errors and 2 more warnings are not annotated; the full list "
                     "is in the report");
  CHECK(lines_of(render_annotations(r, 30)).size() == 37);
}

TEST_CASE("the error annotation of a failed run is one line whatever the message") {
  const std::string text = error_annotation("head/evil\n::stop-commands::x\r.json:byte 4: not valid JSON: 100%");
  const std::vector<std::string> lines = lines_of(text);
  REQUIRE(lines.size() == 1);
  CHECK(is_command(lines[0]));
  CHECK(lines[0] == "::error title=neuron-gate%3A exit code 2 (error)::head/evil␊::stop-commands::x␍.json:byte 4: not "
                    "valid JSON: 100%25");
}
