// `compare` of sides that hold several operating points (docs/user-guide.md "Operating points"): read each point,
// check its conditions, judge every point at once, build each point's report and the report above them.
#include "commands/compare_steps.hpp"

#include "compare/conditions.hpp"
#include "compare/cost.hpp"
#include "compare/operating_points.hpp"
#include "compare/rule_reach.hpp"
#include "report/markdown.hpp"
#include "report/points_report.hpp"
#include "report/provenance.hpp"
#include "store/digest_side.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace neuron_gate {
namespace {

// A point of one side, or nullptr where the side lacks it; by label, in label order.
struct PointFiles {
  const OperatingPointFiles* base = nullptr;
  const OperatingPointFiles* head = nullptr;
};

// A point's label for matching: the one it was given, else "unlabelled" (a one-point side whose manifest
// names no operating point).
std::string label_of(const OperatingPointFiles& point) {
  return point.label.empty() ? "unlabelled" : point.label;
}

// Labels in natural order: runs of digits compared as numbers ("4x512" before "16x2048").
struct NaturalOrder {
  bool operator()(const std::string& a, const std::string& b) const {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
        const std::size_t i0 = i, j0 = j;
        while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i])))
          ++i;
        while (j < b.size() && std::isdigit(static_cast<unsigned char>(b[j])))
          ++j;
        const std::string x = a.substr(i0, i - i0), y = b.substr(j0, j - j0);
        const std::string xs = x.substr(std::min(x.find_first_not_of('0'), x.size()));
        const std::string ys = y.substr(std::min(y.find_first_not_of('0'), y.size()));
        if (xs.size() != ys.size() || xs != ys) {
          return xs.size() != ys.size() ? xs.size() < ys.size() : xs < ys;
        }
      } else if (a[i] != b[j]) {
        return a[i] < b[j];
      } else {
        ++i, ++j;
      }
    }
    return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
  }
};

std::map<std::string, PointFiles, NaturalOrder> match_by_label(const std::vector<OperatingPointFiles>& base,
                                                               const std::vector<OperatingPointFiles>& head) {
  std::map<std::string, PointFiles, NaturalOrder> matched;
  for (const OperatingPointFiles& point : base) {
    matched[label_of(point)].base = &point;
  }
  for (const OperatingPointFiles& point : head) {
    matched[label_of(point)].head = &point;
  }
  return matched;
}

// Both sides of one point, read in parallel (read_sides); nullopt for a side without the point.
void read_point(const PointFiles& files, const TraceReadOptions& options, PointComparison& point) {
  std::vector<SideToRead> to_read;
  for (const auto& [label, side] : {std::pair{"base", files.base}, std::pair{"head", files.head}}) {
    if (side != nullptr) {
      to_read.push_back({label, &side->inventory});
    }
  }
  std::vector<std::optional<RecordedRepository>> recorded;
  std::vector<SideSamples> sides = load_sides(to_read, options, require_samples, &recorded);
  std::size_t next = 0;
  if (files.base != nullptr) {
    point.base_recorded = recorded[next];
    point.base = std::move(sides[next++]);
  }
  if (files.head != nullptr) {
    point.head_recorded = recorded[next];
    point.head = std::move(sides[next++]);
  }
}

// Every point read, priced, its conditions diffed and (when compared) base's noise estimated.
std::vector<PointComparison> read_points(const CompareOptions& options, const RuleSet& rules,
                                         const std::vector<OperatingPointFiles>& base_points,
                                         const std::vector<OperatingPointFiles>& head_points,
                                         std::vector<std::optional<Calibration>>& calibrations) {
  TraceReadOptions read_options;
  read_options.by_shape = options.by_shape;
  std::vector<std::string> allowed = rules.allow_mismatch;
  allowed.insert(allowed.end(), options.allow_mismatch.begin(), options.allow_mismatch.end());
  std::vector<PointComparison> points;
  for (const auto& [label, files] : match_by_label(base_points, head_points)) {
    PointComparison point;
    point.label = label;
    read_point(files, read_options, point);
    if (point.base) {
      require_rules_within_reach(*point.base, rules);
    }
    if (point.base && point.head) {
      point.warm_up = leave_out_warm_up_traces(*point.base, *point.head);
      add_cost_metrics(*point.base, *point.head, rules);
      point.conditions = diff_conditions(fingerprint_side(*point.base), fingerprint_side(*point.head), allowed);
    }
    set_point_status(point);
    calibrations.push_back(point.status == PointStatus::compared ? base_calibration(*point.base, rules) : std::nullopt);
    point.base_noise = base_noise(calibrations.back());
    points.push_back(std::move(point));
  }
  return points;
}

