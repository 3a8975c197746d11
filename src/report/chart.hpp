#pragma once
// Charts of a report: a Mermaid xychart for the Markdown report (GitHub draws it in the PR comment) and
// inline SVG for the HTML report (no script, no network). Both draw from the same bars, so the two
// reports show the same picture. All output is deterministic: fixed number formatting, no clock.

#include "report/report.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// One bar of the change chart: a metric and its ratio head/base.
struct ChangeBar {
  const MetricComparison* metric = nullptr;  // points into the Report, which must outlive the bar
  std::string label;            // metric name, plus " (device)" / " (self CPU)" when the report has device time
  std::optional<double> ratio;  // Hodges–Lehmann ratio; else head/base medians; 0 for an op gone in head;
                                // nullopt for an op new in head (no base to divide by)
  bool worse = false;           // moved in the direction that hurts (by the metric's `better`)
};

// The metrics the change charts show, at most `most`: end-to-end metrics first, then ops (device and
// self CPU together) by absolute change of the median per step, most changed first. Ops whose median
// did not move and that have no ratio are left out; profiled step time is left out (it never gates
// by default and the tables show it).
std::vector<ChangeBar> change_bars(const Report& report, std::size_t most = 10);

// The metrics that matter, as bars: the summary table's rows in its order (the deciding metrics first,
// then what explains them; profiled step time where the summary has it), at most `most`; a report
// without a summary (nothing decided a verdict, e.g. NOT COMPARABLE) gets change_bars().
std::vector<ChangeBar> summary_bars(const Report& report, std::size_t most = 10);

// A label safe inside a Mermaid double-quoted string: sanitized (escape.hpp: invalid UTF-8, control
// characters and line breaks neutralised), then quotes, square brackets, braces, angle brackets,
// backslashes, '#', ';', '`', '|', '%' dropped; cut to `max_chars` code points with "…".
std::string mermaid_label(std::string_view text, std::size_t max_chars = 32);

// A ```mermaid fenced `xychart-beta horizontal` block of the summary_bars(): one bar per metric, its
// length the signed % change (Mermaid draws bars from the axis minimum, which is min(0, lowest)), a
// line at 0 (no change), each label "<metric> · <change> · <VERDICT>"; then a line naming the ops among the top
// changes that cannot be drawn (new in head, or gone: ratio 0), whose places the next metrics take.
// At most `most` bars. "" when no metric has a ratio to draw (e.g. NOT COMPARABLE, nothing measured).
std::string mermaid_change_chart(const Report& report, std::size_t most = 10);

// The summary_bars() as an inline <svg> (the HTML report): horizontal bars of the change in percent around a zero line,
// coloured by verdict, each with its value and the full metric name as a tooltip. "" when no bars.
std::string svg_change_chart(const Report& report, std::size_t most = 10);

// Base vs head distribution of one metric as an inline <svg> strip plot: one row per side, a dot per
// sample (deterministic jitter), the interquartile box and the median. At most `max_points` dots a
// side (evenly spaced order statistics beyond that). "" when both sides have no samples.
std::string svg_distribution(const MetricComparison& metric, std::size_t max_points = 400);

// The colour (hex) that stands for a verdict in every chart: REGRESSED red, IMPROVED green,
// STRUCTURAL purple, others grey (GitHub Primer palette, readable on light backgrounds).
const char* verdict_colour(Verdict verdict);

}  // namespace neuron_gate
