#include "report/report.hpp"

#include "profile/ranks.hpp"
#include "report/escape.hpp"
#include "report/number_format.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace neuron_gate {
namespace {

// A data string in the report's prose: escaped by each renderer (escape.hpp prose_*).
std::string code(const std::string& name) { return prose_code(name); }

std::string data(const std::string& value) { return prose_text(value); }

std::string class_label(MetricClass metric_class) {
  return metric_class_label(metric_class);
}

// The metric's name with its class, without saying "step time" twice.
std::string metric_label(const MetricComparison& m) {
  if (m.metric_class == MetricClass::step_time) {
    return "profiled step time" + (m.ranked ? " of " + rank_name(m.rank) : std::string());
  }
  return code(m.name) + " " + class_label(m.metric_class);
}

std::string count_of(std::size_t n, const std::string& singular, const std::string& plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string join(const std::vector<std::string>& items, std::size_t most, const std::string& separator = ", ") {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) {
    text += (i == 0 ? "" : separator) + items[i];
  }
  if (items.size() > most) {
    text += separator + "and " + std::to_string(items.size() - most) + " more";
  }
  return text;
}

std::optional<double> median_change(const MetricComparison& m) {
  if (m.head_median && m.base_median) {
    return *m.head_median - *m.base_median;
  }
  return m.head_median ? m.head_median : (m.base_median ? std::optional<double>(-*m.base_median) : std::nullopt);
}

double absolute_change(const MetricComparison& m) {
  const auto change = median_change(m);
  return change ? std::fabs(*change) : 0.0;
}

std::string signed_us(double us) {
  if (std::fabs(us) < k_timer_resolution_us) {
    return format_duration_us(std::fabs(us));  // "0 µs" or "< 1 µs": no sign below the resolution
  }
  return (us >= 0 ? "+" : "-") + format_duration_us(std::fabs(us));
}

SideFacts side_facts(const SideSamples& side, std::size_t drop_first) {
  SideFacts facts;
  facts.traces = side.traces.size();
  facts.steps = sample_steps(side, drop_first).size();
  std::map<std::string, Nanoseconds> negative;
  for (const TraceSamples& trace : side.traces) {
    facts.events += trace.event_count;
    for (const auto& [name, values] : trace.outside_steps.ops) {
      facts.outside_step_events += values.calls;
    }
    facts.negative_duration_events += trace.problems.negative_duration_events;
    facts.unfinished_events += trace.problems.unfinished_events;
    for (const auto& [name, ns] : trace.problems.negative_self_time) {
      auto [it, inserted] = negative.emplace(name, ns);
      if (!inserted) {
        it->second = std::min(it->second, ns);
      }
    }
  }
  for (const auto& [name, ns] : negative) {
    facts.negative_self_time.push_back(code(name) + " (down to " + format_duration_us(static_cast<double>(ns) / 1000.0) + ")");
  }
  return facts;
}

// First trace of each folder (a run) far slower than the others: the profiler's warm-up.
std::optional<std::string> warm_up_pattern(const SideSamples& side) {
  std::map<std::string, std::vector<double>> runs;
  for (const TraceSamples& trace : side.traces) {
    const std::string folder = trace.path.substr(0, trace.path.find_last_of('/') + 1);
    if (!trace.steps.empty()) {
      runs[folder].push_back(static_cast<double>(trace.steps.front().duration_ns));
    }
  }
  std::vector<double> first, rest;
  for (const auto& [folder, steps] : runs) {
    if (steps.size() < 2) {
      continue;
    }
    first.push_back(steps.front());
    rest.insert(rest.end(), steps.begin() + 1, steps.end());
  }
  // Within single traces of several steps: the first step against the others.
  std::vector<double> first_step, later_steps;
  for (const TraceSamples& trace : side.traces) {
    if (trace.steps.size() >= 3) {
      first_step.push_back(static_cast<double>(trace.steps.front().duration_ns));
      for (std::size_t i = 1; i < trace.steps.size(); ++i) {
        later_steps.push_back(static_cast<double>(trace.steps[i].duration_ns));
      }
    }
  }
  auto median_of = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  };
  if (first.size() >= 2 && rest.size() >= 2) {
    const double ratio = median_of(first) / median_of(rest);
    if (ratio >= 1.5) {
      return "the first trace of each run folder has a step " + format_significant(ratio, 2) +
             "x as long as the later ones (warm-up: profiler start-up lands in the first profiling cycle). Test: "
             "compare without each folder's first trace, or profile with a longer schedule warm-up, and see "
             "whether the verdicts hold";
    }
  }
  if (first_step.size() >= 1 && later_steps.size() >= 2) {
    const double ratio = median_of(first_step) / median_of(later_steps);
    if (ratio >= 1.5) {
      return "the first step of each trace is " + format_significant(ratio, 2) +
             "x as long as the later ones (warm-up). Test: rerun with `\"drop_first_steps\": 1` in the rules and see "
             "whether the verdicts hold";
    }
  }
  return std::nullopt;
}

