#include "report/chart.hpp"

#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "report/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>

namespace neuron_gate {
namespace {

const char* const k_font = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif";
const char* const k_base_colour = "#8c959f";
const char* const k_ink = "#1f2328";
const char* const k_muted = "#656d76";
const char* const k_grid = "#d0d7de";

// A coordinate with one decimal: fixed text, so the SVG is byte-identical across runs.
std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  std::string text = buffer;
  if (text == "-0.0") {
    text = "0.0";
  }
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) {
    text.resize(text.size() - 2);
  }
  return text;
}

// The ratio a bar shows; nullopt when there is none to draw.
std::optional<double> bar_ratio(const MetricComparison& m) {
  if (m.ratio && std::isfinite(*m.ratio)) {
    return m.ratio;
  }
  if (m.base_median && *m.base_median > 0 && m.head_median) {
    return *m.head_median / *m.base_median;
  }
  if (m.present_in_base && !m.present_in_head) {
    return 0.0;
  }
  return std::nullopt;
}

std::size_t utf8_length(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) {
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  }
  return n;
}

// The first `most` code points of `text`, with "…" when cut.
std::string cut_text(std::string_view text, std::size_t most) {
  if (utf8_length(text) <= most) {
    return std::string(text);
  }
  std::size_t points = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (points == most - 1) {
        break;
      }
      ++points;
    }
  }
  return std::string(text.substr(0, i)) + "…";
}

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto low = static_cast<std::size_t>(std::floor(position));
  const std::size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (position - static_cast<double>(low)) * (sorted[high] - sorted[low]);
}

// A step of 1, 2 or 5 times a power of ten that cuts `span` into about `parts` intervals.
double nice_step(double span, int parts) {
  const double raw = span / parts;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (factor * power >= raw) {
      return factor * power;
    }
  }
  return 10.0 * power;
}

std::string svg_open(double width, double height, const std::string& label) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + num(width) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" role=\"img\" aria-label=\"" +
         escape_html(label) + "\" font-family=\"" + k_font + "\" font-size=\"12\">\n";
}

std::string text_at(double x, double y, const std::string& text, const char* anchor, const char* fill,
                    const std::string& extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\" fill=\"" + fill + "\"" +
         extra + ">" + escape_html(text) + "</text>\n";
}

std::string line_at(double x1, double y1, double x2, double y2, const char* stroke, const std::string& extra = "") {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" stroke=\"" +
         stroke + "\"" + extra + "/>\n";
}

// An axis tick: "0", a duration for "us", else a short number with the unit.
std::string axis_value(double value, const std::string& unit) {
  if (value == 0.0) {
    return "0";
  }
  return unit == "us" ? format_duration_us(value) : format_number(value, 4) + " " + unit;
}

std::string percent_text(double percent) {
  return (percent >= 0 ? "+" : "") + format_number(percent, 3) + "%";
}

}  // namespace

const char* verdict_colour(Verdict verdict) {
  switch (verdict) {
  case Verdict::regressed:
    return "#cf222e";
  case Verdict::improved:
    return "#1a7f37";
  case Verdict::structural:
    return "#8250df";
  case Verdict::equivalent:
  case Verdict::inconclusive:
  case Verdict::insufficient:
    return "#57606a";
  }
  return "#57606a";
}

namespace {

// The bar of one metric; `has_device`: the report has device time, so op labels name their class.
ChangeBar make_bar(const MetricComparison& m, bool has_device) {
  ChangeBar bar;
  bar.metric = &m;
  bar.label = m.name;
  if (has_device && m.metric_class == MetricClass::device) {
    bar.label += " (device)";
  } else if (has_device && m.metric_class == MetricClass::self_cpu) {
    bar.label += " (self CPU)";
  }
  bar.ratio = bar_ratio(m);
  const bool lower_is_better = m.better == Better::lower;
  bar.worse = bar.ratio ? (lower_is_better ? *bar.ratio > 1.0 : *bar.ratio < 1.0) : lower_is_better;
  return bar;
}

bool report_has_device(const Report& report) {
  return std::any_of(report.metrics.begin(), report.metrics.end(),
                     [](const MetricComparison& m) { return m.metric_class == MetricClass::device; });
}

}  // namespace

std::vector<ChangeBar> summary_bars(const Report& report, std::size_t most) {
  if (report.summary.rows.empty()) {
    return change_bars(report, most);
  }
  const bool has_device = report_has_device(report);
  std::vector<ChangeBar> bars;
  for (const SummaryRow& row : report.summary.rows) {
    if (bars.size() < most && row.metric < report.metrics.size()) {
      bars.push_back(make_bar(report.metrics[row.metric], has_device));
    }
  }
  return bars;
}

