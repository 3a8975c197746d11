// JUnit XML: well-formed, one case per gating metric plus conditions, counts that match the cases.
#include "report/junit.hpp"
#include "test_files.hpp"
#include "test_report_fixture.hpp"

#include <doctest/doctest.h>

#include <map>
#include <regex>

using namespace neuron_gate;
using neuron_gate::testing::sample_report;

using neuron_gate::testing::occurrences;

namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == ':' || c == '.';
}

// Checks character data: no '<', and every '&' starts a known or numeric entity.
std::string check_text(const std::string& text) {
  if (text.find('<') != std::string::npos) {
    return "raw '<' in text";
  }
  static const std::regex entity("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
  for (std::size_t at = text.find('&'); at != std::string::npos; at = text.find('&', at + 1)) {
    if (!std::regex_search(text.substr(at, 12), entity)) {
      return "bad entity at " + text.substr(at, 12);
    }
  }
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      return "control character in text";
    }
  }
  return "";
}

// A small XML well-formedness check (elements, attributes, entities, one root); "" when well-formed.
std::string xml_problem(const std::string& xml) {
  std::size_t at = 0;
  if (xml.rfind("<?xml ", 0) == 0) {
    at = xml.find("?>") + 2;
  }
  std::vector<std::string> open;
  std::size_t roots = 0;
  while (at < xml.size()) {
    const std::size_t lt = xml.find('<', at);
    const std::string text = xml.substr(at, lt == std::string::npos ? std::string::npos : lt - at);
    if (std::string problem = check_text(text); !problem.empty()) {
      return problem;
    }
    if (open.empty() && text.find_first_not_of(" \n\t\r") != std::string::npos) {
      return "text outside the root";
    }
    if (lt == std::string::npos) {
      break;
    }
    at = lt + 1;
    const bool closing = xml[at] == '/';
    at += closing ? 1 : 0;
    std::size_t name_end = at;
    while (name_end < xml.size() && is_name_char(xml[name_end])) {
      ++name_end;
    }
    const std::string name = xml.substr(at, name_end - at);
    if (name.empty()) {
      return "empty element name at byte " + std::to_string(at);
    }
    at = name_end;
    if (closing) {
      if (open.empty() || open.back() != name || xml[at] != '>') {
        return "mismatched </" + name + ">";
      }
      open.pop_back();
      ++at;
      continue;
    }
    if (open.empty() && ++roots > 1) {
      return "more than one root";
    }
    std::set<std::string> attributes;
    while (true) {
      while (xml[at] == ' ' || xml[at] == '\n') {
        ++at;
      }
      if (xml.compare(at, 2, "/>") == 0) {
        at += 2;
        break;
      }
      if (xml[at] == '>') {
        open.push_back(name);
        ++at;
        break;
      }
      std::size_t attribute_end = at;
      while (is_name_char(xml[attribute_end])) {
        ++attribute_end;
      }
      const std::string attribute = xml.substr(at, attribute_end - at);
      if (attribute.empty() || xml.compare(attribute_end, 2, "=\"") != 0 || !attributes.insert(attribute).second) {
        return "bad attribute in <" + name + "> at byte " + std::to_string(at);
      }
      const std::size_t value_end = xml.find('"', attribute_end + 2);
      if (value_end == std::string::npos) {
        return "unterminated attribute";
      }
      if (std::string problem = check_text(xml.substr(attribute_end + 2, value_end - attribute_end - 2));
          !problem.empty()) {
        return problem + " in attribute " + attribute;
      }
      at = value_end + 1;
    }
  }
  return open.empty() && roots == 1 ? "" : "unclosed <" + (open.empty() ? std::string("?") : open.back()) + ">";
}

// tests/failures/skipped/errors of the <testsuite> element.
std::map<std::string, int> suite_counts(const std::string& xml) {
  std::map<std::string, int> counts;
  const std::size_t suite = xml.find("<testsuite ");
  const std::string tag = xml.substr(suite, xml.find('>', suite) - suite);
  for (const char* key : {"tests", "failures", "skipped", "errors"}) {
    std::smatch match;
    if (std::regex_search(tag, match, std::regex(std::string(" ") + key + "=\"([0-9]+)\""))) {
      counts[key] = std::stoi(match[1].str());
    }
  }
  return counts;
}

}  // namespace

TEST_SUITE_BEGIN("report::junit");

TEST_CASE("the XML checker itself rejects malformed XML") {
  CHECK(xml_problem("<a><b/></a>").empty());
  CHECK_FALSE(xml_problem("<a><b></a>").empty());
  CHECK_FALSE(xml_problem("<a x=\"1\" x=\"2\"/>").empty());
  CHECK_FALSE(xml_problem("<a>1 < 2</a>").empty());
  CHECK_FALSE(xml_problem("<a>R&D</a>").empty());
  CHECK_FALSE(xml_problem("<a/><b/>").empty());
}

