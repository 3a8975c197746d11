#pragma once
// Report -> one self-contained HTML page (inline CSS and SVG; no script, nothing fetched), for a CI
// artifact that an engineer opens in a browser (DESIGN.md section 6).

#include "report/report.hpp"

#include <string>

namespace neuron_gate {

// Renders the report with the Markdown report's sections in the same order: verdict line, Conditions
// held fixed, Measurements (tables, the change chart, base vs head distributions of the end-to-end
// metrics, step time and the top 20 changed ops, full tables), Interpretations, Open hypotheses,
// Provenance. Every text from the data is escaped; a Content-Security-Policy forbids scripts and
// any fetch. Byte-identical for the same report.
std::string render_html(const Report& report);

// The sections of one report as render_html lays them out in <main>: summary, conditions, measurements,
// interpretations, open hypotheses, provenance (for one operating point's folded detail, points_report.hpp).
std::string render_html_sections(const Report& report);

// A whole page as render_html writes it: <head> (the no-script CSP, the style; `title` escaped), the
// verdict header (icon and colour of `outcome`; `verdict_line` without its leading emoji and
// `context_line`, both prose), `main_html` (already HTML) in <main>, the footer naming `tool_version`.
std::string render_html_page(Outcome outcome, const std::string& title, const std::string& verdict_line,
                             const std::string& context_line, const std::string& main_html,
                             const std::string& tool_version);

}  // namespace neuron_gate
