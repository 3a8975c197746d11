// Markdown report: GitHub's comment limit with many changed ops, and the Mermaid chart's place.
#include "report/escape.hpp"
#include "report/html.hpp"
#include "report/markdown.hpp"
#include "report/terminal.hpp"
#include "test_files.hpp"
#include "test_report_fixture.hpp"

#include <doctest/doctest.h>

#include <regex>

using namespace neuron_gate;
using neuron_gate::testing::make_metric;
using neuron_gate::testing::sample_report;
using neuron_gate::testing::spread_samples;

using neuron_gate::testing::occurrences;

namespace {

// A report of `ops` changed ops (self CPU), alternating REGRESSED and STRUCTURAL, with long names.
Report many_ops_report(std::size_t ops) {
  Report r = sample_report();
  r.metrics.resize(4);  // keep the end-to-end metrics and step time
  for (std::size_t i = 0; i < ops; ++i) {
    const double base = 10.0 + static_cast<double>(i % 97);
    const double head = base * (1.10 + 0.001 * static_cast<double>(i % 50));
    MetricComparison m = make_metric(
        {MetricClass::self_cpu, "aten::some_fairly_long_operator_name_" + std::to_string(i) + "_backward",
         i % 2 == 0 ? Verdict::regressed : Verdict::structural, spread_samples(base, 0.5, 30),
         spread_samples(head, 0.5, 30), head / base, head / base - 0.02, head / base + 0.02, 1e-4, 1.0, "changed"});
    r.metrics.push_back(m);
  }
  neuron_gate::testing::finish_summary(r);
  return r;
}

}  // namespace

TEST_SUITE_BEGIN("report::markdown");

TEST_CASE("a report of 2,000 changed ops stays under 65,536 characters and says how many rows were cut") {
  const std::string text = render_markdown(many_ops_report(2000));
  CHECK(text.size() < k_comment_limit);
  const std::size_t full_open =
      text.find("<details><summary>All 2000 ops: self CPU time per step, most changed first</summary>");
  REQUIRE(full_open != std::string::npos);
  const std::size_t full_close = text.find("</details>", full_open);
  const std::string full = text.substr(full_open, full_close - full_open);
  const std::size_t rows = occurrences(full, "\n| `");
  std::smatch match;
  REQUIRE(
      std::regex_search(full, match, std::regex("\n([0-9]+) least-changed rows cut to fit GitHub's comment limit")));
  CHECK(std::stoul(match[1].str()) == 2000 - rows);
  CHECK(rows > 100);
  // What is cut are full-table rows: the verdict, chart, interpretations and provenance all remain.
  CHECK(text.rfind("## ❌ REGRESSION", 0) == 0);
  CHECK(text.find("```mermaid") != std::string::npos);
  CHECK(text.find("### Provenance") != std::string::npos);
  CHECK(text.find(k_sticky_marker) != std::string::npos);
}

TEST_CASE("a summary change that points against its medians carries the Hodges–Lehmann note in every renderer") {
  Report r = sample_report();
  neuron_gate::testing::finish_summary(r);
  REQUIRE(r.summary.rows.size() > 1);
  // A row that explains: its medians go down while its Hodges–Lehmann change is +9.2% (A → Areg's step time).
  MetricComparison& m = r.metrics[r.summary.rows[1].metric];
  m.base_median = 71.0;
  m.head_median = 69.5;
  m.ratio = 1.092;
  m.unit = "us";
  m.present_in_base = m.present_in_head = true;
  neuron_gate::testing::finish_summary(r);
  const SummaryLine* line = nullptr;
  for (const SummaryLine& l : r.summary_lines) {
    line = &r.metrics[l.metric] == &m ? &l : line;
  }
  REQUIRE(line != nullptr);
  CHECK(line->change == "+9.2%†");
  CHECK(prose_plain(line->medians_note)
            .find("the change +9.2% is the Hodges–Lehmann estimate over all base × head pairs of "
                  "samples and moves the other way from the two medians shown (71.0 µs → 69.5 µs)") !=
        std::string::npos);
  const std::string markdown = render_markdown(r);
  CHECK(markdown.find("| +9.2%† | 71.0 µs | 69.5 µs |") != std::string::npos);
  CHECK(markdown.find("\n† ") != std::string::npos);
  CHECK(markdown.find("\n† ") < markdown.find("### Conditions held fixed"));  // under the summary table
  const std::string html = render_html(r);
  CHECK(html.find("<p class=\"note\">† ") != std::string::npos);
  const std::string terminal = render_terminal(r, false, {});
  CHECK(terminal.find("+9.2%†") != std::string::npos);
  CHECK(terminal.find("\n  † ") != std::string::npos);
}

TEST_CASE("golden: the 2,000-op report is byte-identical to tests/golden/report-2000-ops.md and under 65,536") {
  const std::string text = render_markdown(many_ops_report(2000));
  CHECK(text.size() < k_comment_limit);
  neuron_gate::testing::check_golden("report-2000-ops.md", text);
}

TEST_CASE("the Mermaid chart sits in Measurements after the end-to-end tables and before the full tables") {
  const std::string text = render_markdown(sample_report());
  const std::size_t measurements = text.find("### Measurements");
  const std::size_t top_table = text.find("#### End-to-end");
  const std::size_t chart = text.find("#### Change of the metrics above (signed %, 0 = no change)\n\n```mermaid\n");
  const std::size_t full = text.find("<details><summary>All ");
  const std::size_t interpretations = text.find("### Interpretations");
  REQUIRE(chart != std::string::npos);
  CHECK(measurements < top_table);
  CHECK(top_table < chart);
  CHECK(chart < full);
  CHECK(full < interpretations);
  CHECK(occurrences(text, "```mermaid") == 1);
}

TEST_CASE("a NOT COMPARABLE report has no chart") {
  Report r = sample_report();
  r.outcome = Outcome::not_comparable;
  CHECK(render_markdown(r).find("```mermaid") == std::string::npos);
}

TEST_SUITE_END();
