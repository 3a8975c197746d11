// Charts: which bars, Mermaid label sanitising and syntax, SVG bars and distributions, escaping.
#include "report/chart.hpp"
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

// The comma-separated items of the first "  KEY [...]" line of a Mermaid block.
std::vector<std::vector<std::string>> lists(const std::string& block, const std::string& key) {
  std::vector<std::vector<std::string>> all;
  std::istringstream lines(block);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("  " + key + " [", 0) != 0) {
      continue;
    }
    const std::string inside = line.substr(key.size() + 4, line.size() - key.size() - 5);
    std::vector<std::string> items;
    std::size_t start = 0;
    bool quoted = false;
    for (std::size_t i = 0; i <= inside.size(); ++i) {
      if (i == inside.size() || (inside[i] == ',' && !quoted)) {
        items.push_back(inside.substr(start, i - start));
        start = i + 1;
      } else if (inside[i] == '"') {
        quoted = !quoted;
      }
    }
    all.push_back(items);
  }
  return all;
}

}  // namespace

TEST_SUITE_BEGIN("report::chart");

TEST_CASE("change bars: end-to-end metrics first, then ops by absolute change, at most the number asked") {
  const Report r = sample_report();
  const std::vector<ChangeBar> bars = change_bars(r, 10);
  REQUIRE(bars.size() == 10);
  // End-to-end in the order of their table (by absolute change of the median).
  CHECK(bars[0].label == "peak_memory");
  CHECK(bars[1].label == "latency");
  CHECK(bars[2].label == "throughput");
  // aten::mm device moved 85 µs per step, the most of any op; step time is not drawn.
  CHECK(bars[3].label == "aten::mm (device)");
  CHECK(bars[3].worse);
  for (const ChangeBar& bar : bars) {
    CHECK(bar.metric->metric_class != MetricClass::step_time);
  }
  CHECK(change_bars(r, 3).size() == 3);
}

TEST_CASE("change bars: a gone op is ratio 0, a new op has no ratio") {
  const Report report = sample_report();  // the bars point into it
  const std::vector<ChangeBar> bars = change_bars(report, 20);
  bool saw_gone = false, saw_new = false;
  for (const ChangeBar& bar : bars) {
    if (bar.metric->name == "aten::pow") {
      saw_gone = true;
      CHECK(bar.ratio == 0.0);
      CHECK_FALSE(bar.worse);
    }
    if (bar.metric->name == "fused_rms_norm") {
      saw_new = true;
      CHECK_FALSE(bar.ratio);
      CHECK(bar.worse);
    }
  }
  CHECK(saw_gone);
  CHECK(saw_new);
}

TEST_CASE("mermaid labels drop quotes, brackets and markup and are cut with an ellipsis") {
  CHECK(mermaid_label("aten::mm") == "aten::mm");
  CHECK(mermaid_label("a \"b\" [c] {d} <e> `f` #g; h|i \\j") == "a b c d e f g hi j");
  CHECK(mermaid_label("\"[]\"") == "?");
  CHECK(mermaid_label("tab\there") == "tab␉here");  // control characters visible (escape.hpp)
  CHECK(mermaid_label("abcdefghij", 5) == "abcd…");
  CHECK(mermaid_label("µµµµµµ", 4) == "µµµ…");
}

TEST_CASE("the Mermaid block is an xychart with as many values per series as labels") {
  const std::string block = mermaid_change_chart(sample_report());
  REQUIRE(block.rfind("```mermaid\n", 0) == 0);
  CHECK(block.find("\nxychart-beta horizontal\n") != std::string::npos);
  CHECK(block.find("\"latency · +11.8% · REGRESSED\"") != std::string::npos);
  CHECK(block.find("\n```\n") != std::string::npos);
  const auto labels = lists(block, "x-axis");
  REQUIRE(labels.size() == 1);
  const auto bars = lists(block, "bar");
  const auto line = lists(block, "line");
  REQUIRE(bars.size() == 1);
  REQUIRE(line.size() == 1);
  for (const auto& series : bars) {
    CHECK(series.size() == labels[0].size());
  }
  CHECK(line[0].size() == labels[0].size());
  for (const std::string& label : labels[0]) {
    // Each label is one quoted string with no quote inside.
    const std::string trimmed = label.substr(label.find('"'));
    CHECK(trimmed.front() == '"');
    CHECK(trimmed.back() == '"');
    CHECK(occurrences(trimmed, "\"") == 2);
  }
  // Only the summary table's metrics are drawn, in its order, deciding first (issue 16 item 3): 6 of its
  // 8 rows (the new and the gone op are named under the chart instead).
  CHECK(labels[0].size() == 6);
  CHECK(labels[0][0] == "\"latency · +11.8% · REGRESSED\"");
  CHECK(block.find("Not drawn, new in head (no base to divide by): `fused_rms_norm (self CPU)`") != std::string::npos);
  CHECK(block.find("<script") == std::string::npos);
}