TEST_CASE("JUnit: well-formed, one case per gating metric plus conditions, counts right") {
  const std::string xml = render_junit(sample_report());
  CHECK(xml_problem(xml) == "");
  const auto counts = suite_counts(xml);
  // conditions (pass), latency (REGRESSED: failure), throughput (pass), peak_memory (INSUFFICIENT: skipped).
  CHECK(counts.at("tests") == 4);
  CHECK(counts.at("failures") == 1);
  CHECK(counts.at("skipped") == 1);
  CHECK(counts.at("errors") == 0);
  CHECK(occurrences(xml, "<testcase ") == 4);
  CHECK(occurrences(xml, "<failure ") == 1);
  CHECK(occurrences(xml, "<skipped ") == 1);
  CHECK(xml.find("<testcase name=\"latency (end-to-end)\" classname=\"neuron-gate.end_to_end\"") != std::string::npos);
  CHECK(xml.find("<failure message=\"REGRESSED: +11.8% (90% CI +9.0…+15.0%), adjusted p 2.4e-07; ratio "
                 "1.118x ≥ 1 + 5% threshold, adjusted p 2.4e-7 ≤ alpha 0.05\" type=\"REGRESSED\">") !=
        std::string::npos);
  CHECK(xml.find("<skipped message=\"INSUFFICIENT: 2 vs 2 samples") != std::string::npos);
  CHECK(xml.find("<testcase name=\"conditions\" classname=\"neuron-gate.conditions\"") != std::string::npos);
  // Non-gating per-op metrics are not cases.
  CHECK(xml.find("aten::mm") == std::string::npos);
}

TEST_CASE("JUnit: NOT COMPARABLE is one failing conditions case naming the differing conditions") {
  Report r = sample_report();
  r.outcome = Outcome::not_comparable;
  r.metrics.clear();
  r.conditions.rows.push_back(neuron_gate::testing::condition_row("traces & <runs>", "3", "5", false, false));
  const std::string xml = render_junit(r);
  CHECK(xml_problem(xml) == "");
  const auto counts = suite_counts(xml);
  CHECK(counts.at("tests") == 1);
  CHECK(counts.at("failures") == 1);
  CHECK(xml.find("<failure message=\"NOT COMPARABLE: the conditions held fixed differ in traces &amp; &lt;runs&gt; "
                 "(base: 3; head: 5)\" type=\"NOT COMPARABLE\">") != std::string::npos);
  // The accepted difference is listed in the text but not in the message.
  CHECK(xml.find("record_shapes: base true; head false (differs, accepted)") != std::string::npos);
}

TEST_CASE("JUnit: a waived regression is skipped and under --strict (INCONCLUSIVE outcome) undecided cases fail") {
  SUBCASE("waived") {
    Report r = sample_report();
    r.metrics[0].waiver = "known cost of the new allocator until 2030-01-01";
    r.outcome = Outcome::pass;
    r.decision.exit_code = 0;
    const std::string xml = render_junit(r);
    CHECK(xml_problem(xml) == "");
    CHECK(suite_counts(xml).at("failures") == 0);
    CHECK(suite_counts(xml).at("skipped") == 2);
    CHECK(xml.find("<skipped message=\"waived (known cost of the new allocator until 2030-01-01): REGRESSED") !=
          std::string::npos);
  }
  SUBCASE("strict") {
    Report r = sample_report();
    r.metrics[0].verdict = Verdict::equivalent;
    r.outcome = Outcome::no_decision;  // --strict: NO DECISION fails, and with it the case of the metric it names
    r.decision.no_decision = NoDecision{NoDecisionCause::too_few_samples, 2, 6, {}, {}};  // peak_memory, INSUFFICIENT
    r.decision.exit_code = 4;
    const std::string xml = render_junit(r);
    CHECK(suite_counts(xml).at("failures") == 1);
    CHECK(suite_counts(xml).at("skipped") == 0);
    CHECK(xml.find("<failure message=\"INSUFFICIENT: ") != std::string::npos);
  }
}

TEST_CASE("JUnit: names and reasons with markup are escaped") {
  Report r = sample_report();
  r.metrics[10].gating = true;  // the "<script>" op, INCONCLUSIVE
  r.metrics[10].reason = "a < b & \"c\"\x01";
  const std::string xml = render_junit(r);
  CHECK(xml_problem(xml) == "");
  CHECK(xml.find("name=\"&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; (self CPU)\"") != std::string::npos);
  CHECK(xml.find("a &lt; b &amp; &quot;c&quot;␁") != std::string::npos);  // control picture (escape.hpp)
  CHECK(suite_counts(xml).at("tests") == 5);
  CHECK(suite_counts(xml).at("skipped") == 2);
}

TEST_SUITE_END();
