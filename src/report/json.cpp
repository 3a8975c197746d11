#include "report/json.hpp"

#include "report/escape.hpp"
#include "stats/descriptive.hpp"
#include "util/units.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

namespace neuron_gate {
namespace {

using ordered = nlohmann::ordered_json;

ordered optional_number(const std::optional<double>& value) {
  return value ? ordered(*value) : ordered(nullptr);
}

ordered summary(const std::vector<double>& samples) {
  ordered s;
  s["n"] = samples.size();
  s["median"] = optional_number(median(samples));
  s["mean"] = optional_number(mean(samples));
  s["stddev"] = optional_number(sample_stddev(samples));
  if (!samples.empty()) {
    s["min"] = *std::min_element(samples.begin(), samples.end());
    s["max"] = *std::max_element(samples.begin(), samples.end());
  } else {
    s["min"] = nullptr;
    s["max"] = nullptr;
  }
  return s;
}

ordered metric_json(const MetricComparison& m) {
  ordered j;
  j["class"] = metric_class_key(m.metric_class);
  j["name"] = m.name;
  if (m.ranked) {  // compared rank to rank only; absent for a single-rank comparison
    j["rank"] = m.rank ? ordered(*m.rank) : ordered(nullptr);
  }
  if (m.scope != MetricScope::op) {  // a sum per step of the class's ops (replacement_groups.hpp)
    j["scope"] = metric_scope_key(m.scope);
  }
  if (m.scope == MetricScope::replacement_group) {
    j["replaced"] = {
        {"gone", m.replaced->gone}, {"appeared", m.replaced->appeared}, {"calls_changed", m.replaced->calls_changed}};
  }
  j["unit"] = m.unit;
  if (m.resolution) {  // the timer's quantum: the CIs are widened by it (metric_comparison.hpp)
    j["resolution"] = *m.resolution;
  }
  j["better"] = m.better == Better::lower ? "lower" : "higher";
  j["verdict"] = verdict_name(m.verdict);
  j["reason"] = m.reason;
  j["gating"] = m.gating;
  j["family"] = family_name(m.family);
  j["family_size"] = m.family_size;
  j["material"] = m.material;
  j["base_share"] = optional_number(m.base_share);
  j["threshold"] = m.threshold;
  j["base"] = summary(m.base_samples);
  j["head"] = summary(m.head_samples);
  j["ratio"] = optional_number(m.ratio);
  j["ratio_ci90"] = {optional_number(m.ratio_low), optional_number(m.ratio_high)};
  j["ratio_method"] = m.ratio_from_logs ? "hodges-lehmann on logs" : "hodges-lehmann shift / base median";
  j["shift"] = optional_number(m.shift);
  j["shift_ci90"] = {optional_number(m.shift_low), optional_number(m.shift_high)};
  ordered test;
  test["name"] = m.paired ? "wilcoxon-signed-rank" : "mann-whitney-u";
  test["method"] = m.test_method;
  if (*m.pairing != '\0') {
    test["pairing"] = m.pairing;  // why paired or not (docs/decision-rule.md "Paired runs")
  }
  test["p_worse"] = optional_number(m.p_worse);
  test["p_better"] = optional_number(m.p_better);
  test["p_two_sided"] = optional_number(m.p_two_sided);
  test["p_worse_adjusted"] = optional_number(m.p_worse_adjusted);
  test["p_better_adjusted"] = optional_number(m.p_better_adjusted);
  test["q_benjamini_hochberg"] = optional_number(m.q_value);
  j["test"] = test;
  ordered welch;
  welch["ratio_of_geometric_means"] = optional_number(m.welch_ratio);
  welch["ci95"] = {optional_number(m.welch_low), optional_number(m.welch_high)};
  welch["p_two_sided"] = optional_number(m.welch_p);
  j["welch_t_log"] = welch;
  if (m.runs_ratio_low || m.runs_ratio_high) {  // a change must hold across runs too (docs/decision-rule.md)
    j["between_runs_ratio_ci90"] = {optional_number(m.runs_ratio_low), optional_number(m.runs_ratio_high)};
  }
  j["minimum_detectable_ratio"] = optional_number(m.minimum_detectable_ratio);
  j["samples_needed_per_side"] = m.samples_needed ? ordered(*m.samples_needed) : ordered(nullptr);
  j["calls_per_step"] = {{"base", optional_number(m.base_calls)}, {"head", optional_number(m.head_calls)}};
  j["present"] = {{"base", m.present_in_base}, {"head", m.present_in_head}};
  j["waiver"] = m.waiver ? ordered(*m.waiver) : ordered(nullptr);
  if (m.base_screened || m.head_screened) {  // holds events the screen excluded (compare/screened_metrics.hpp)
    j["screened_events"] = {{"base", m.base_screened}, {"head", m.head_screened}};
  }
  if (m.unattributed) {  // device time no op accounts for: never judged on its own (compare/unattributed.hpp)
    j["not_attributed"] = {{"capped_from", m.capped_from ? ordered(verdict_name(*m.capped_from)) : ordered(nullptr)}};
  }
  return j;
}

const char* gate_key(GateMode mode) {
  return mode == GateMode::always ? "always" : mode == GateMode::never ? "never" : "auto";
}

ordered facts_json(const SideFacts& facts) {
  ordered j;
  j["traces"] = facts.traces;
  j["sample_steps"] = facts.steps;
  j["events"] = facts.events;
  j["outside_step_op_calls"] = facts.outside_step_events;
  j["negative_duration_events_excluded"] = facts.negative_duration_events;
  j["unfinished_events_excluded"] = facts.unfinished_events;
  ordered negative = ordered::array();
  for (const std::string& entry : facts.negative_self_time) {
    negative.push_back(prose_plain(entry));
  }
  j["negative_self_time"] = negative;
  j["data_problems"] = ordered::array();
  for (const DataProblem& problem : facts.data_problems) {
    ordered p;
    p["kind"] = data_problem_id(problem.kind);
    p["file"] = problem.file;
    p["count"] = problem.count;
    p["byte"] = problem.byte ? ordered(*problem.byte) : ordered(nullptr);
    p["example"] = problem.example;
    if (is_screened_kind(problem.kind)) {  // excluded with their time (profile/event_screen.hpp)
      p["excluded_self_cpu_us"] = to_us(problem.excluded_cpu_ns);
      p["excluded_device_us"] = to_us(problem.excluded_device_ns);
      p["self_cpu_share"] = problem.cpu_share ? ordered(*problem.cpu_share) : ordered(nullptr);
      p["device_share"] = problem.device_share ? ordered(*problem.device_share) : ordered(nullptr);
    }
    j["data_problems"].push_back(std::move(p));
  }
  const ScreenedTime& screened = facts.screened;
  if (screened.excluded_cpu_ns > 0 || screened.excluded_device_ns > 0 || screened.device_time_lost) {
    j["excluded_self_cpu_share"] = excluded_cpu_share(screened);   // of kept + excluded self CPU time
    j["excluded_device_share"] = excluded_device_share(screened);  // 1 when device time was lost
  }
  if (facts.device_ns > 0) {  // only with device time, so CPU-only reports keep their shape
    j["device_ns"] = facts.device_ns;
    j["attributed_device_ns"] = facts.attributed_device_ns;
  }
  return j;
}

// The summary table under the headline and the conditions' counts, as the Markdown shows them.
ordered summary_json(const Report& report) {
  ordered rows = ordered::array();
  for (const SummaryLine& line : report.summary_lines) {
    rows.push_back({{"role", summary_role_key(line.role)},
                    {"metric", line.metric},
                    {"name", prose_plain(line.name)},
                    {"change", line.change},
                    {"base", line.base},
                    {"head", line.head},
                    {"note", prose_plain(line.note)},
                    {"medians_note", prose_plain(line.medians_note)}});
  }
  const VerdictSummary& s = report.summary;
  return {{"rows", rows},
          {"conditions",
           {{"count", s.conditions},
            {"matched", s.conditions_matched},
            {"accepted", s.conditions_accepted},
            {"not_verified", s.conditions_unverified}}}};
}

// The rules block: the rules that were applied (after --unit), with the sha256 of applied_rules_json.
ordered rules_json(const Report& report) {
  ordered rules;
  rules["source"] = report.rules.source;
  rules["sha256"] = report.provenance.rules_sha256;
  if (!report.provenance.rules_from.empty()) {
    rules["from"] = report.provenance.rules_from;  // compare --rules-from; absent when not given
  }
  rules["alpha"] = report.rules.alpha;
  rules["correction"] = correction_name(report.rules.correction);
  rules["floor_us"] = report.rules.floor_us;
  rules["material_share"] = report.rules.material_share;
  rules["between_run_allowance"] = report.rules.between_run_allowance;
  rules["gate_runtime_calls"] = report.rules.gate_runtime_calls;
  rules["thresholds"] = {{"end_to_end", report.rules.end_to_end.threshold},
                         {"device", report.rules.device.threshold},
                         {"self_cpu", report.rules.self_cpu.threshold},
                         {"step_time", report.rules.step_time.threshold}};
  rules["gates"] = {{"end_to_end", gate_key(report.rules.end_to_end.gate)},
                    {"device", gate_key(report.rules.device.gate)},
                    {"self_cpu", gate_key(report.rules.self_cpu.gate)},
                    {"step_time", gate_key(report.rules.step_time.gate)}};
  ordered ops = ordered::array();
  for (const OpRule& op : report.rules.ops) {
    ops.push_back({{"pattern", op.pattern}, {"threshold", op.threshold}});
  }
  rules["ops"] = ops;
  ordered waivers = ordered::array();
  for (const Waiver& waiver : report.rules.waivers) {
    waivers.push_back({{"pattern", waiver.pattern}, {"reason", waiver.reason}, {"expires", waiver.expires}});
  }
  rules["waivers"] = waivers;
  rules["ignore"] = report.rules.ignore;
  rules["drop_first_steps"] = report.rules.drop_first_steps;
  rules["unit"] = sample_unit_key(report.rules.unit);
  rules["allow_mismatch"] = report.rules.allow_mismatch;
  return rules;
}

}  // namespace

// `value` with every string and key made valid UTF-8 (escape.hpp valid_utf8: one U+FFFD per bad byte, as
// in the other outputs).
static ordered valid_utf8_json(const ordered& value) {
  if (value.is_string()) {
    return valid_utf8(value.get_ref<const std::string&>());
  }
  if (value.is_array()) {
    ordered out = ordered::array();
    for (const ordered& item : value) {
      out.push_back(valid_utf8_json(item));
    }
    return out;
  }
  if (value.is_object()) {
    ordered out = ordered::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      out[valid_utf8(it.key())] = valid_utf8_json(it.value());
    }
    return out;
  }
  return value;
}

