#include "report/report.hpp"

#include "report/number_format.hpp"
#include "util/text.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <cmath>

namespace neuron_gate {
SideFacts side_facts(const SideSamples& side, std::size_t drop_first) {
  SideFacts facts;
  facts.traces = side.traces.size();
  facts.steps = sample_steps(side, drop_first).size();
  for (const TraceSamples& trace : side.traces) {
    facts.events += trace.event_count;
    for (const auto& [op, values] : trace.outside_steps.ops) {
      facts.outside_step_events += values.calls;
    }
  }
  for (const SampleStep& step : sample_steps(side, drop_first)) {
    for (const auto& [name, ns] : step.step->device_kernels) {
      facts.device_ns += ns;
    }
    for (const auto& [op, values] : step.step->ops) {
      facts.attributed_device_ns += is_unattributed_row(step.trace->op_keys[op]) ? 0 : values.device_ns;
    }
  }
  const DataProblemFinding problems = data_problems(side);
  facts.negative_duration_events = problems.negative_duration_events;
  facts.unfinished_events = problems.unfinished_events;
  facts.negative_self_time = negative_self_time_texts(problems);
  facts.data_problems = side.data_problems;
  facts.screened = side.screened;
  return facts;
}

std::string side_facts_text(const SideFacts& facts) {
  return plural(facts.traces, "trace") + ", " + plural(facts.steps, "sample step") + ", " +
         plural(static_cast<std::size_t>(std::max<std::int64_t>(facts.events, 0)), "event") + "; " +
         plural(static_cast<std::size_t>(std::max<std::int64_t>(facts.outside_step_events, 0)), "op call") +
         " outside every step (counted, not compared)" + device_share_text(facts);
}

std::string device_share_text(const SideFacts& facts) {
  if (facts.device_ns <= 0) {
    return "";
  }
  const double share = 100.0 * static_cast<double>(facts.attributed_device_ns) / static_cast<double>(facts.device_ns);
  return "; device time " + format_duration_us(to_us(facts.device_ns)) + ", " +
         (facts.attributed_device_ns == facts.device_ns ? std::string("100") : format_significant(share, 3)) +
         "% attributed to an op";
}

bool conditions_differ(const Report& report) {
  return report.outcome == Outcome::not_comparable && !report.decision.no_decision;
}

double absolute_change(const MetricComparison& m) {
  const auto change = median_change(m);
  return change ? std::fabs(*change) : 0.0;
}

std::string paired_note(const Report& report) {
  const bool any =
      std::any_of(report.metrics.begin(), report.metrics.end(), [](const MetricComparison& m) { return m.paired; });
  return any ? "End-to-end metrics tested on paired runs of one capture session: their change is the "
               "Hodges–Lehmann estimate of the per-pair ratios head / base (Walsh averages) with its 90% CI, their "
               "p the one-sided Wilcoxon signed-rank test's."
             : "";
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

Report build_report(const SideSamples& base, const SideSamples& head, ConditionsDiff conditions, Judgement judgement,
                    const Findings& findings, RuleSet rules, Provenance provenance) {
  SideFacts base_facts = side_facts(base, rules.drop_first_steps);
  SideFacts head_facts = side_facts(head, rules.drop_first_steps);
  return build_report(base, head, std::move(base_facts), std::move(head_facts), std::move(conditions),
                      std::move(judgement), findings, std::move(rules), std::move(provenance));
}

Report build_report(const SideSamples& base, const SideSamples& head, SideFacts base_facts, SideFacts head_facts,
                    ConditionsDiff conditions, Judgement judgement, const Findings& findings, RuleSet rules,
                    Provenance provenance) {
  Report report;
  report.summary = summarize_verdict(judgement, conditions);
  report.verdict_line = headline_text(judgement, conditions, report.summary);
  report.context_line = context_text(judgement, report.summary, provenance.base_spec, provenance.head_spec);
  report.summary_lines = summary_lines(judgement.metrics, report.summary, judgement.decision.outcome);
  report.interpretations = interpretation_lines(findings.interpretations, judgement.metrics);
  report.open_hypotheses = open_hypothesis_lines(findings.open_hypotheses, judgement.metrics);
  report.outcome = judgement.decision.outcome;
  report.decision = std::move(judgement.decision);
  report.conditions = std::move(conditions);
  report.metrics = std::move(judgement.metrics);
  for (MetricComparison& m : report.metrics) {
    m.reason = verdict_reason_text(m);
  }
  report.rules = std::move(rules);
  report.provenance = std::move(provenance);
  add_read_details(report.provenance, base, head);
  report.inputs_overlap = inputs_overlap(report.provenance);
  report.inputs_line = inputs_overlap_text(report.inputs_overlap);
  report.base_facts = std::move(base_facts);
  report.head_facts = std::move(head_facts);
  return report;
}

}  // namespace neuron_gate
