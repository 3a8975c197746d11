#include "report/junit.hpp"

#include "report/chart.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "report/prose.hpp"

#include <algorithm>

namespace neuron_gate {
namespace {

struct Case {
  std::string name, classname;
  enum class Kind { passed, failure, skipped } kind = Kind::passed;
  std::string type;     // failure type: the verdict or "NOT COMPARABLE"
  std::string message;  // one line
  std::string details;  // element text
};

// The numbers behind a verdict, one per line, for the case's text.
std::string metric_details(const MetricComparison& m) {
  const std::string replaced = replacement_members_text(m);
  return "verdict: " + std::string(verdict_name(m.verdict)) + "\nreason: " + sanitize_text(m.reason) +
         (replaced.empty() ? std::string() : "\nreplaced ops: " + prose_plain(replaced)) +
         "\nbase median: " + format_value(m.base_median, m.unit, m.resolution) + " (n " +
         std::to_string(m.base_samples.size()) +
         ")\nhead median: " + format_value(m.head_median, m.unit, m.resolution) + " (n " +
         std::to_string(m.head_samples.size()) +
         ")\nchange head vs base: " + format_change_with_ci(m.ratio, m.ratio_low, m.ratio_high) +
         "\nadjusted p (worse): " + format_p(m.p_worse_adjusted) + ", (better): " + format_p(m.p_better_adjusted) +
         " in family " + family_name(m.family) + " of " + std::to_string(m.family_size) +
         "\nthreshold: " + format_percent(m.threshold) +
         (m.waiver ? "\nwaiver: " + sanitize_text(*m.waiver) : std::string()) + "\n";
}

Case metric_case(const Report& report, const MetricComparison& m) {
  Case c;
  const std::string label = m.metric_class == MetricClass::step_time
                                ? ""
                                : " (" + metric_class_label(m.metric_class, ClassLabel::junit) + ")";
  c.name = m.name + label;
  c.classname = std::string("neuron-gate.") + metric_class_key(m.metric_class);
  c.details = metric_details(m);
  if (m.verdict == Verdict::regressed) {
    c.type = verdict_name(m.verdict);
    c.message = "REGRESSED: " + format_change_with_ci(m.ratio, m.ratio_low, m.ratio_high) + ", adjusted p " +
                format_p(m.p_worse_adjusted) + "; " + m.reason;
    if (m.scope == MetricScope::replacement_group) {
      c.message += "; replaced ops: " + prose_plain(replacement_members_text(m));
    }
    if (m.waiver) {
      c.kind = Case::Kind::skipped;
      c.message = "waived (" + *m.waiver + "): " + c.message;
    } else {
      c.kind = Case::Kind::failure;
    }
  } else if (undecided(m.verdict)) {
    c.type = verdict_name(m.verdict);
    c.message = std::string(verdict_name(m.verdict)) + ": " + m.reason;
    // Under --strict NO DECISION fails the gate (exit 4), and with it the case of the metric it names.
    const auto& nd = report.decision.no_decision;
    const bool named = nd && nd->cause != NoDecisionCause::device_time_missing && nd->metric < report.metrics.size() &&
                       &report.metrics[nd->metric] == &m;
    c.kind = report.decision.exit_code == 4 && named ? Case::Kind::failure : Case::Kind::skipped;
  }
  return c;
}

Case conditions_case(const Report& report) {
  Case c;
  c.name = "conditions";
  c.classname = "neuron-gate.conditions";
  std::string differing;
  for (const ConditionRow& row : report.conditions.rows) {
    c.details += sanitize_text(row.name) + ": base " + sanitize_text(row.base) + "; head " + sanitize_text(row.head) +
                 (row.matches    ? ""
                  : row.accepted ? " (differs, accepted)"
                                 : " (differs)") +
                 "\n";
    if (!row.matches && !row.accepted) {
      differing += (differing.empty() ? "" : "; ") + row.name + " (base: " + row.base + "; head: " + row.head + ")";
    }
  }
  if (report.outcome == Outcome::not_comparable) {
    c.kind = Case::Kind::failure;
    c.type = "NOT COMPARABLE";
    c.message = conditions_differ(report) ? "NOT COMPARABLE: the conditions held fixed differ in " + differing
                                          : prose_plain(report.verdict_line);
  }
  return c;
}

std::string attribute(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + escape_xml(value) + "\"";
}

// Element text of several lines: each line escaped (data inside was sanitized, so every newline is ours).
std::string xml_lines(const std::string& text) {
  std::string xml;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    xml += escape_xml(std::string_view(text).substr(start, end - start));
    if (end == text.size()) {
      break;
    }
    xml += '\n';
    start = end + 1;
  }
  return xml;
}

}  // namespace