std::vector<ChangeBar> change_bars(const Report& report, std::size_t most) {
  const bool has_device = report_has_device(report);
  auto make = [&](const MetricComparison& m) { return make_bar(m, has_device); };

  std::vector<ChangeBar> bars;
  for (const MetricComparison* m : ranked_metrics(report, MetricClass::end_to_end)) {
    if (bars.size() < most && bar_ratio(*m)) {
      bars.push_back(make(*m));
    }
  }
  std::vector<const MetricComparison*> ops;
  for (const MetricComparison& m : report.metrics) {
    if (m.metric_class == MetricClass::device || m.metric_class == MetricClass::self_cpu) {
      const bool drawable = bar_ratio(m).has_value() || !m.present_in_base;
      if (drawable && (absolute_change(m) > 0 || bar_ratio(m))) {
        ops.push_back(&m);
      }
    }
  }
  std::stable_sort(ops.begin(), ops.end(), [](const MetricComparison* a, const MetricComparison* b) {
    return absolute_change(*a) > absolute_change(*b);
  });
  for (const MetricComparison* m : ops) {
    if (bars.size() == most) {
      break;
    }
    bars.push_back(make(*m));
  }
  return bars;
}

std::string mermaid_label(std::string_view text, std::size_t max_chars) {
  static const std::string_view dropped = "\"'[]{}<>\\#;`|%";
  std::string clean;
  for (char c : sanitize_text(text)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      clean += ' ';
    } else if (dropped.find(c) == std::string_view::npos) {
      clean += c;
    }
  }
  const auto first = clean.find_first_not_of(' ');
  if (first == std::string::npos) {
    return "?";
  }
  clean = clean.substr(first, clean.find_last_not_of(' ') - first + 1);
  return cut_text(clean, std::max<std::size_t>(max_chars, 2));
}

std::string mermaid_change_chart(const Report& report, std::size_t most) {
  // A ratio of 0 (op gone) draws no bar and a new op has no ratio: both are named under the chart, and
  // the chart takes the next ops instead.
  // Only the metrics that matter: those of the summary table, in its order (deciding first; issue 16 item 3).
  const std::vector<ChangeBar> all = summary_bars(report, report.metrics.size());
  std::vector<const ChangeBar*> drawn;
  std::vector<std::string> gone, appeared;
  for (const ChangeBar& bar : all) {
    if (drawn.size() == most) {
      break;
    }
    if (bar.ratio && *bar.ratio > 0) {
      drawn.push_back(&bar);
    } else {
      (bar.ratio ? gone : appeared).push_back(markdown_code(bar.label, false));
    }
  }
  if (drawn.empty()) {
    return "";
  }

  // Signed % change (issue 16 item 3). Mermaid draws bars from the axis minimum, so the axis runs
  // from min(0, lowest) to max(0, highest) and a line marks 0 (no change). One series in one colour:
  // the verdict and the change go into the label.
  double low = 0.0, high = 5.0;
  std::set<std::string> labels_used;
  std::string labels, values, zeros;
  for (const ChangeBar* bar : drawn) {
    const double percent = (*bar->ratio - 1.0) * 100.0;
    low = std::min(low, percent * 1.1);
    high = std::max(high, percent * 1.1);
    const std::string suffix = " · " + format_change(bar->ratio) + " · " + verdict_name(bar->metric->verdict);
    std::string label = mermaid_label(bar->label) + suffix;
    for (int copy = 2; !labels_used.insert(label).second; ++copy) {
      label = mermaid_label(bar->label, 28) + " " + std::to_string(copy) + suffix;
    }
    labels += (labels.empty() ? "\"" : ", \"") + label + "\"";
    values += (values.empty() ? "" : ", ") + format_number(percent, 4);
    zeros += zeros.empty() ? "0" : ", 0";
  }
  const double step = nice_step(high - low, 5);
  high = std::ceil(high / step) * step;
  low = std::floor(low / step) * step;

  std::string text = "```mermaid\n";
  // 760 px wide so the chart fits GitHub's 860 px comment column; 32 px a bar.
  text += "%%{init: {\"xyChart\": {\"width\": 760, \"height\": " + std::to_string(140 + 32 * drawn.size()) +
          ", \"xAxis\": {\"labelFontSize\": 12}}, \"themeVariables\": {\"xyChart\": {\"plotColorPalette\": "
          "\"#0969da, #cf222e\"}}}}%%\n";
  text += "xychart-beta horizontal\n";
  text += "  title \"Change head vs base, % (red line at 0 = no change)\"\n";
  text += "  x-axis [" + labels + "]\n";
  text += "  y-axis \"change %\" " + format_number(low, 4) + " --> " + format_number(high, 4) + "\n";
  text += "  bar [" + values + "]\n";
  text += "  line [" + zeros + "]\n";
  text += "```\n\n";
  text += "The metrics of the summary table; bars start at the axis minimum, the red line is 0.";
  auto name_all = [](const std::vector<std::string>& names) {
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < 10; ++i) {
      list += (i == 0 ? "" : ", ") + names[i];
    }
    return names.size() > 10 ? list + " and " + std::to_string(names.size() - 10) + " more" : list;
  };
  if (!appeared.empty()) {
    text += " Not drawn, new in head (no base to divide by): " + name_all(appeared) + ".";
  }
  if (!gone.empty()) {
    text += " Not drawn, gone in head (ratio 0): " + name_all(gone) + ".";
  }
  return text + "\n";
}

