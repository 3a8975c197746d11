// Renderer golden files: one hand-built Report (tests/test_report_fixture.hpp) rendered as Markdown,
// HTML, JUnit XML and JSON, compared byte for byte with tests/golden/.
#include "report/html.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "test_report_fixture.hpp"

#include <doctest/doctest.h>

using namespace neuron_gate;
using neuron_gate::testing::check_golden;
using neuron_gate::testing::sample_report;

TEST_SUITE_BEGIN("report::golden");

TEST_CASE("golden: Markdown of the sample report is byte-identical to tests/golden/report.md") {
  check_golden("report.md", render_markdown(sample_report()));
}

TEST_CASE("golden: HTML of the sample report is byte-identical to tests/golden/report.html") {
  check_golden("report.html", render_html(sample_report()));
}

TEST_CASE("golden: JUnit XML of the sample report is byte-identical to tests/golden/report.junit.xml") {
  check_golden("report.junit.xml", render_junit(sample_report()));
}

TEST_CASE("golden: JSON of the sample report is byte-identical to tests/golden/report.json") {
  check_golden("report.json", render_json(sample_report()));
}

TEST_CASE("golden: every renderer gives the same bytes twice") {
  const Report report = sample_report();
  CHECK(render_markdown(report) == render_markdown(report));
  CHECK(render_html(report) == render_html(report));
  CHECK(render_junit(report) == render_junit(report));
  CHECK(render_json(report) == render_json(report));
}

TEST_SUITE_END();