// `value` pretty-printed (indent 1) as it reads `level` deep in a document: every line after the first
// indented `level` spaces more (a dumped string holds no raw newline). The replace handler only guards
// against a string valid_utf8_json did not reach.
static std::string nested_dump(const ordered& value, std::size_t level) {
  const std::string text = valid_utf8_json(value).dump(1, ' ', false, ordered::error_handler_t::replace);
  if (level == 0) {
    return text;
  }
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    out += c;
    if (c == '\n') {
      out.append(level, ' ');
    }
  }
  return out;
}

std::string dump_valid_json(const nlohmann::ordered_json& document) {
  return nested_dump(document, 0) + "\n";
}

// compare's A/A noise check of base: what its estimate rests on (provenance.noise_check).
static ordered noise_check_json(const NoiseCheck& c) {
  return {{"split_by", c.split_by == SplitBy::runs ? "runs" : "traces"},
          {"runs", c.runs},
          {"traces", c.traces},
          {"halves", {c.half_a, c.half_b}},
          {"splits", c.splits},
          {"requested_splits", c.requested_splits},
          {"min_splits", c.min_splits},
          {"reduced", c.splits < c.requested_splits},
          {"value_budget", c.value_budget ? ordered(*c.value_budget) : ordered(nullptr)},
          {"comparisons", c.comparisons},
          {"sample_values", c.sample_values},
          {"seed", c.seed}};
}

