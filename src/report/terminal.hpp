#pragma once
// Report -> a compact summary for a terminal (issue 16 item 5): the verdict line, the context line, the
// summary rows and where the full reports went. Every string from a profile goes through
// escape.hpp escape_terminal (via prose_plain), so no control character or escape sequence of the data
// reaches the terminal; the only escape sequences are the colours this renderer adds.

#include "report/report.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// The summary. `colour`: ANSI colours (red regression, green pass, yellow otherwise; bold headline).
// `written`: paths of the report files written, listed at the end ("" entries skipped).
// Under NOT COMPARABLE it lists each differing condition with both values (and its note); identical
// inputs or a head inside base are named under the context line (Report::inputs_line).
std::string render_terminal(const Report& report, bool colour, const std::vector<std::string>& written);

// The one line `compare --quiet` prints: the headline, then " · ⚠️ identical inputs" (or "head inside
// base") when the sides overlap; coloured as render_terminal's headline when `colour`.
std::string render_terminal_verdict(const Report& report, bool colour);

}  // namespace neuron_gate
