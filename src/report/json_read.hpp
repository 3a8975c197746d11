#pragma once
// Reading compare's JSON report back, for `neuron-gate render` (docs/github-action.md "Fork pull
// requests"): a trusted job renders the pull request's comment itself, with the same renderer and
// escapers as `compare`, from a report the pull request's own job wrote. That file is hostile: every
// string in it is read as data (a pair of backticks becomes a code span, everything else text, each
// escaped by the renderer), never as the report's own Markdown; identifiers the renderer prints as they
// are (versions, hashes, commits) must match their formats; unknown enumerations are refused.

#include "report/points_report.hpp"
#include "report/report.hpp"

#include <optional>
#include <string>

namespace neuron_gate {

// One report read back: `single` for schema "neuron-gate.report/2", `points` for "neuron-gate.points/1".
struct ReadBackReport {
  std::optional<Report> single;
  std::optional<PointsReport> points;
};

// Reads the JSON report at `path` (written by `compare --json`) into the values the Markdown renderer
// draws from (render_markdown, render_points_markdown); statistics the Markdown does not show are not
// read. Throws InputError naming the file: a syntax error with its byte offset, a wrong type or value
// with its key path (e.g. "metrics[3].verdict"), another schema by name.
ReadBackReport read_json_report(const std::string& path);

}  // namespace neuron_gate
