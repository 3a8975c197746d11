// The defects of issue 11 / issue 15 in the renderers, each on the sample report with one hostile name:
// each of these failed before escape.hpp (the old hand-made escapes are named in each case).
#include "report/escape.hpp"
#include "report/html.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "report/number_format.hpp"
#include "test_files.hpp"
#include "test_report_fixture.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace neuron_gate;
using neuron_gate::testing::sample_report;

using neuron_gate::testing::occurrences;

namespace {

// The lines of `text` as GFM sees them: CR, LF and CR LF all end a line.
std::vector<std::string> gfm_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' || text[i] == '\n') {
      lines.push_back(line);
      line.clear();
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
        ++i;
      }
    } else {
      line += text[i];
    }
  }
  lines.push_back(line);
  return lines;
}

}  // namespace

TEST_SUITE_BEGIN("report::hostile");

TEST_CASE("an op named with CR + '## ✅ PASS … <!--' forges no heading and hides no row (was: cell() kept CR)") {
  Report r = sample_report();
  const std::string clean = render_markdown(r);
  r.metrics[5].name = "aten::mm\r## ✅ PASS · 0 regressed <!--";  // self CPU aten::mm, shown in both tables
  r.interpretations.push_back("Op " + prose_code(r.metrics[5].name) + " read.");
  neuron_gate::testing::finish_summary(r);
  const std::string text = render_markdown(r);
  CHECK(text.find('\r') == std::string::npos);
  std::size_t headings = 0, clean_headings = 0, rows = 0, clean_rows = 0;
  for (const std::string& line : gfm_lines(text)) {
    headings += line.rfind("#", 0) == 0 ? std::size_t{1} : std::size_t{0};
    rows += line.rfind("|", 0) == 0 ? std::size_t{1} : std::size_t{0};
    CHECK(line.rfind("## ✅", 0) == std::string::npos);
  }
  for (const std::string& line : gfm_lines(clean)) {
    clean_headings += line.rfind("#", 0) == 0 ? std::size_t{1} : std::size_t{0};
    clean_rows += line.rfind("|", 0) == 0 ? std::size_t{1} : std::size_t{0};
  }
  CHECK(headings == clean_headings);
  CHECK(rows == clean_rows);
  // Outside code spans (where it is inert text) the only comment opener is the report's own marker.
  const std::string span = "`aten::mm␍## ✅ PASS · 0 regressed <!--`";
  CHECK(occurrences(text, span) == 1);  // the interpretation (the op is not among the summary's rows)
  // The full table cuts the 37-character name in the middle (32 characters: a cell fits 860 px).
  CHECK(occurrences(text, "| `aten::mm␍## ✅ PA… regressed <!--` |") == 1);
  CHECK(occurrences(text, "<!--") == 3);  // the two code spans and the report's own marker
}

TEST_CASE("an unmatched backtick in a manifest value leaves no <img>, link or @mention live (was: backtick toggled "
          "escaping)") {
  Report r = sample_report();
  r.conditions.rows[2].base = "m1 `<img src=x onerror=alert(1)> [link](http://x) @user";
  r.conditions.rows[2].head = "m2 `<img src=x onerror=alert(1)> ![i](http://x/i.png) @user";
  const std::string text = render_markdown(r);
  CHECK(text.find("<img") == std::string::npos);
  CHECK(text.find("[link](") == std::string::npos);
  CHECK(text.find("![i](") == std::string::npos);
  CHECK(text.find("@user") == std::string::npos);
  CHECK(text.find("| m1 \\`&lt;img src=x onerror=alert(1)&gt; \\[link\\](http:/\u2060/x) @\u2060user | m2 ") !=
        std::string::npos);
  const std::string html = render_html(r);
  CHECK(html.find("<img") == std::string::npos);
}

TEST_CASE("JUnit stays well-formed XML 1.0 with U+FFFE, U+FFFF and control characters in names (was: kept U+FFFE)") {
  Report r = sample_report();
  r.metrics[0].name = "lat\xEF\xBF\xBE"
                      "ency\xEF\xBF\xBF\x01\x1b";
  const std::string xml = render_junit(r);
  CHECK(xml.find("\xEF\xBF\xBE") == std::string::npos);
  CHECK(xml.find("\xEF\xBF\xBF") == std::string::npos);
  CHECK(xml.find("lat\xEF\xBF\xBD"
                 "ency\xEF\xBF\xBD␁␛") != std::string::npos);
}

TEST_CASE("invalid UTF-8 in a name or file name is replaced in every output, never type_error.316") {
  Report r = sample_report();
  r.metrics[5].name = std::string("bad\xFF\xC0name");
  r.provenance.files.at(0).relative_path = std::string("run-\xFE/trace.json");
  r.interpretations.push_back("Op " + prose_code(r.metrics[5].name) + ".");
  std::string json;
  REQUIRE_NOTHROW(json = render_json(r));
  const auto parsed = nlohmann::json::parse(json);  // strict: throws on invalid UTF-8
  CHECK(parsed["metrics"][5]["name"] == "bad\xEF\xBF\xBD\xEF\xBF\xBDname");
  CHECK(parsed["provenance"]["files"][0]["path"] == "run-\xEF\xBF\xBD/trace.json");
  for (const std::string& text : {render_markdown(r), render_html(r), render_junit(r), json}) {
    CHECK(valid_utf8(text) == text);
  }
}

TEST_CASE("a 12x change reads +1,100% (was: 1.1e+03%), in the headline, the tables and the chart") {
  CHECK(format_change(12.0) == "+1,100%");
  CHECK(format_change(101.0) == "+10,000%");
  CHECK(format_change(0.05) == "-95.0%");
  CHECK(format_change(1.052) == "+5.2%");
  Report r = sample_report();
  r.metrics[0].ratio = 12.0;
  r.metrics[0].ratio_low = 11.5;
  r.metrics[0].ratio_high = 12.5;
  neuron_gate::testing::finish_summary(r);
  const std::string text = render_markdown(r);
  CHECK(text.rfind("## ❌ REGRESSION: `latency` +1,100% (90% CI +1,050…+1,150%, threshold 5%)", 0) == 0);
  CHECK(text.find("| +1,100% | +1,050…+1,150% |") != std::string::npos);
  CHECK(text.find("latency · +1,100% · REGRESSED") != std::string::npos);
  CHECK(text.find("e+0") == std::string::npos);
}

TEST_SUITE_END();
