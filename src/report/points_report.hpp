#pragma once
// Step 6 for a comparison of several operating points (compare/operating_points.hpp): the report opens
// with one row per point (point × deciding metric × change × verdict), then each point's own report,
// folded. Wording is here and in prose_points.cpp; the renderers (points_render.cpp) only render.

#include "compare/operating_points.hpp"
#include "report/report.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// One row of the opening table, as prose (escape.hpp: each renderer escapes it).
struct PointRow {
  std::string label;  // the point's label as given (a string from the profile: prose_code it)
  PointStatus status = PointStatus::compared;
  Outcome outcome = Outcome::not_comparable;  // the point's own outcome
  std::string metric;   // the deciding metric ("`latency`", "`aten::mm` self CPU"), "–" when none
  std::string change;   // its signed change ("+33.0%"), "–" when none
  std::string verdict;  // "regressed", "pass", "no decision", "not comparable: in base only", ...
};

// Everything a rendered report of several points shows.
struct PointsReport {
  std::string verdict_line;  // points_headline_text()
  std::string context_line;  // points_context_text()
  Decision decision;         // the gate's (PointsJudgement::judgement): its exit_code is the process's
  std::vector<PointRow> rows;
  // Each point's own report (build_report over its sides, its slice of the judgement and its findings),
  // in row order; nullopt for a point on one side only.
  std::vector<std::optional<Report>> details;
  RuleSet rules;
};

// Builds the report. `details` are the points' reports in the order of judged.points (nullopt where a
// side lacks the point).
PointsReport build_points_report(const PointsJudgement& judged, std::vector<std::optional<Report>> details,
                                 const std::string& base_spec, const std::string& head_spec, RuleSet rules);

// The headline. A regression names the point first: "❌ REGRESSION at `16x2048-float32`: `latency` +33.0%
// (90% CI …, threshold 5%)", with " · also at `a`, `b`" for more regressed points. Pass: "✅ PASS at 5 of
// 6 operating points · not compared: `64x4096-float32` (in base only)". NO DECISION / INCONCLUSIVE:
// the outcome with the points it comes from. NOT COMPARABLE: that no point was compared.
std::string points_headline_text(const PointsReport& report);

// The context line: sides, the points (how many on each side, compared), gating classes and counts.
std::string points_context_text(const PointsJudgement& judged, const std::string& base_spec,
                                const std::string& head_spec);

// The verdict cell of a point: "regressed", "pass", "no decision", "inconclusive", "not comparable: in
// base only" / "in head only" / "conditions differ (NAMES)".
std::string point_verdict_text(const PointComparison& point);

// Renderers.
// Markdown: the headline, the context line, the points table, then one folded section per point (its
// report without the sticky marker, each given an equal share of `max_chars`), the marker last.
std::string render_points_markdown(const PointsReport& report, std::size_t max_chars, const std::string& comment_key);
// JSON: schema "neuron-gate.points/1", outcome, exit code, headline, and per point its row and its
// report as render_json writes it ("report": null for a point on one side only).
std::string render_points_json(const PointsReport& report);
// HTML: the page of render_html with the points table under the header, then each point's verdict,
// context and sections (render_html_sections) in a <details> of its own.
std::string render_points_html(const PointsReport& report);
// JUnit XML: one <testsuite> per point (render_junit_points); a point on one side only is a skipped case.
std::string render_points_junit(const PointsReport& report);
// GitHub annotations: each compared point's (render_annotations naming the point), and a warning per
// point not compared (a point whose conditions differ: its not-comparable errors as warnings, since it
// does not decide the gate).
std::string render_points_annotations(const PointsReport& report);
// Terminal: the headline and one aligned line per point (escape_terminal on every string).
std::string render_points_terminal(const PointsReport& report);
// The one line `compare --quiet` prints: the headline (escape_terminal), then " · ⚠️ identical inputs" /
// "head inside base" when some compared point's sides overlap so (Report::inputs_overlap).
std::string render_points_verdict(const PointsReport& report);

}  // namespace neuron_gate