std::string svg_change_chart(const Report& report, std::size_t most) {
  const std::vector<ChangeBar> bars = summary_bars(report, most);
  if (bars.empty()) {
    return "";
  }
  // Percent change per bar; the axis is clamped at ±200% so one huge change does not flatten the rest
  // (a clamped bar ends in a break mark, its label keeps the true value).
  const double clamp = 200.0;
  double low = 0, high = 0;
  for (const ChangeBar& bar : bars) {
    if (bar.ratio) {
      const double percent = std::clamp((*bar.ratio - 1.0) * 100.0, -clamp, clamp);
      low = std::min(low, percent);
      high = std::max(high, percent);
    }
  }
  const double extent = std::max({high, -low, 5.0});
  const bool both_ways = low < 0 && high > 0;
  const double step = nice_step(extent, both_ways ? 2 : 4);
  const double rounded = std::ceil(extent / step) * step;
  const double axis_low = low < 0 ? -rounded : 0.0;
  const double axis_high = high > 0 || low == 0 ? rounded : 0.0;
  const auto ticks = static_cast<int>(std::lround((axis_high - axis_low) / step));

  const double width = 880, label_width = 300, value_width = 70, row = 26, top = 34, bottom = 28;
  const double plot_left = label_width + 16, plot_right = width - value_width;
  const double height = top + row * static_cast<double>(bars.size()) + bottom;
  auto x_of = [&](double percent) {
    return plot_left + (percent - axis_low) / (axis_high - axis_low) * (plot_right - plot_left);
  };

  std::string svg =
      svg_open(width, height, "Change of the summary metrics, head versus base, in percent, deciding first");
  svg += text_at(0, 16, "Change, head vs base: end-to-end metrics first, then the ops that changed most per step",
                 "start", k_ink, " font-weight=\"600\"");
  for (int t = 0; t <= ticks; ++t) {
    const double tick = axis_low + step * t;
    const double x = x_of(tick);
    svg += line_at(x, top - 4, x, height - bottom, std::abs(tick) < step / 2 ? k_ink : k_grid,
                   std::abs(tick) < step / 2 ? "" : " stroke-dasharray=\"2,3\"");
    svg += text_at(x, height - bottom + 16, std::abs(tick) < step / 2 ? "0" : percent_text(tick), "middle", k_muted);
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const ChangeBar& bar = bars[i];
    const double y = top + row * static_cast<double>(i);
    const double mid = y + row / 2;
    svg += "<g>\n<title>" +
           escape_html(bar.label + ": " + verdict_name(bar.metric->verdict) + ", change " + format_change(bar.ratio) +
                       ", base " + format_value(bar.metric->base_median, bar.metric->unit, bar.metric->resolution) +
                       ", head " + format_value(bar.metric->head_median, bar.metric->unit, bar.metric->resolution)) +
           "</title>\n";
    svg += text_at(label_width, mid + 4, cut_text(bar.label, 44), "end", k_ink);
    const char* colour = verdict_colour(bar.metric->verdict);
    if (!bar.ratio) {
      svg += text_at(x_of(0) + 6, mid + 4, "new in head", "start", colour, " font-style=\"italic\"");
      svg += "</g>\n";
      continue;
    }
    const double percent = (*bar.ratio - 1.0) * 100.0;
    const double shown = std::clamp(percent, -clamp, clamp);
    const double x0 = x_of(std::min(0.0, shown)), x1 = x_of(std::max(0.0, shown));
    svg += "<rect x=\"" + num(x0) + "\" y=\"" + num(y + 5) + "\" width=\"" + num(std::max(x1 - x0, 1.0)) +
           "\" height=\"" + num(row - 10) + "\" rx=\"2\" fill=\"" + colour + "\"/>\n";
    if (shown != percent) {
      const double xb = shown > 0 ? x1 - 6 : x0 + 6;
      svg += line_at(xb - 3, y + 3, xb + 3, y + row - 3, "#ffffff", " stroke-width=\"2\"");
    }
    // The value sits beyond the bar's end, or inside it (white) where the bar reaches the plot's edge.
    const bool right = shown >= 0;
    const bool inside = right ? plot_right - x1 < 48 : x0 - plot_left < 48;
    svg += text_at(right ? (inside ? x1 - 5 : x1 + 5) : (inside ? x0 + 5 : x0 - 5), mid + 4, format_change(bar.ratio),
                   right == inside ? "end" : "start", inside ? "#ffffff" : k_ink,
                   " font-variant-numeric=\"tabular-nums\"");
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

std::string svg_distribution(const MetricComparison& metric, std::size_t max_points) {
  if (metric.base_samples.empty() && metric.head_samples.empty()) {
    return "";
  }
  std::vector<double> base = metric.base_samples, head = metric.head_samples;
  std::sort(base.begin(), base.end());
  std::sort(head.begin(), head.end());
  double low = std::min(base.empty() ? head.front() : base.front(), head.empty() ? base.front() : head.front());
  double high = std::max(base.empty() ? head.back() : base.back(), head.empty() ? base.back() : head.back());
  if (high - low <= 0) {
    const double pad = low == 0 ? 1.0 : std::fabs(low) * 0.1;
    low -= pad;
    high += pad;
  }
  const double step = nice_step(high - low, 5);
  const double axis_low = std::floor(low / step) * step, axis_high = std::ceil(high / step) * step;
  const auto ticks = static_cast<int>(std::lround((axis_high - axis_low) / step));

  const double width = 880, label_width = 150, right_pad = 40, row = 30, top = 8, bottom = 26;
  const double plot_left = label_width, plot_right = width - right_pad;
  const double height = top + 2 * row + bottom;
  auto x_of = [&](double v) { return plot_left + (v - axis_low) / (axis_high - axis_low) * (plot_right - plot_left); };

  std::string svg = svg_open(width, height, "Distribution of " + metric.name + ", base versus head");
  for (int t = 0; t <= ticks; ++t) {
    const double tick = axis_low + step * t;
    const double x = x_of(tick);
    svg += line_at(x, top, x, top + 2 * row, k_grid, " stroke-dasharray=\"2,3\"");
    svg += text_at(x, height - 8, axis_value(std::abs(tick) < step / 1e6 ? 0.0 : tick, metric.unit), "middle", k_muted);
  }
  const std::vector<double>* sides[] = {&base, &head};
  const char* colours[] = {k_base_colour, verdict_colour(metric.verdict)};
  const char* names[] = {"base", "head"};
  for (std::size_t s = 0; s < 2; ++s) {
    const std::vector<double>& values = *sides[s];
    const double y = top + row * static_cast<double>(s), mid = y + row / 2;
    svg += text_at(8, mid + 4, std::string(names[s]) + "  n=" + std::to_string(values.size()), "start", k_ink);
    if (values.empty()) {
      svg += text_at(plot_left + 6, mid + 4, std::string("did not run on the ") + names[s] + " side", "start", k_muted,
                     " font-style=\"italic\"");
      continue;
    }
    const double q1 = quantile(values, 0.25), q2 = quantile(values, 0.5), q3 = quantile(values, 0.75);
    const std::size_t shown = std::min(values.size(), std::max<std::size_t>(max_points, 2));
    svg += "<g>\n<title>" +
           escape_html(std::string(names[s]) + ": median " + format_value(q2, metric.unit) + ", quartiles " +
                       format_value(q1, metric.unit) + " – " + format_value(q3, metric.unit) +
                       (shown < values.size()
                            ? ", " + std::to_string(shown) + " of " + std::to_string(values.size()) + " samples drawn"
                            : std::string())) +
           "</title>\n";
    svg += "<rect x=\"" + num(x_of(q1)) + "\" y=\"" + num(y + 4) + "\" width=\"" +
           num(std::max(x_of(q3) - x_of(q1), 1.0)) + "\" height=\"" + num(row - 8) + "\" fill=\"" + colours[s] +
           "\" fill-opacity=\"0.15\" stroke=\"" + colours[s] + "\" stroke-opacity=\"0.5\"/>\n";
    svg += "<g fill=\"" + std::string(colours[s]) + "\" fill-opacity=\"0.6\">";
    for (std::size_t i = 0; i < shown; ++i) {
      const std::size_t index = shown == values.size() ? i : i * (values.size() - 1) / (shown - 1);
      // Deterministic jitter: Knuth's multiplicative hash of the index.
      const std::uint32_t hash = static_cast<std::uint32_t>(index * 2654435761u);
      const double jitter = (static_cast<double>(hash % 1000) / 1000.0 - 0.5) * (row - 12);
      svg += "<circle cx=\"" + num(x_of(values[index])) + "\" cy=\"" + num(mid + jitter) + "\" r=\"2.5\"/>";
    }
    svg += "</g>\n";
    svg += line_at(x_of(q2), y + 2, x_of(q2), y + row - 2, colours[s], " stroke-width=\"3\"");
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace neuron_gate