// The report of one point on both sides: its findings, provenance and wording, as a one-point compare.
Report point_report(const CompareOptions& options, const RuleSet& rules, const PointComparison& point,
                    const std::optional<Calibration>& calibration) {
  Findings findings = find_findings(*point.base, *point.head, point.conditions, point.judgement, rules);
  add_warm_up_screen(findings.open_hypotheses, point.warm_up);
  if (point.status == PointStatus::compared) {
    add_noise_findings(*point.base, *point.head, rules, point.judgement.metrics, calibration, findings.open_hypotheses);
  }
  Provenance provenance =
      collect_provenance(point.base->inventory, point.head->inventory, rules.source, applied_rules_json(rules));
  provenance.rules_from = options.rules_from;
  if (calibration) {
    provenance.noise_check = noise_check_of(*calibration);
  }
  add_git_state(options, {point.base->inventory, point.base->manifest, point.base_recorded},
                {point.head->inventory, point.head->manifest, point.head_recorded}, provenance,
                findings.open_hypotheses);
  return build_report(*point.base, *point.head, point.conditions, point.judgement, findings, rules,
                      std::move(provenance));
}

// Renders every requested report, then writes them (a rendering error leaves none half done).
void write_points_reports(const CompareOptions& options, const PointsReport& report, std::ostream& out) {
  const std::string markdown = render_points_markdown(report, k_comment_limit - 512, options.comment_key);
  std::vector<std::pair<const std::string*, std::string>> outputs;
  if (!options.json_path.empty()) {
    outputs.emplace_back(&options.json_path, render_points_json(report));
  }
  if (!options.html_path.empty()) {
    outputs.emplace_back(&options.html_path, render_points_html(report));
  }
  if (!options.junit_path.empty()) {
    outputs.emplace_back(&options.junit_path, render_points_junit(report));
  }
  if (!options.annotations_path.empty()) {
    outputs.emplace_back(&options.annotations_path, render_points_annotations(report));
  }
  if (!options.markdown_path.empty()) {
    outputs.emplace_back(&options.markdown_path, markdown);
  }
  for (const auto& [path, text] : outputs) {
    write_file_atomically(*path, text);
  }
  if (options.quiet && options.format != "none") {
    write_stream(out, render_points_verdict(report), "stdout");
    return;
  }
  if (options.quiet || options.format == "none" || (!options.markdown_path.empty() && options.format != "terminal")) {
    return;
  }
  write_stream(out, options.format == "terminal" ? render_points_terminal(report) : markdown, "stdout");
}

}  // namespace

int compare_points(const CompareOptions& options, const RuleSet& rules, const std::string& today_date,
                   const std::vector<OperatingPointFiles>& base_points,
                   const std::vector<OperatingPointFiles>& head_points, std::ostream& out) {
  std::vector<std::optional<Calibration>> calibrations;
  std::vector<PointComparison> points = read_points(options, rules, base_points, head_points, calibrations);
  DecideOptions decide_options;
  decide_options.strict = options.strict;
  decide_options.today = today_date;
  const PointsJudgement judged = judge_points(std::move(points), rules, decide_options);
  std::vector<std::optional<Report>> details;
  for (std::size_t i = 0; i < judged.points.size(); ++i) {
    const PointComparison& point = judged.points[i];
    details.push_back(point.base && point.head
                          ? std::optional<Report>(point_report(options, rules, point, calibrations[i]))
                          : std::nullopt);
  }
  const PointsReport report = build_points_report(judged, std::move(details), options.base, options.head, rules);
  write_points_reports(options, report, out);
  return report.decision.exit_code;
}

}  // namespace neuron_gate
