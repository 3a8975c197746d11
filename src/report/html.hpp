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

} // namespace neuron_gate