namespace {

// One <testsuite> and its counts.
struct Suite {
  std::string xml;
  std::size_t tests = 0, failures = 0, skipped = 0;
};

std::string counts_attributes(std::size_t tests, std::size_t failures, std::size_t skipped) {
  return attribute("tests", std::to_string(tests)) + attribute("failures", std::to_string(failures)) +
         attribute("errors", "0") + attribute("skipped", std::to_string(skipped));
}

std::string case_xml(const Case& c) {
  std::string xml = "    <testcase" + attribute("name", c.name) + attribute("classname", c.classname) +
                    attribute("time", "0") + ">\n";
  if (c.kind == Case::Kind::failure) {
    xml += "      <failure" + attribute("message", c.message) + attribute("type", c.type) + ">" + xml_lines(c.details) +
           "</failure>\n";
  } else if (c.kind == Case::Kind::skipped) {
    xml += "      <skipped" + attribute("message", c.message) + "/>\n";
  }
  return xml + "      <system-out>" + xml_lines(c.details) + "</system-out>\n    </testcase>\n";
}

Suite suite_of(const std::string& name, const std::vector<Case>& cases,
               const std::vector<std::pair<const char*, std::string>>& properties) {
  Suite suite;
  suite.tests = cases.size();
  for (const Case& c : cases) {
    suite.failures += c.kind == Case::Kind::failure ? 1 : 0;
    suite.skipped += c.kind == Case::Kind::skipped ? 1 : 0;
  }
  suite.xml = "  <testsuite" + attribute("name", name) + counts_attributes(suite.tests, suite.failures, suite.skipped) +
              attribute("time", "0") + ">\n    <properties>\n";
  for (const auto& [property, value] : properties) {
    suite.xml += "      <property" + attribute("name", property) + attribute("value", value) + "/>\n";
  }
  suite.xml += "    </properties>\n";
  for (const Case& c : cases) {
    suite.xml += case_xml(c);
  }
  suite.xml += "  </testsuite>\n";
  return suite;
}

Suite report_suite(const Report& report, const std::string& name) {
  std::vector<Case> cases;
  cases.push_back(conditions_case(report));
  for (const MetricComparison& m : report.metrics) {
    if (m.gating) {
      cases.push_back(metric_case(report, m));
    }
  }
  return suite_of(name, cases,
                  {{"outcome", outcome_name(report.outcome)},
                   {"exit_code", std::to_string(report.decision.exit_code)},
                   {"verdict_line", prose_plain(report.verdict_line)},
                   {"base", report.provenance.base_spec},
                   {"head", report.provenance.head_spec},
                   {"tool_version", report.provenance.tool_version},
                   {"rules_sha256", report.provenance.rules_sha256}});
}

std::string document(const std::vector<Suite>& suites) {
  std::size_t tests = 0, failures = 0, skipped = 0;
  std::string body;
  for (const Suite& suite : suites) {
    tests += suite.tests;
    failures += suite.failures;
    skipped += suite.skipped;
    body += suite.xml;
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" + attribute("name", "neuron-gate") +
         counts_attributes(tests, failures, skipped) + ">\n" + body + "</testsuites>\n";
}

}  // namespace

std::string render_junit(const Report& report) {
  return document({report_suite(report, "neuron-gate")});
}

std::string render_junit_points(const std::vector<JunitPoint>& points) {
  std::vector<Suite> suites;
  for (const JunitPoint& point : points) {
    const std::string name = "neuron-gate [at " + point.label + "]";
    if (point.report != nullptr) {
      suites.push_back(report_suite(*point.report, name));
    } else {
      Case c{"operating point " + point.label, "neuron-gate.conditions", Case::Kind::skipped, "", point.why, point.why};
      suites.push_back(suite_of(name, {c}, {{"outcome", "NOT COMPARABLE"}}));
    }
  }
  return document(suites);
}

}  // namespace neuron_gate
