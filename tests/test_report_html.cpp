// HTML report: self-contained, sections in the Markdown's order, charts, escaping.
#include "report/html.hpp"
#include "test_files.hpp"
#include "test_report_fixture.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>

using namespace neuron_gate;
using neuron_gate::testing::sample_report;

using neuron_gate::testing::occurrences;

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

TEST_SUITE_BEGIN("report::html");

TEST_CASE("the HTML report has the Markdown's sections in the same order") {
  const std::string html = render_html(sample_report());
  const char* const order[] = {"REGRESSION: <code>latency</code> +11.8%",
                               "2 regressed · 1 improved",
                               "<section id=\"summary\">",
                               "<h2>Conditions held fixed</h2>",
                               "<h2>Measurements</h2>",
                               "<h3>End-to-end</h3>",
                               "<h3>Profiled step time</h3>",
                               "<h3>Ops that changed most: device time",
                               "<h3>Ops that changed most: self CPU time",
                               "<h3>Change of the summary metrics</h3>",
                               "<h3>Distributions, base vs head</h3>",
                               "<summary>All ",
                               "<h2>Interpretations</h2>",
                               "<h2>Open hypotheses</h2>",
                               "<h2>Provenance</h2>"};
  std::size_t at = 0;
  for (const char* heading : order) {
    const std::size_t found = html.find(heading, at);
    CHECK_MESSAGE(found != std::string::npos, heading);
    at = found == std::string::npos ? at : found;
  }
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  // The emoji of the verdict line is replaced by a drawn icon (no emoji font needed).
  CHECK(html.find("<h1><svg class=\"icon\"") != std::string::npos);
  CHECK(html.find("❌") == std::string::npos);
  CHECK(html.find("</html>\n") == html.size() - 8);
}

TEST_CASE("the HTML report contains the SVG change chart and one distribution per shown metric") {
  const std::string html = render_html(sample_report());
  // 1 change chart + 4 end-to-end/step-time distributions + 4 changed ops (regressed, improved, 3 structural
  // with samples: aten::mm device, aten::add_, fused_rms_norm, aten::pow, aten::mul) = 1 + 4 + 5.
  CHECK(occurrences(html, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"") == 10);
  CHECK(occurrences(html, "</svg>") == 11);  // and the verdict icon
  CHECK(html.find("5 of 5 ops that regressed, improved or changed structure") != std::string::npos);
  CHECK(html.find("aria-label=\"Change of the summary metrics, head versus base, in percent, deciding first\"") !=
        std::string::npos);
}

TEST_CASE("the HTML report escapes <script> in an op name and runs and fetches nothing") {
  const std::string html = render_html(sample_report());
  CHECK(lower(html).find("<script") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("Fuse RMSNorm &lt;fast&gt; &amp; &quot;safe&quot;") != std::string::npos);
  CHECK(html.find("notes &lt;draft&gt;.txt") != std::string::npos);
  CHECK(html.find("default-src 'none'") != std::string::npos);
  // The only URL is the SVG namespace, which is a name, not a fetch.
  CHECK(occurrences(html, "http") == occurrences(html, "http://www.w3.org/2000/svg") + occurrences(html, "http-equiv"));
  CHECK(lower(html).find("src=") == std::string::npos);
  CHECK(lower(html).find("<link") == std::string::npos);
}

TEST_CASE("report text keeps its `code` spans as <code> in HTML") {
  const std::string html = render_html(sample_report());
  CHECK(html.find("<li><code>latency</code> (end-to-end) REGRESSED") != std::string::npos);
}

TEST_CASE("a NOT COMPARABLE HTML report marks the differing condition and draws no measurements") {
  Report r = sample_report();
  r.outcome = Outcome::not_comparable;
  r.conditions.rows[2].accepted = false;
  const std::string html = render_html(r);
  CHECK(html.find("<header class=\"verdict not-comparable\">") != std::string::npos);
  CHECK(html.find("Not computed: the conditions above differ.") != std::string::npos);
  CHECK(html.find("✗ differs") != std::string::npos);
  CHECK(html.find("class=\"chart\"") == std::string::npos);
}

TEST_SUITE_END();
