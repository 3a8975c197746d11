#pragma once
// Report -> JUnit XML, so any CI shows per-metric verdicts as test results (DESIGN.md section 6).

#include "report/report.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// One <testsuite name="neuron-gate"> with a <testcase> per gating metric (name "<metric> (<class>)",
// classname "neuron-gate.<class key>") and one "conditions" case (classname "neuron-gate.conditions")
// that fails, naming the differing conditions, when the outcome is NOT COMPARABLE. REGRESSED is a
// <failure> (ratio, CI, adjusted p, reason); a waived regression, INSUFFICIENT and INCONCLUSIVE are
// <skipped> with the reason, except that under an INCONCLUSIVE outcome (--strict) the undecided cases
// are failures, as the exit code is. The suite's tests/failures/skipped counts match its cases.
std::string render_junit(const Report& report);

// One operating point for render_junit_points: its report, or nullptr with `why` it has none (plain text,
// "not comparable: in base only").
struct JunitPoint {
  std::string label;
  const Report* report = nullptr;
  std::string why;
};

// JUnit XML of several operating points (docs/user-guide.md "Operating points"): one <testsuite> per point, named
// "neuron-gate [at LABEL]", as render_junit's for a point with a report; a point without one is a suite
// of one skipped case. <testsuites> sums the counts.
std::string render_junit_points(const std::vector<JunitPoint>& points);

}  // namespace neuron_gate
