#pragma once
// Report -> GitHub annotations: workflow commands (`::error title=T::MESSAGE`), one a line, for the
// Action to print into the job log (issue 11 item 1, issue 16 item 3). Rendered from the same Report as
// the other reports. Which findings are annotated:
//   ::error    a gating metric that REGRESSED without a waiver; each differing condition that made the
//              comparison NOT COMPARABLE; under exit code 4 (--strict) each gating metric left
//              INCONCLUSIVE or INSUFFICIENT, and a NO DECISION headline
//   ::warning  identical inputs or head inside base (Report::inputs_line); a non-gating or waived REGRESSED
//              metric; the NO DECISION headline (exit code 0)
//   nothing    for STRUCTURAL, IMPROVED, EQUIVALENT, and (without --strict) undecided metrics: the
//              report lists them
// At most `max_per_kind` of each kind (errors first in report order, gating before non-gating), then
// one ::notice counting what was left out. Every data string goes through escape_workflow_data (the
// message) or escape_workflow_property (the title), so no name can end a command or start another.

#include "report/report.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace neuron_gate {

// GitHub shows at most 10 error and 10 warning annotations per step.
constexpr std::size_t k_annotations_per_kind = 10;

// The annotations of `report` as workflow command lines, each ending in "\n"; "" when there is
// nothing to annotate (a pass without non-gating regressions).
// `point`, when given, is the operating point `report` is of (docs/user-guide.md "Operating points"): every title
// names it ("neuron-gate: latency [at 16x2048-float32] regressed").
std::string render_annotations(const Report& report, std::size_t max_per_kind = k_annotations_per_kind,
                               const std::string& point = "");

// The annotation for an operating point that was not compared: `verdict` says why ("not comparable: in
// base only"; plain text); an error when it `blocks` the gate (a base point missing in head or whose
// conditions differ: NOT COMPARABLE), else a warning (a point only in head). Both strings are escaped here.
std::string point_not_compared_annotation(const std::string& point, const std::string& verdict, bool blocks);

// The one annotation for a run that ended in a usage or input error (exit code 2): `message` (the
// error's text, hostile: it may quote a file name) as `::error title=neuron-gate: error (exit code 2)::…`.
std::string error_annotation(std::string_view message);

}  // namespace neuron_gate