TEST_CASE("no Mermaid block and no SVG bars when nothing has a ratio") {
  Report r = sample_report();
  r.metrics.clear();
  CHECK(mermaid_change_chart(r).empty());
  CHECK(svg_change_chart(r).empty());
}

TEST_CASE("the SVG change chart draws one group per bar with the full name as a tooltip") {
  const Report r = sample_report();
  const std::string svg = svg_change_chart(r);
  REQUIRE(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  // The summary table's 8 metrics (issue 16 item 4), not the 10 largest changes; deciding first.
  REQUIRE(r.summary_lines.size() == 8);
  CHECK(occurrences(svg, "<g>") == 8);
  CHECK(occurrences(svg, "<rect") == 7);  // the new op has a note, not a bar
  const std::vector<ChangeBar> bars = summary_bars(r);
  REQUIRE(bars.size() == 8);
  CHECK(bars[0].metric == &r.metrics[r.summary.rows[0].metric]);
  CHECK(r.summary.rows[0].role == SummaryRole::deciding);
  CHECK(svg.find("<title>latency: REGRESSED") < svg.find("<title>fused_rms_norm"));
  CHECK(svg.find("new in head") != std::string::npos);
  CHECK(svg.find("&lt;script&gt;") != std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("+11.8%") != std::string::npos);  // latency 1.118x
}

TEST_CASE("the SVG change chart clamps a huge change and keeps its true value in the label") {
  Report r = sample_report();
  r.metrics.resize(1);
  r.metrics[0].ratio = 12.0;
  const std::string svg = svg_change_chart(r);
  CHECK(svg.find("+1,100%") != std::string::npos);
  CHECK(svg.find("+200%") != std::string::npos);               // axis end
  CHECK(svg.find("stroke=\"#ffffff\"") != std::string::npos);  // break mark
}

TEST_CASE("distribution strip plots: one dot per sample up to the cap, box and median per side") {
  const MetricComparison m =
      make_metric({MetricClass::self_cpu, "aten::mm", Verdict::regressed, spread_samples(10, 1, 30),
                   spread_samples(12, 1, 40), 1.2, 1.1, 1.3, 0.01, 1.0, "r"});
  const std::string svg = svg_distribution(m);
  CHECK(occurrences(svg, "<circle") == 70);
  CHECK(occurrences(svg, "fill-opacity=\"0.15\"") == 2);
  CHECK(svg.find("base  n=30") != std::string::npos);
  CHECK(svg.find("head  n=40") != std::string::npos);
  CHECK(svg.find(verdict_colour(Verdict::regressed)) != std::string::npos);
  const std::string capped = svg_distribution(m, 10);
  CHECK(occurrences(capped, "<circle") == 20);
  CHECK(capped.find("10 of 30 samples drawn") != std::string::npos);
}

TEST_CASE("distribution strip plots: a side that did not run, constant samples, and no samples at all") {
  MetricComparison m = make_metric({MetricClass::self_cpu,
                                    "new_op",
                                    Verdict::structural,
                                    {},
                                    {5, 5, 5},
                                    std::nullopt,
                                    std::nullopt,
                                    std::nullopt,
                                    std::nullopt,
                                    std::nullopt,
                                    "new"});
  const std::string svg = svg_distribution(m);
  CHECK(svg.find("did not run on the base side") != std::string::npos);
  CHECK(occurrences(svg, "<circle") == 3);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
  m.head_samples.clear();
  CHECK(svg_distribution(m).empty());
}

TEST_SUITE_END();