void interpret(Report& report, const SideSamples& base, const SideSamples& head) {
  std::vector<std::string>& lines = report.interpretations;
  const RuleSet& rules = report.rules;
  if (report.outcome == Outcome::not_comparable) {
    std::vector<std::string> differing;
    for (const ConditionRow& row : report.conditions.rows) {
      if (!row.matches && !row.accepted) {
        differing.push_back(data(row.name) + " (base: " + data(row.base) + "; head: " + data(row.head) + ")");
      }
    }
    lines.push_back("NOT COMPARABLE: the conditions held fixed differ in " + join(differing, 10, "; ") +
                    ". No metric is judged; rerun both sides with the same settings, or accept a difference with "
                    "`--allow-mismatch NAME` if it is intended.");
    return;
  }

  std::vector<std::string> gating;
  for (MetricClass c : report.decision.gating_classes) {
    gating.push_back(c == MetricClass::end_to_end ? "end-to-end metrics" : class_label(c) + " per op");
  }
  const bool have_end_to_end = std::any_of(report.metrics.begin(), report.metrics.end(), [](const MetricComparison& m) {
    return m.metric_class == MetricClass::end_to_end && !m.explanatory;
  });
  lines.push_back("Gate: " + (gating.empty() ? std::string("no metric class") : join(gating, 4, " and ")) +
                  " decide" + (have_end_to_end ? " (end-to-end numbers are present; per-op findings explain them)"
                                               : " (no end-to-end numbers in the profiles)") +
                  ", " + correction_name(rules.correction) + " correction at alpha " + format_number(rules.alpha) + ".");

  for (const MetricComparison& m : report.metrics) {
    if (!m.gating) {
      continue;
    }
    const std::string what = code(m.name) + " (" + class_label(m.metric_class) + ")";
    if (m.verdict == Verdict::regressed) {
      lines.push_back(what + " REGRESSED: " + format_ratio(m.ratio) + " of base, 95% CI " +
                      format_ratio_interval(m.ratio_low, m.ratio_high) + ", beyond the " +
                      format_change(1.0 + m.threshold) + " threshold; adjusted p " + format_p(m.p_worse_adjusted) +
                      (m.waiver ? "; waived: " + data(*m.waiver) : std::string()) + ". [Measurements: " + code(m.name) + "]");
    } else if (m.verdict == Verdict::improved) {
      lines.push_back(what + " IMPROVED: " + format_ratio(m.ratio) + " of base, 95% CI " +
                      format_ratio_interval(m.ratio_low, m.ratio_high) + ". [Measurements: " + code(m.name) + "]");
    } else if (m.verdict == Verdict::equivalent && m.metric_class == MetricClass::end_to_end) {
      std::string line = what + " EQUIVALENT: " + format_change(m.ratio) + " (95% CI " +
                         format_ratio_interval(m.ratio_low, m.ratio_high) + ") lies within ±" +
                         format_change(1.0 + m.threshold).substr(1);
      if (m.p_worse_adjusted && *m.p_worse_adjusted <= rules.alpha) {
        line += "; the change is real (adjusted p " + format_p(m.p_worse_adjusted) +
                ") but smaller than the threshold, so it does not fail the gate";
      }
      lines.push_back(line + ". [Measurements: " + code(m.name) + "]");
    }
  }

  // Per-op regressions that do not gate: the explanation.
  std::vector<std::string> op_regressions;
  std::vector<const MetricComparison*> ops_by_change;
  for (const MetricComparison& m : report.metrics) {
    if ((m.metric_class == MetricClass::self_cpu || m.metric_class == MetricClass::device) && !m.gating &&
        m.verdict == Verdict::regressed) {
      ops_by_change.push_back(&m);
    }
  }
  std::stable_sort(ops_by_change.begin(), ops_by_change.end(),
                   [](const MetricComparison* a, const MetricComparison* b) { return absolute_change(*a) > absolute_change(*b); });
  for (const MetricComparison* m : ops_by_change) {
    op_regressions.push_back(code(m->name) + " " + class_label(m->metric_class) + " " +
                             format_duration_us(m->base_median) + " → " + format_duration_us(m->head_median) +
                             " per step (" + format_ratio(m->ratio) + ")");
  }
  if (!op_regressions.empty()) {
    lines.push_back("Per-op regressions beyond their threshold (they explain, the gate is decided above): " +
                    join(op_regressions, 8, "; ") + ". [Measurements: per-op tables]");
  }

  // Neuron device summary measures that explain (engine active times; device total time beside the
  // application's own end-to-end numbers).
  std::vector<std::string> device_changes;
  for (const MetricComparison& m : report.metrics) {
    if (m.explanatory && !m.gating && (m.verdict == Verdict::regressed || m.verdict == Verdict::improved)) {
      device_changes.push_back(code(m.name) + " " + verdict_name(m.verdict) + " " + format_number(m.base_median) +
                               " → " + format_number(m.head_median) + " " + data(m.unit) + " (" + format_ratio(m.ratio) + ")");
    }
  }
  if (!device_changes.empty()) {
    lines.push_back("Neuron device summary (explains; not gating): " + join(device_changes, 8, "; ") +
                    ". [Measurements: end-to-end table]");
  }

  // Structural changes, read together.
  std::vector<std::string> gone, appeared, calls;
  std::vector<std::pair<double, std::string>> appeared_by_time;
  for (const MetricComparison& m : report.metrics) {
    if (m.metric_class != MetricClass::self_cpu) {
      continue;
    }
    if (!m.present_in_head) {
      gone.push_back(code(m.name));
    } else if (!m.present_in_base) {
      appeared.push_back(code(m.name));
      appeared_by_time.emplace_back(m.head_median.value_or(0), m.name);
    } else if (m.calls_changed) {
      std::ostringstream text;
      text << code(m.name) << " " << format_number(m.base_calls) << " → " << format_number(m.head_calls);
      calls.push_back(text.str());
    }
  }
  if (!gone.empty() && !appeared.empty()) {
    std::stable_sort(appeared_by_time.begin(), appeared_by_time.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    lines.push_back("Structural change, read together: " + count_of(gone.size(), "op no longer runs", "ops no longer run") +
                    " (" + join(gone, 12) + ") and " + count_of(appeared.size(), "new op runs", "new ops run") + " (" +
                    join(appeared, 12) + "): the separate ops were replaced by " + join(appeared, 12, " + ") +
                    " (largest self CPU time: " + code(appeared_by_time.front().second) +
                    "). [Measurements: STRUCTURAL rows]");
  } else if (!gone.empty()) {
    lines.push_back("Structural change: " + count_of(gone.size(), "op no longer runs", "ops no longer run") + ": " +
                    join(gone, 12) + ". [Measurements: STRUCTURAL rows]");
  } else if (!appeared.empty()) {
    lines.push_back("Structural change: " + count_of(appeared.size(), "new op runs", "new ops run") + ": " +
                    join(appeared, 12) + ". [Measurements: STRUCTURAL rows]");
  }
  if (!calls.empty()) {
    lines.push_back("Calls per step changed (median, base → head): " + join(calls, 12) +
                    ". [Measurements: calls columns]");
  }

  // Where the step time went.
  const MetricComparison* step = nullptr;
  const MetricComparison* latency = nullptr;
  for (const MetricComparison& m : report.metrics) {
    // Per rank: the rank whose step time changed most, read with that rank's ops only.
    if (m.metric_class == MetricClass::step_time &&
        (step == nullptr || std::fabs(m.ratio.value_or(1.0) - 1.0) > std::fabs(step->ratio.value_or(1.0) - 1.0))) {
      step = &m;
    }
    if (m.metric_class == MetricClass::end_to_end && m.better == Better::lower && latency == nullptr) {
      latency = &m;
    }
  }
  if (step != nullptr && step->base_median && step->head_median) {
    double cpu_total = 0, device_total = 0;
    std::vector<std::pair<double, std::string>> contributions;
    for (const MetricComparison& m : report.metrics) {
      if ((m.metric_class != MetricClass::self_cpu && m.metric_class != MetricClass::device) || m.rank != step->rank) {
        continue;
      }
      const double change = median_change(m).value_or(0);
      (m.metric_class == MetricClass::self_cpu ? cpu_total : device_total) += change;
      contributions.emplace_back(change, code(m.name) + (m.metric_class == MetricClass::device ? " (device)" : ""));
    }
    std::stable_sort(contributions.begin(), contributions.end(),
                     [](const auto& a, const auto& b) { return std::fabs(a.first) > std::fabs(b.first); });
    std::vector<std::string> top;
    for (const auto& [change, name] : contributions) {
      if (top.size() == 5 || std::fabs(change) < rules.floor_us) {
        break;
      }
      top.push_back(name + " " + signed_us(change));
    }
    std::string line = "Profiled step time" + (step->ranked ? " of " + rank_name(step->rank) + ":" : std::string()) + " " +
                       format_duration_us(step->base_median) + " → " +
                       format_duration_us(step->head_median) + " (" + format_ratio(step->ratio) + ", " +
                       verdict_name(step->verdict) + ", not gating by default). Summed median per-op changes: self CPU " +
                       signed_us(cpu_total) + " per step";
    const bool have_device = std::any_of(report.metrics.begin(), report.metrics.end(),
                                         [](const MetricComparison& m) { return m.metric_class == MetricClass::device; });
    if (have_device) {
      line += ", device " + signed_us(device_total);
      if (cpu_total > rules.floor_us && std::fabs(device_total) < rules.floor_us) {
        line += " — CPU up with device flat reads as dispatch / host overhead";
      }
    }
    line += top.empty() ? "." : "; largest: " + join(top, 5, ", ") + ".";
    lines.push_back(line + " [Measurements: step time, per-op tables]");

    if (latency != nullptr && step->ratio && latency->ratio) {
      const bool step_faster = *step->ratio < 1.0;
      const bool latency_slower = *latency->ratio > 1.0 + latency->threshold;
      const bool step_slower = *step->ratio > 1.0;
      const bool latency_faster = *latency->ratio < 1.0 - latency->threshold;
      if ((step_faster && latency_slower) || (step_slower && latency_faster)) {
        lines.push_back("Profiled step time (" + format_ratio(step->ratio) + ") and un-profiled " + code(latency->name) +
                        " (" + format_ratio(latency->ratio) + ") disagree: profiler overhead grows with the number of "
                        "ops, so a change in op count distorts profiled step time; the end-to-end number is the "
                        "measurement of the application. [Measurements: " + code(latency->name) + ", step time]");
      }
    }
  }
  (void)base;
  (void)head;
}

void hypothesize(Report& report, const SideSamples& base, const SideSamples& head) {
  std::vector<std::string>& lines = report.open_hypotheses;
  const RuleSet& rules = report.rules;
  if (report.outcome == Outcome::not_comparable) {
    return;
  }
  // Differences accepted with --allow-mismatch or the rules' allow_mismatch: the verdicts rest on them.
  for (const ConditionRow& row : report.conditions.rows) {
    if (!row.matches && row.accepted) {
      lines.push_back("Accepted difference in " + code(row.name) + " (base: " + data(row.base) + "; head: " +
                      data(row.head) + "): the verdicts assume it does not change what is measured. Test: profile "
                      "both sides with the same " + data(row.name) + " and see whether the verdicts hold.");
    }
  }
  // Undecided gating metrics.
  std::size_t gating_total = 0, insufficient = 0, inconclusive = 0;
  std::size_t needed = 0;
  std::size_t nb = 0, nh = 0;
  for (const MetricComparison& m : report.metrics) {
    if (!m.gating) {
      continue;
    }
    ++gating_total;
    if (m.verdict == Verdict::insufficient) {
      ++insufficient;
      needed = std::max(needed, m.samples_needed.value_or(0));
      nb = m.base_samples.size();
      nh = m.head_samples.size();
    } else if (m.verdict == Verdict::inconclusive) {
      ++inconclusive;
    }
  }
  if (insufficient > 0) {
    lines.push_back(std::to_string(insufficient) + " of " + std::to_string(gating_total) +
                    " gating metrics are INSUFFICIENT: with " + std::to_string(nb) + " vs " + std::to_string(nh) +
                    " samples no outcome can pass the corrected alpha. Test: capture at least " + std::to_string(needed) +
                    " samples per side (more active steps in the profiler schedule, or more runs).");
  }
  std::vector<std::string> undecided;
  for (const MetricComparison& m : report.metrics) {
    if (m.verdict == Verdict::inconclusive && (m.gating || m.metric_class == MetricClass::step_time)) {
      std::string text = metric_label(m) + " " + format_ratio(m.ratio) + " (CI " +
                         format_ratio_interval(m.ratio_low, m.ratio_high) + ")";
      if (m.minimum_detectable_ratio) {
        text += ", smallest change detectable at this noise " + format_change(m.minimum_detectable_ratio);
      }
      undecided.push_back(text);
    }
  }
  if (!undecided.empty()) {
    lines.push_back("Not established (INCONCLUSIVE): " + join(undecided, 6, "; ") +
                    ". Test: more samples per side, or a quieter machine.");
  }
  // One run per side: steps are not independent runs.
  if (base.traces.size() == 1 || head.traces.size() == 1) {
    lines.push_back("A side is a single trace (base " + count_of(base.traces.size(), "trace", "traces") + ", head " +
                    count_of(head.traces.size(), "trace", "traces") + "): its steps share one process, so run-to-run "
                    "variation (data loading, clocks, memory placement) is not sampled, and a change of profiled step "
                    "time between such runs is not established. Test: profile at least 3 runs per side.");
  }
  // Worth a look (Benjamini–Hochberg), not failing.
  std::vector<std::string> worth;
  for (const MetricComparison& m : report.metrics) {
    if (m.verdict != Verdict::regressed && m.verdict != Verdict::improved && m.q_value && *m.q_value <= rules.alpha &&
        m.ratio && std::fabs(*m.ratio - 1.0) >= m.threshold && m.metric_class != MetricClass::end_to_end) {
      worth.push_back(metric_label(m) + " " + format_ratio(m.ratio) + " (q " +
                      format_p(m.q_value) + ")");
    }
  }
  if (!worth.empty()) {
    lines.push_back("Worth a look (Benjamini–Hochberg q ≤ alpha, not failing): " + join(worth, 6, "; ") + ".");
  }
  // Device-side causes.
  for (const MetricComparison& m : report.metrics) {
    if (m.metric_class == MetricClass::device && m.verdict == Verdict::regressed) {
      lines.push_back("Device time of " + code(m.name) + " grew " + format_change(m.ratio) +
                      ": open this op's kernels in Neuron Explorer (or the vendor's device profiler) on both sides "
                      "to see which engine or DMA queue took longer.");
    }
  }
  // Warm-up.
  for (const SideSamples* side : {&base, &head}) {
    if (auto pattern = warm_up_pattern(*side)) {
      lines.push_back(side->label + ": " + *pattern + ".");
    }
  }
  // Conditions the data could not show.
  bool any_shapes = false;
  for (const SideSamples* side : {&base, &head}) {
    any_shapes = any_shapes || !side->table_input_shapes.empty();
    for (const TraceSamples& trace : side->traces) {
      any_shapes = any_shapes || !trace.input_shapes.empty();
    }
  }
  if (!any_shapes && (!base.traces.empty() || !head.traces.empty())) {
    lines.push_back("Inputs (shapes, dtypes) were not verified: the traces carry no `Input Dims` and no by-shape "
                    "`key_averages` table was found. Test: profile with `record_shapes=True`, save "
                    "`key_averages(group_by_input_shape=True)` beside each trace, or add a run manifest.");
  }
  // Data problems.
  for (const auto* facts : {&report.base_facts, &report.head_facts}) {
    const std::string side = facts == &report.base_facts ? "base" : "head";
    if (!facts->negative_self_time.empty()) {
      lines.push_back(side + ": negative self CPU times in the trace itself (" + join(facts->negative_self_time, 5) +
                      "), a known artefact of older PyTorch where a child outlives its parent; kept in the sums as "
                      "PyTorch's own table does.");
    }
    if (facts->unfinished_events > 0 || facts->negative_duration_events > 0) {
      lines.push_back(side + ": " + std::to_string(facts->unfinished_events) + " unfinished events (dur -1) and " +
                      std::to_string(facts->negative_duration_events) +
                      " events with a negative duration were excluded from every sum. Test: check that the "
                      "profiler stopped cleanly (synchronize the device before the profiler stops).");
    }
  }
}

} // namespace

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
  case Outcome::pass:
    return "PASS";
  case Outcome::regression:
    return "REGRESSION";
  case Outcome::not_comparable:
    return "NOT COMPARABLE";
  case Outcome::inconclusive:
    return "INCONCLUSIVE";
  }
  return "PASS";
}