namespace {

// The top-level object of a report written field by field: each field's value dumped as it reads one level
// deep, so the text is what one dump of the whole document gives.
class TopLevelWriter {
 public:
  explicit TopLevelWriter(const std::function<void(std::string_view)>& sink) : m_sink(sink) {}

  void field(const char* key, const ordered& value) {
    open(key);
    m_sink(nested_dump(value, 1));
  }

  // "metrics": one metric dumped at a time, so no document of every metric is held.
  void metrics(const std::vector<MetricComparison>& metrics) {
    open("metrics");
    if (metrics.empty()) {
      m_sink("[]");
      return;
    }
    m_sink("[\n");
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      m_sink(i == 0 ? "  " : ",\n  ");
      m_sink(nested_dump(metric_json(metrics[i]), 2));
    }
    m_sink("\n ]");
  }

  void close() { m_sink("\n}\n"); }

 private:
  void open(const char* key) {
    m_sink(m_first ? "{\n \"" : ",\n \"");
    m_sink(key);
    m_sink("\": ");
    m_first = false;
  }

  const std::function<void(std::string_view)>& m_sink;
  bool m_first = true;
};

// The Provenance block: tool version, the sides, every file read with its hash, the git commits, the
// stored baseline and the noise check.
ordered provenance_json(const Provenance& p) {
  ordered provenance;
  provenance["tool_version"] = p.tool_version;
  provenance["base"] = p.base_spec;
  provenance["head"] = p.head_spec;
  ordered files = ordered::array();
  for (const ProvenanceFile& file : p.files) {
    files.push_back({{"side", file.side},
                     {"path", file.relative_path},
                     {"kind", file.kind},
                     {"bytes", file.size_bytes},
                     {"sha256", file.sha256.empty() ? ordered(nullptr) : ordered(file.sha256)},
                     {"ignored_reason", file.ignored_reason.empty() ? ordered(nullptr) : ordered(file.ignored_reason)},
                     {"detail", file.detail.empty() ? ordered(nullptr) : ordered(file.detail)}});
  }
  provenance["files"] = files;
  provenance["warnings"] = p.warnings;
  ordered commits = ordered::array();
  for (const GitCommit& commit : p.commits) {
    commits.push_back(
        {{"side", commit.side},
         {"commit", commit.commit},
         {"summary", commit.summary},
         {"dirty", commit.dirty},
         {"branch", commit.branch.empty() ? ordered(nullptr) : ordered(commit.branch)},
         {"repository", commit.repository},
         {"object_database", commit.object_database},
         {"manifest_commit", commit.manifest_commit.empty() ? ordered(nullptr) : ordered(commit.manifest_commit)}});
  }
  provenance["git_commits"] = commits;
  if (p.stored_baseline) {
    const FoundBaseline& b = *p.stored_baseline;
    provenance["stored_baseline"] = {{"ref", b.ref},
                                     {"tip", b.tip},
                                     {"commit", b.commit},
                                     {"head_commit", b.head_commit},
                                     {"distance", b.distance},
                                     {"walked", b.walked},
                                     {"from_base_commit", b.from_base_commit}};
  }  // absent when base is no stored baseline
  if (p.noise_check) {
    provenance["noise_check"] = noise_check_json(*p.noise_check);
  }  // absent when no noise check was made
  return provenance;
}

}  // namespace

