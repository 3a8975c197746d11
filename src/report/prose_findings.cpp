// Findings (compare/findings.hpp) as report text: one line per interpretation or open hypothesis.
#include "report/prose.hpp"

#include "report/escape.hpp"
#include "report/number_format.hpp"
#include "report/prose_parts.hpp"

#include <cmath>

namespace neuron_gate {
namespace {

using Metrics = std::vector<MetricComparison>;
using prose::count_of;
using prose::join;
using prose::metric_label;

std::vector<std::string> names(const Metrics& metrics, const std::vector<std::size_t>& indices) {
  std::vector<std::string> items;
  for (std::size_t i : indices) {
    items.push_back(prose_code(metrics[i].name));
  }
  return items;
}

std::string signed_us(double us) {
  return (us >= 0 ? "+" : "-") + format_duration_us(std::fabs(us));
}

std::string not_comparable_text(const std::vector<ConditionDifference>& differing) {
  std::vector<std::string> items;
  for (const ConditionDifference& d : differing) {
    items.push_back(prose_code(d.name) + " (base: " + prose_text(d.base) + "; head: " + prose_text(d.head) + ")");
  }
  return "NOT COMPARABLE: the conditions held fixed differ in " + join(items, 10, "; ") +
         ". No metric is judged; rerun both sides with the same settings, or accept a difference with "
         "`--allow-mismatch NAME` if it is intended.";
}

// The per-op family as chosen from base's data (issue 14 item 1) with its summed metrics and the ops
// judged through a replacement group (issue 12 item 2); empty when no per-op class gates.
std::string material_text(const GateFinding& gate) {
  const MaterialSelection& m = gate.material;
  if (!gate.per_op_gates) {
    return "";
  }
  std::string sums;
  if (m.sums > 0) {
    sums = " The per-op family also holds " + count_of(m.sums, "summed metric", "summed metrics") +
           " (each class's total of every op per step and, where ops were replaced, the replacement group's summed "
           "time per step), which gate like a material op.";
  }
  if (m.replaced > 0) {
    sums += " " + count_of(m.replaced, "op metric of a replacement group is", "op metrics of replacement groups are") +
            " judged through its group only (STRUCTURAL, not tested alone).";
  }
  if (m.unattributed > 0) {
    sums += " " + count_of(m.unattributed, "metric", "metrics") +
            " of device time no op accounts for: shown, corrected on their own, never gating; the device `all ops` "
            "total holds that time.";
  }
  if (m.not_material == 0) {
    return sums;
  }
  const std::string share = format_number(m.share * 100.0) + "%";
  std::string references = "base's median step time" +
                           (m.step_us ? " (" + format_duration_us(*m.step_us) + ")" : std::string()) + " for self CPU";
  if (m.device_us) {
    references += ", of base's device time per step (" + format_duration_us(*m.device_us) + ") for device time";
  }
  // Material by either side (compare/material.cpp): base's or head's median per step against base's reference.
  const std::string material = m.material == 0 ? std::string("no op metric on both sides is material")
                                               : count_of(m.material, "op metric is", "op metrics are") + " material";
  return " Per-op family: " + material + " (base's or head's median per step at least " + share + " of " + references +
         ")" + (m.material == 0 ? "" : " and gate") + "; the other " + std::to_string(m.not_material) +
         " are reported with a correction of their own and never fail the gate (rules key `material_share`)." + sums;
}

std::string gate_text(const GateFinding& gate) {
  std::vector<std::string> gating;
  for (MetricClass c : gate.gating_classes) {
    gating.push_back(c == MetricClass::end_to_end ? "end-to-end metrics" : metric_class_label(c) + " per op");
  }
  return "Gate: " + (gating.empty() ? std::string("no metric class") : join(gating, 4, " and ")) +
         (gating.size() == 1 && gate.gating_classes[0] != MetricClass::end_to_end ? " decides" : " decide") +
         (gate.have_end_to_end ? " (end-to-end numbers are present; per-op findings explain them)"
                               : " (no end-to-end numbers in the profiles)") +
         ", " + correction_name(gate.correction) + " correction at alpha " + format_number(gate.alpha) + "." +
         material_text(gate);
}

std::string gating_metric_text(const MetricComparison& m) {
  const std::string what = metric_what(m);
  // Which test decided an end-to-end metric of one capture session (paired, or unpaired and why).
  const std::string pairing = *m.pairing != '\0' ? std::string("; ") + m.pairing : std::string();
  const std::string measurements = pairing + ". [Measurements: " + prose_code(m.name) + "]";
  if (m.verdict == Verdict::regressed) {
    return what + " REGRESSED: " + format_change_with_ci(m.ratio, m.ratio_low, m.ratio_high) + ", beyond the " +
           format_percent(m.threshold) + " threshold; adjusted p " + format_p(m.p_worse_adjusted) +
           (m.waiver ? "; waived: " + *m.waiver : std::string()) + measurements;
  }
  if (m.verdict == Verdict::improved) {
    return what + " IMPROVED: " + format_change_with_ci(m.ratio, m.ratio_low, m.ratio_high) + measurements;
  }
  std::string line = what + " EQUIVALENT: " + format_change_with_ci(m.ratio, m.ratio_low, m.ratio_high) +
                     " lies within ±" + format_percent(m.threshold);
  if (m.significant_worse) {
    line += "; the change is real (adjusted p " + format_p(m.p_worse_adjusted) +
            ") but smaller than the threshold, so it does not fail the gate";
  }
  return line + measurements;
}

std::string op_regressions_text(const Metrics& metrics, const std::vector<std::size_t>& indices) {
  std::vector<std::string> items;
  for (std::size_t i : indices) {
    const MetricComparison& m = metrics[i];
    items.push_back(prose_code(m.name) + " " + metric_class_label(m.metric_class) + " " +
                    format_duration_us(m.base_median) + " → " + format_duration_us(m.head_median) + " per step (" +
                    format_change(m.ratio) + ")");
  }
  return "Per-op regressions beyond their threshold (they explain, the gate is decided above): " +
         join(items, 8, "; ") + ". [Measurements: per-op tables]";
}

std::string whole_run_shift_text(const Metrics& metrics, const WholeRunShiftFinding& shift) {
  std::string line =
      "Whole-run shift: " + std::to_string(shift.along.size()) + " of " + std::to_string(shift.eligible) +
      " ops large enough to tell moved together by " + format_change(shift.factor) +
      " (median of their head/base estimates): one cause moved them all, which a code change rarely does, so they "
      "are read as one finding, not op by op";
  if (!shift.decided.empty()) {
    std::vector<std::string> items;
    for (std::size_t i : shift.decided) {
      items.push_back(metric_label(metrics[i]) + " " + verdict_name(metrics[i].verdict) + " " +
                      format_change(metrics[i].ratio));
    }
    line += "; the gating verdicts among them stand: " + join(items, 8, "; ");
  }
  return line + ". [Measurements: per-op tables]";
}

// Explanatory end-to-end metrics that moved: Neuron device summary measures, then those an e2e.json marks
// "gates": false (e.g. thread CPU time beside the latency that gates).
std::string device_summary_text(const Metrics& metrics, const std::vector<std::size_t>& indices) {
  std::vector<std::string> neuron, declared;
  for (std::size_t i : indices) {
    const MetricComparison& m = metrics[i];
    (m.family == Family::end_to_end_explains ? declared : neuron)
        .push_back(prose_code(m.name) + " " + verdict_name(m.verdict) + " " + format_number(m.base_median) + " → " +
                   format_number(m.head_median) + " " + prose_text(m.unit) + " (" + format_change(m.ratio) + ")");
  }
  std::string text = neuron.empty() ? "" : "Neuron device summary (explains; not gating): " + join(neuron, 8, "; ");
  if (!declared.empty()) {
    text += (text.empty() ? "" : ". ") + std::string("End-to-end, explains (not gating): ") + join(declared, 8, "; ");
  }
  return text + ". [Measurements: end-to-end table]";
}

// A capped unattributed row (compare/unattributed.hpp) named with the total that gates its time.
std::string unattributed_finding_text(const Metrics& metrics, const UnattributedFinding& f) {
  const MetricComparison& m = metrics[f.metric];
  std::string line = prose_code(m.name) + ": " + format_duration_us(m.base_median) + " → " +
                     format_duration_us(m.head_median) + " per step (" + format_ratio(m.ratio) + " of base, 90% CI " +
                     format_ratio_interval(m.ratio_low, m.ratio_high) + "), " +
                     (m.capped_from == Verdict::improved ? "better" : "worse") +
                     " beyond its threshold with adjusted p within alpha, but device time no op accounts for is never "
                     "judged on its own";
  if (f.total) {
    const MetricComparison& t = metrics[*f.total];
    line += ": it is counted in " + prose_code(t.name) + " (device time), " + format_duration_us(t.base_median) +
            " → " + format_duration_us(t.head_median) + " per step (" + format_ratio(t.ratio) + "), " +
            verdict_name(t.verdict) + (t.gating ? "" : " (not gating)") + ", which gates that time";
  }
  return line + ". [Measurements: " + prose_code(m.name) + "]";
}

// One replacement group read together: its ops, then their summed time per step and its verdict.
std::string replacement_text(const Metrics& metrics, const ReplacementFinding& f) {
  const MetricComparison& g = metrics[f.group];
  const std::string cls = metric_class_label(g.metric_class);
  std::vector<std::string> parts;
  if (!f.gone.empty()) {
    parts.push_back(count_of(f.gone.size(), "op no longer runs", "ops no longer run") + " (" +
                    join(names(metrics, f.gone), 12) + ")");
  }
  if (!f.appeared.empty()) {
    parts.push_back(
        count_of(f.appeared.size(), "new op runs", "new ops run") + " (" + join(names(metrics, f.appeared), 12) +
        (f.appeared.size() > 1 && f.largest_appeared ? "; largest " + prose_code(metrics[*f.largest_appeared].name)
                                                     : std::string()) +
        ")");
  }
  std::vector<std::string> calls;
  for (std::size_t i : f.calls_changed) {
    const MetricComparison& m = metrics[i];
    calls.push_back(prose_code(m.name) + " " + format_number(m.base_calls) + " → " + format_number(m.head_calls));
  }
  if (!calls.empty()) {
    parts.push_back("calls per step changed (median, base → head): " + join(calls, 12));
  }
  std::string line = "Replacement (" + cls + (g.ranked ? ", " + rank_name(g.rank) : std::string()) +
                     "), read together: " + join(parts, 3, "; ") + ". Their summed " + cls +
                     " time per step: " + format_duration_us(g.base_median) + " → " + format_duration_us(g.head_median);
  if (g.ratio) {
    line += ", " + format_change_with_ci(g.ratio, g.ratio_low, g.ratio_high);
  }
  return line + ", " + verdict_name(g.verdict) + (g.gating ? "" : " (not gating)") + ": " + verdict_reason_text(g) +
         ". [Measurements: " + prose_code(g.name) + "]";
}

void structural_lines(const Metrics& metrics, const StructuralFinding& s, std::vector<std::string>& lines) {
  for (const ReplacementFinding& f : s.groups) {
    lines.push_back(replacement_text(metrics, f));
  }
}

std::string step_time_text(const Metrics& metrics, const StepTimeFinding& f) {
  const MetricComparison& step = metrics[f.step];
  std::vector<std::string> top;
  for (const OpContribution& c : f.largest) {
    const MetricComparison& m = metrics[c.metric];
    top.push_back(prose_code(m.name) + (m.metric_class == MetricClass::device ? " (device)" : "") + " " +
                  signed_us(c.change_us));
  }
  std::string line = "Profiled step time" + (step.ranked ? " of " + rank_name(step.rank) + ":" : std::string()) + " " +
                     format_duration_us(step.base_median) + " → " + format_duration_us(step.head_median) + " (" +
                     format_change(step.ratio) + ", " + verdict_name(step.verdict) +
                     ", not gating by default). Summed median per-op changes: self CPU " + signed_us(f.cpu_total_us) +
                     " per step";
  if (f.have_device) {
    line += ", device " + signed_us(f.device_total_us);
    if (f.host_overhead) {
      line += " — CPU up with device flat reads as dispatch / host overhead";
    }
  }
  line += top.empty() ? "." : "; largest: " + join(top, 5, ", ") + ".";
  return line + " [Measurements: step time, per-op tables]";
}

std::string disagreement_text(const Metrics& metrics, const DisagreementFinding& d) {
  const MetricComparison& step = metrics[d.step];
  const MetricComparison& latency = metrics[d.latency];
  return "Profiled step time (" + format_change(step.ratio) + ") and un-profiled " + prose_code(latency.name) + " (" +
         format_change(latency.ratio) +
         ") disagree: profiler overhead grows with the number of ops, so a change in op count distorts profiled step "
         "time; the end-to-end number is the measurement of the application. [Measurements: " +
         prose_code(latency.name) + ", step time]";
}

}  // namespace

std::string replacement_members_text(const MetricComparison& m) {
  if (m.scope != MetricScope::replacement_group) {
    return "";
  }
  std::vector<std::string> parts;
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
      {"no longer run: ", &m.replaced->gone},
      {"new: ", &m.replaced->appeared},
      {"calls per step changed: ", &m.replaced->calls_changed}};
  for (const auto& [label, list] : lists) {
    std::vector<std::string> items;
    for (const std::string& name : *list) {
      items.push_back(prose_code(name));
    }
    if (!items.empty()) {
      parts.push_back(label + join(items, 12));
    }
  }
  return join(parts, 3, "; ");
}