std::vector<const MetricComparison*> ranked_metrics(const Report& report, MetricClass metric_class) {
  std::vector<const MetricComparison*> ranked;
  for (const MetricComparison& m : report.metrics) {
    if (m.metric_class == metric_class) {
      ranked.push_back(&m);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const MetricComparison* a, const MetricComparison* b) {
    return absolute_change(*a) > absolute_change(*b);
  });
  return ranked;
}

Report build_report(const SideSamples& base, const SideSamples& head, ConditionsDiff conditions,
                    std::vector<MetricComparison> metrics, Decision decision, RuleSet rules, Provenance provenance) {
  Report report;
  report.outcome = decision.outcome;
  report.decision = std::move(decision);
  report.conditions = std::move(conditions);
  report.metrics = std::move(metrics);
  report.rules = std::move(rules);
  report.provenance = std::move(provenance);
  add_read_details(report.provenance, base, head);
  report.base_facts = side_facts(base, report.rules.drop_first_steps);
  report.head_facts = side_facts(head, report.rules.drop_first_steps);

  static const char* const emoji[] = {"✅", "❌", "", "⛔", "⚠️"};
  std::string line = std::string(emoji[static_cast<int>(report.outcome)]) + " " + outcome_name(report.outcome);
  if (report.outcome == Outcome::not_comparable) {
    std::size_t differing = 0;
    for (const ConditionRow& row : report.conditions.rows) {
      differing += (!row.matches && !row.accepted) ? 1 : 0;
    }
    line += " · " + std::to_string(differing) + (differing == 1 ? " condition differs" : " conditions differ");
  } else {
    static const std::pair<Verdict, const char*> order[] = {
        {Verdict::regressed, "regressed"},       {Verdict::improved, "improved"},
        {Verdict::structural, "structural"},     {Verdict::equivalent, "equivalent"},
        {Verdict::inconclusive, "inconclusive"}, {Verdict::insufficient, "insufficient (too few samples to decide)"}};
    for (const auto& [verdict, word] : order) {
      auto it = report.decision.counts.find(verdict);
      if (it != report.decision.counts.end() && it->second > 0) {
        line += " · " + std::to_string(it->second) + " " + word;
      }
    }
  }
  report.verdict_line = line;
  interpret(report, base, head);
  hypothesize(report, base, head);
  return report;
}

} // namespace neuron_gate
