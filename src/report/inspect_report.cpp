#include "report/inspect_report.hpp"

#include "compare/metric_comparison.hpp"
#include "compare/op_stream.hpp"
#include "compare/side_view.hpp"
#include "profile/device_capture.hpp"
#include "profile/op_keys.hpp"
#include "profile/ranks.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "stats/descriptive.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

namespace neuron_gate {
namespace {

// Every string from the profile (or a digest of it) is hostile (escape.hpp): names as code spans
// (markdown_code), other data as one line of Markdown-escaped text whose backtick pairs stay code spans
// (markdown_spans), so a crafted field cannot make a link, an image, a mention or an HTML comment.
std::string text(const std::string& data) {
  return markdown_spans(data, false);
}

void files_section(const SideSamples& side, std::ostream& out) {
  out << "\n## Files\n\n";
  for (const DiscoveredFile& file : side.inventory.files) {
    out << "- " << markdown_code(file.relative_path, false) << " (" << file.size_bytes
        << " bytes): " << file_kind_name(file.kind);
    if (!file.ignored_reason.empty()) {
      out << " — " << text(file.ignored_reason);
    }
    if (const auto detail = side.file_details.find(file.relative_path); detail != side.file_details.end()) {
      out << " (" << text(detail->second) << ")";
    }
    if (!file.outside_link.empty()) {
      out << " — reached through a link leading outside the profile: " << markdown_code(file.outside_link, false);
    }
    out << "\n";
  }
  if (side.inventory.names_with_invalid_utf8 > 0) {
    out << "\n"
        << side.inventory.names_with_invalid_utf8
        << " file or folder name(s) hold invalid UTF-8: shown with U+FFFD in their place\n";
  }
}

// The rank of each trace, shown by its path relative to the profile (as under Files).
void ranks_section(const SideSamples& side, std::ostream& out) {
  if (distinct_ranks(side.traces).size() <= 1 &&
      std::none_of(side.traces.begin(), side.traces.end(), [](const TraceSamples& t) { return t.rank.has_value(); })) {
    return;
  }
  out << "\n## Ranks\n\n";
  for (const TraceSamples& trace : side.traces) {
    std::string shown = trace.path;
    for (const DiscoveredFile& file : side.inventory.files) {
      shown = file.path == trace.path ? file.relative_path : shown;
    }
    out << "- " << markdown_code(shown, false) << ": " << text(rank_name(trace.rank))
        << (trace.rank_source.empty() ? std::string() : " (from " + text(trace.rank_source) + ")") << "\n";
  }
}

void captures_section(const SideSamples& side, std::ostream& out) {
  if (side.neuron.captures.empty()) {
    return;
  }
  out << "\n## Neuron captures\n\n";
  for (const NeuronCapture& capture : side.neuron.captures) {
    out << "- " << markdown_code(capture.folder, false);
    if (capture.rank) {
      out << " (process " << capture.rank->pid << " on " << text(capture.rank->instance_id) << ")";
    }
    out << ": " << capture.neffs.size() << " NEFF, " << capture.ntffs.size() << " NTFF, "
        << capture.framework_traces.size() << " framework trace" << (capture.framework_traces.size() == 1 ? "" : "s")
        << (capture.problems.empty() ? ", complete" : "") << "\n";
    for (const std::string& problem : capture.problems) {
      out << "  - problem: " << text(problem) << "\n";
    }
  }
}

// The unverified readings (NEURON-FORMATS.md) the result rests on.
void assumptions_section(const SideSamples& side, std::ostream& out) {
  std::vector<std::string> assumptions = side.neuron.assumptions;
  for (std::string& assumption : rank_assumptions(side.traces)) {
    assumptions.push_back(std::move(assumption));
  }
  if (!side.neuron.captures.empty()) {
    assumptions.push_back("NEFF, NTFF and .pb files are opaque: only their names and sizes are checked; device time "
                          "comes from device events in the trace (TorchNeuron's trace.json may hold none) or from a "
                          "neuron-explorer summary");
  }
  if (assumptions.empty()) {
    return;
  }
  out << "\n## Assumptions\n\nNeuron details that NEURON-FORMATS.md marks unverified, and how they were read:\n\n";
  for (const std::string& assumption : assumptions) {
    out << "- " << text(assumption) << "\n";
  }
}

void data_problems_section(const SideSamples& side, std::ostream& out) {
  out << "\n## Data problems\n\n";
  bool any_problem = false;
  std::int64_t outside = 0;
  for (const TraceSamples& trace : side.traces) {
    for (const auto& [op, values] : trace.outside_steps.ops) {
      outside += values.calls;
    }
    const TraceDataProblems& p = trace.problems;
    if (!p.negative_self_time.empty()) {  // unfinished and negative-duration events are listed data problems
      any_problem = true;
      out << "- " << markdown_code(trace.path, false) << ": negative self time in the trace itself, kept";
      for (const auto& [name, ns] : p.negative_self_time) {
        out << "; " << markdown_code(name, false) << " " << format_duration_us(to_us(ns));
      }
      out << "\n";
    }
  }
  for (const DataProblem& problem : side.data_problems) {
    any_problem = true;
    out << "- " << text(data_problem_line(problem)) << "\n";
  }
  for (const std::string& warning : side.read_warnings) {
    any_problem = true;
    out << "- " << text(warning) << "\n";
  }
  if (!any_problem) {
    out << "None found.\n";
  }
  out << "\n" << outside << " op calls started outside every ProfilerStep window (counted, never compared).\n";
}

void end_to_end_lines(const SideSamples& side, std::ostream& out) {
  for (const EndToEndMetric& metric : side.end_to_end) {
    out << "\nEnd-to-end " << markdown_code(metric.name, false) << ": " << metric.samples.size() << " samples, median "
        << format_significant(median(metric.samples), 4) << " " << text(metric.unit) << " ("
        << (metric.better == Better::lower ? "lower" : "higher") << " is better)\n";
  }
}

// Device time of the steps and the share attributed to an op, the rest by category.
void device_share_line(const std::vector<SampleStep>& steps, std::ostream& out) {
  Nanoseconds device = 0, unattributed = 0;
  std::map<std::string, Nanoseconds> by_category;
  for (const auto& [trace, step_of_trace] : steps) {
    const StepSample& step = *step_of_trace;
    for (const auto& [name, ns] : step.device_kernels) {
      device += ns;
    }
    unattributed += step.unattributed_device_ns;
    for (const auto& [category, ns] : step.unattributed_by_category) {
      by_category[category] += ns;
    }
  }
  if (device <= 0) {
    return;
  }
  out << "\nDevice time: " << format_duration_us(to_us(device)) << " in " << steps.size() << " steps, "
      << format_significant(100.0 * static_cast<double>(device - unattributed) / static_cast<double>(device), 4)
      << "% attributed to an op";
  for (const auto& [category, ns] : by_category) {
    out << "; not attributed (" << text(category) << "): " << format_duration_us(to_us(ns));
  }
  out << "\n";
}

// Calls visit(name, series) for each op some of `steps` ran, in key order, with its values per step (0 where
// a step did not run it): compare's OpStream, keeping every op (no rules).
template <class Visit>
void for_each_op(const std::vector<SampleStep>& steps, Visit visit) {
  const std::vector<SampleStep> none;
  RuleSet keep_all;
  keep_all.ignore.clear();
  OpStream stream({StepGroup{&steps, &none}}, keep_all);
  OpSeries series, unused;
  while (stream.next()) {
    stream.series(0, series, unused);
    if (series.present) {
      visit(stream.name(), series);
    }
  }
}

void ops_section(const SideSamples& side, std::ostream& out) {
  const std::vector<SampleStep> steps = sample_steps(side, 0);
  device_share_line(steps, out);
  out << "\n## Ops (median per step over " << steps.size() << " steps)\n\n";
  // No device column where no trace holds device time (issue 38 item 7: a column of 0 µs on CPU-only profiles).
  const bool any_device = std::any_of(side.traces.begin(), side.traces.end(),
                                      [](const TraceSamples& trace) { return trace.has_device_events; }) ||
                          side.screened.kept_device_ns > 0;
  out << (any_device ? "| op | self CPU | device | calls | steps with the op |\n|---|--:|--:|--:|--:|\n"
                     : "| op | self CPU | calls | steps with the op |\n|---|--:|--:|--:|\n");
  for_each_op(steps, [&](std::string_view name, const OpSeries& op) {
    out << "| " << markdown_code(std::string(name), true) << " | " << format_duration_us(median(op.self_cpu_us))
        << " | " << (any_device ? format_duration_us(median(op.device_us)) + " | " : std::string())
        << format_significant(median(op.calls), 3) << " | " << op.steps_present << " |\n";
  });
}

// What was understood, in a few lines, before any detail (issue 41 item 4): files read by kind and
// ignored, traces, sample steps and ops, end-to-end metrics, conditions and data problems. The file list
// comes last.
void summary_section(const SideSamples& side, const Fingerprint& fingerprint, std::ostream& out) {
  std::map<std::string, std::size_t> kinds;  // kind name -> files read
  std::size_t read = 0, ignored = 0;
  for (const DiscoveredFile& file : side.inventory.files) {
    if (file.kind == FileKind::ignored) {
      ++ignored;
    } else {
      ++read;
      ++kinds[file_kind_name(file.kind)];
    }
  }
  out << "\n## Summary\n\n- Files: " << read << " read";
  std::string by_kind;
  for (const auto& [kind, count] : kinds) {
    by_kind += (by_kind.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
  }
  out << (by_kind.empty() ? "" : " (" + by_kind + ")") << ", " << ignored << " ignored"
      << (side.inventory.files.empty() ? "" : " — each listed under Files, at the end") << "\n";
  const std::vector<SampleStep> steps = sample_steps(side, 0);
  std::size_t ops = 0;
  for_each_op(steps, [&ops](std::string_view, const OpSeries&) { ++ops; });
  out << "- Traces: " << side.traces.size() << ", " << steps.size() << " sample steps, " << ops
      << " distinct ops in them\n";
  out << "- End-to-end metrics: ";
  if (side.end_to_end.empty()) {
    out << "none";
  }
  for (std::size_t i = 0; i < side.end_to_end.size(); ++i) {
    out << (i ? ", " : "") << markdown_code(side.end_to_end[i].name, false) << " (" << side.end_to_end[i].samples.size()
        << " samples)";
  }
  std::size_t problems = side.data_problems.size() + side.read_warnings.size();
  for (const TraceSamples& trace : side.traces) {
    problems += trace.problems.negative_self_time.empty() ? std::size_t{0} : std::size_t{1};
  }
  out << "\n- Conditions: " << fingerprint.values.size() << " known (the fingerprint below)"
      << (fingerprint.has_manifest ? ", with a run manifest" : ", no run manifest")
      << "\n- Data problems: " << (problems == 0 ? std::string("none") : std::to_string(problems) + " (listed below)")
      << "\n";
}

}  // namespace

std::string render_inspect(const std::string& profile_spec, const SideSamples& side, const Fingerprint& fingerprint) {
  std::ostringstream out;
  out << "# neuron-gate inspect " << markdown_code(profile_spec, false) << "\n";
  summary_section(side, fingerprint, out);
  out << "\n## Conditions (fingerprint)\n\n";
  for (const auto& [name, value] : fingerprint.values) {
    out << "- " << text(name) << ": " << text(value) << "\n";
  }
  if (!side.traces.empty()) {  // runs: the folders holding traces (compare/side_view.hpp), process folders included
    out << "- runs: " << side_runs(side).size() << "\n";
  }
  if (const std::string sign = device_capture_sign(side); !sign.empty()) {
    out << "- device activity captured: " << text(sign)
        << (device_time_unknown(side) ? " (but no device time: compare cannot judge the device's share)" : "") << "\n";
  }
  ranks_section(side, out);
  captures_section(side, out);
  assumptions_section(side, out);
  data_problems_section(side, out);
  end_to_end_lines(side, out);
  ops_section(side, out);
  files_section(side, out);
  return out.str();
}

}  // namespace neuron_gate