std::string metric_what(const MetricComparison& m) {
  const std::string cls = metric_class_label(m.metric_class);
  switch (m.scope) {
  case MetricScope::replacement_group:
    return "the replacement group " + prose_code(m.name) + " (" + cls + ")";
  case MetricScope::class_total:
    return prose_code(m.name) + " (" + cls + ", every op summed per step)";
  case MetricScope::op:
    break;
  }
  return prose_code(m.name) + " (" + cls + ")";
}

std::vector<std::string> interpretation_lines(const Interpretations& found, const Metrics& metrics) {
  std::vector<std::string> lines;
  if (!found.not_comparable.empty()) {
    lines.push_back(not_comparable_text(found.not_comparable));
    return lines;
  }
  if (found.gate) {
    lines.push_back(gate_text(*found.gate));
  }
  if (found.whole_run_shift) {
    lines.push_back(whole_run_shift_text(metrics, *found.whole_run_shift));
  }
  for (std::size_t i : found.gating_metrics) {
    lines.push_back(gating_metric_text(metrics[i]));
  }
  if (!found.op_regressions.empty()) {
    lines.push_back(op_regressions_text(metrics, found.op_regressions));
  }
  if (!found.device_summary.empty()) {
    lines.push_back(device_summary_text(metrics, found.device_summary));
  }
  for (const UnattributedFinding& f : found.unattributed) {
    lines.push_back(unattributed_finding_text(metrics, f));
  }
  structural_lines(metrics, found.structural, lines);
  if (found.step_time) {
    lines.push_back(step_time_text(metrics, *found.step_time));
  }
  if (found.disagreement) {
    lines.push_back(disagreement_text(metrics, *found.disagreement));
  }
  return lines;
}

}  // namespace neuron_gate