void write_json_report(const Report& report, const std::function<void(std::string_view)>& sink) {
  TopLevelWriter j(sink);
  j.field("schema", "neuron-gate.report/2");
  j.field("outcome", outcome_name(report.outcome));
  j.field("verdict", outcome_key(report.outcome));
  j.field("exit_code", report.decision.exit_code);
  ordered exit_codes = ordered::object();
  for (const ExitCodeMeaning& row : k_exit_codes) {
    exit_codes[std::to_string(row.code)] = {{"verdict", row.verdict}, {"meaning", row.meaning}};
  }
  j.field("exit_codes", exit_codes);
  j.field("verdict_line", prose_plain(report.verdict_line));
  j.field("context_line", prose_plain(report.context_line));
  static const char* const overlap_keys[] = {"none", "identical", "head_inside_base"};
  j.field("inputs_overlap", {{"kind", overlap_keys[static_cast<int>(report.inputs_overlap.kind)]},
                             {"base_files", report.inputs_overlap.base_files},
                             {"head_files", report.inputs_overlap.head_files},
                             {"text", prose_plain(report.inputs_line)}});
  ordered counts = ordered::object();
  for (const auto& [verdict, count] : report.decision.counts) {
    counts[verdict_name(verdict)] = count;
  }
  j.field("counts", counts);
  ordered gating = ordered::array();
  for (MetricClass c : report.decision.gating_classes) {
    gating.push_back(metric_class_key(c));
  }
  j.field("gating_classes", gating);
  const MaterialSelection& material = report.decision.material;
  j.field("material", {{"share", material.share},
                       {"material", material.material},
                       {"not_material", material.not_material},
                       {"sums", material.sums},
                       {"replaced", material.replaced},
                       {"step_us", optional_number(material.step_us)},
                       {"device_us", optional_number(material.device_us)}});
  ordered conditions = ordered::array();
  for (const ConditionRow& row : report.conditions.rows) {
    conditions.push_back({{"name", row.name},
                          {"base", row.base},
                          {"head", row.head},
                          {"matches", row.matches},
                          {"verified", row.verified},
                          {"accepted", row.accepted},
                          {"note", row.note}});
  }
  j.field("conditions", conditions);
  j.field("summary", summary_json(report));
  j.metrics(report.metrics);
  ordered interpretations = ordered::array(), hypotheses = ordered::array();
  for (const std::string& line : report.interpretations) {
    interpretations.push_back(prose_plain(line));
  }
  for (const std::string& line : report.open_hypotheses) {
    hypotheses.push_back(prose_plain(line));
  }
  j.field("interpretations", interpretations);
  j.field("open_hypotheses", hypotheses);
  j.field("sides", {{"base", facts_json(report.base_facts)}, {"head", facts_json(report.head_facts)}});
  j.field("rules", rules_json(report));
  j.field("provenance", provenance_json(report.provenance));
  j.close();
}

std::string render_json(const Report& report) {
  std::string text;
  write_json_report(report, [&text](std::string_view piece) { text += piece; });
  return text;
}

}  // namespace neuron_gate
