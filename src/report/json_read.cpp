#include "report/json_read.hpp"

#include "input/json_input.hpp"
#include "report/escape.hpp"
#include "report/prose.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace neuron_gate {
namespace {

using json = nlohmann::json;

// Type-checked reads of one report document; every failure names the file and the key path.
class Reader {
 public:
  explicit Reader(const std::string& path) : m_fields(path) {}

  const json& at(const json& object, const char* key, const std::string& where) const {
    m_fields.object(object, where.empty() ? "the top level" : where);
    const auto it = object.find(key);
    if (it == object.end()) {
      m_fields.fail("\"" + name(where, key) + "\" is missing");
    }
    return *it;
  }
  std::string str(const json& object, const char* key, const std::string& where) const {
    return m_fields.string(at(object, key, where), name(where, key));
  }
  // A string field read as prose of data only (escape.hpp untrusted_prose).
  std::string prose(const json& object, const char* key, const std::string& where) const {
    return untrusted_prose(str(object, key, where));
  }
  bool boolean(const json& object, const char* key, const std::string& where) const {
    const json& value = at(object, key, where);
    if (!value.is_boolean()) {
      m_fields.fail("\"" + name(where, key) + "\" must be true or false, not " + JsonFields::shown(value));
    }
    return value.get<bool>();
  }
  double number(const json& object, const char* key, const std::string& where) const {
    return m_fields.number(at(object, key, where), name(where, key));
  }
  std::optional<double> optional_number(const json& value, const std::string& where) const {
    return value.is_null() ? std::nullopt : std::optional<double>(m_fields.number(value, where));
  }
  std::optional<double> optional_number(const json& object, const char* key, const std::string& where) const {
    return optional_number(at(object, key, where), name(where, key));
  }
  std::uint64_t count(const json& object, const char* key, const std::string& where) const {
    const json& value = at(object, key, where);
    if (!value.is_number_unsigned()) {
      m_fields.fail("\"" + name(where, key) + "\" must be a count, not " + JsonFields::shown(value));
    }
    return value.get<std::uint64_t>();
  }
  const json& array(const json& object, const char* key, const std::string& where) const {
    return m_fields.array(at(object, key, where), name(where, key));
  }
  // A string that must match `pattern` (an identifier the renderer prints as it is).
  std::string matching(const json& object, const char* key, const std::string& where, bool (*pattern)(std::string_view),
                       const char* what) const {
    std::string text = str(object, key, where);
    if (!pattern(text)) {
      m_fields.fail("\"" + name(where, key) + "\" must be " + what + ", not " + JsonFields::shown(text));
    }
    return text;
  }
  // The enumerator whose `key_of` is the field's string.
  template <typename Enum, typename KeyOf>
  Enum choice(const json& object, const char* key, const std::string& where, std::initializer_list<Enum> values,
              KeyOf key_of) const {
    const std::string text = str(object, key, where);
    for (Enum value : values) {
      if (text == key_of(value)) {
        return value;
      }
    }
    m_fields.fail("\"" + name(where, key) + "\" has an unknown value " + JsonFields::shown(text));
  }
  [[noreturn]] void fail(const std::string& problem) const { m_fields.fail(problem); }

  static std::string name(const std::string& where, const char* key) {
    return where.empty() ? std::string(key) : where + "." + key;
  }
  static std::string item(const std::string& where, const char* key, std::size_t i) {
    return name(where, key) + "[" + std::to_string(i) + "]";
  }

 private:
  JsonFields m_fields;
};

// The largest report read back: a compare --json of 50,000 ops is about 100 MB.
constexpr std::uintmax_t k_max_report_bytes = 256ULL << 20;

// The formats of the strings the renderer prints as they are. Hand-written, never std::regex: libstdc++'s
// matcher recurses once per character, and a long hostile string overflows the stack.
bool all_of_chars(std::string_view text, std::string_view chars) {
  return text.find_first_not_of(chars) == std::string_view::npos;
}
bool is_hex_commit(std::string_view text) {
  return text.size() >= 4 && text.size() <= 40 && all_of_chars(text, "0123456789abcdef");
}
bool is_sha256_or_empty(std::string_view text) {
  return text.empty() || (text.size() == 64 && all_of_chars(text, "0123456789abcdef"));
}
// CMake's project(VERSION): 2 to 4 numbers joined by dots ("0.1.0"); nothing an autolinker reads.
bool is_version(std::string_view text) {
  std::size_t numbers = 0;
  for (std::size_t start = 0; start <= text.size(); ++numbers) {
    const std::size_t dot = std::min(text.find('.', start), text.size());
    const std::string_view number = text.substr(start, dot - start);
    if (number.empty() || number.size() > 9 || !all_of_chars(number, "0123456789")) {
      return false;
    }
    start = dot + 1;
  }
  return numbers >= 2 && numbers <= 4;
}
// A signed change as number_format.hpp format_change writes it ("+38.4%", "-1,100%"), or "new", "removed",
// "–"; then "†" when it points against the medians (SummaryLine::medians_note).
bool is_change(std::string_view text) {
  const std::string_view mark = "†";
  if (text.size() >= mark.size() && text.substr(text.size() - mark.size()) == mark) {
    text.remove_suffix(mark.size());
  }
  if (text == "new" || text == "removed" || text == "–") {
    return true;
  }
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    text.remove_prefix(1);
  }
  return text.size() >= 2 && text.size() <= 24 && text.back() == '%' && text.front() >= '0' && text.front() <= '9' &&
         all_of_chars(text.substr(0, text.size() - 1), "0123456789.,");
}

constexpr std::initializer_list<Outcome> k_outcomes{Outcome::pass, Outcome::regression, Outcome::not_comparable,
                                                    Outcome::no_decision};
constexpr std::initializer_list<Verdict> k_verdicts{Verdict::regressed,    Verdict::improved,     Verdict::equivalent,
                                                    Verdict::inconclusive, Verdict::insufficient, Verdict::structural};
constexpr std::initializer_list<MetricClass> k_classes{MetricClass::end_to_end, MetricClass::device,
                                                       MetricClass::self_cpu, MetricClass::step_time};

MetricComparison metric_from_json(const Reader& r, const json& value, const std::string& where) {
  MetricComparison m;
  m.metric_class = r.choice(value, "class", where, k_classes, metric_class_key);
  m.name = r.str(value, "name", where);
  m.unit = r.str(value, "unit", where);
  if (value.is_object() && value.contains("resolution")) {
    m.resolution = r.number(value, "resolution", where);
  }
  m.better = r.choice(value, "better", where, {Better::lower, Better::higher},
                      [](Better b) { return b == Better::lower ? "lower" : "higher"; });
  m.verdict = r.choice(value, "verdict", where, k_verdicts, verdict_name);
  m.reason = r.prose(value, "reason", where);
  m.gating = r.boolean(value, "gating", where);
  m.family = r.choice(value, "family", where, k_families, family_name);
  m.runtime_call = m.family == Family::runtime_calls;
  m.material = r.boolean(value, "material", where);
  m.base_median = r.optional_number(r.at(value, "base", where), "median", Reader::name(where, "base"));
  m.head_median = r.optional_number(r.at(value, "head", where), "median", Reader::name(where, "head"));
  m.ratio = r.optional_number(value, "ratio", where);
  const json& ci = r.array(value, "ratio_ci90", where);
  if (ci.size() != 2) {
    r.fail("\"" + Reader::name(where, "ratio_ci90") + "\" must hold 2 values");
  }
  m.ratio_low = r.optional_number(ci[0], Reader::name(where, "ratio_ci90") + "[0]");
  m.ratio_high = r.optional_number(ci[1], Reader::name(where, "ratio_ci90") + "[1]");
  const std::string calls = Reader::name(where, "calls_per_step");
  m.base_calls = r.optional_number(r.at(value, "calls_per_step", where), "base", calls);
  m.head_calls = r.optional_number(r.at(value, "calls_per_step", where), "head", calls);
  const std::string present = Reader::name(where, "present");
  m.present_in_base = r.boolean(r.at(value, "present", where), "base", present);
  m.present_in_head = r.boolean(r.at(value, "present", where), "head", present);
  // As measure_metric sets it (compare/metric_comparison.cpp).
  m.calls_changed = !m.present_in_base || !m.present_in_head || m.base_calls != m.head_calls;
  const json& waiver = r.at(value, "waiver", where);
  if (!waiver.is_null()) {
    m.waiver = r.str(value, "waiver", where);
  }
  return m;
}

SideFacts facts_from_json(const Reader& r, const json& value, const std::string& where) {
  SideFacts facts;
  facts.traces = r.count(value, "traces", where);
  facts.steps = r.count(value, "sample_steps", where);
  facts.events = static_cast<std::int64_t>(r.count(value, "events", where));
  facts.outside_step_events = static_cast<std::int64_t>(r.count(value, "outside_step_op_calls", where));
  if (value.contains("device_ns")) {
    facts.device_ns = static_cast<Nanoseconds>(r.count(value, "device_ns", where));
    facts.attributed_device_ns = static_cast<Nanoseconds>(r.count(value, "attributed_device_ns", where));
  }
  return facts;
}

NoiseCheck noise_check_from_json(const Reader& r, const json& c, const std::string& at) {
  NoiseCheck check;
  check.split_by = r.choice(c, "split_by", at, {SplitBy::runs, SplitBy::traces},
                            [](SplitBy s) { return s == SplitBy::runs ? "runs" : "traces"; });
  check.runs = r.count(c, "runs", at);
  check.traces = r.count(c, "traces", at);
  const json& halves = r.array(c, "halves", at);
  if (halves.size() != 2 || !halves[0].is_number_unsigned() || !halves[1].is_number_unsigned()) {
    r.fail("\"" + at + ".halves\" must be two counts");
  }
  check.half_a = halves[0].get<std::size_t>();
  check.half_b = halves[1].get<std::size_t>();
  check.splits = r.count(c, "splits", at);
  check.requested_splits = r.count(c, "requested_splits", at);
  check.min_splits = r.count(c, "min_splits", at);
  if (!r.at(c, "value_budget", at).is_null()) {
    check.value_budget = r.count(c, "value_budget", at);
  }
  check.comparisons = r.count(c, "comparisons", at);
  check.sample_values = r.count(c, "sample_values", at);
  check.seed = r.count(c, "seed", at);
  return check;
}

Provenance provenance_from_json(const Reader& r, const json& doc, const std::string& top) {
  const auto key = [&](const char* name) { return Reader::name(top, name); };
  Provenance p;
  const json& rules = r.at(doc, "rules", top);
  const json& value = r.at(doc, "provenance", top);
  p.tool_version = r.matching(value, "tool_version", key("provenance"), is_version, "a version");
  p.base_spec = r.str(value, "base", key("provenance"));
  p.head_spec = r.str(value, "head", key("provenance"));
  p.rules_source = r.str(rules, "source", key("rules"));
  p.rules_sha256 = r.matching(rules, "sha256", key("rules"), is_sha256_or_empty, "a SHA-256 in hex");
  if (rules.contains("from")) {
    p.rules_from = r.str(rules, "from", key("rules"));
  }
  const json& files = r.array(value, "files", key("provenance"));
  for (std::size_t i = 0; i < files.size(); ++i) {
    ProvenanceFile file;  // only whether it was read is shown: the full list is in the JSON and HTML
    const json& sha = r.at(files[i], "sha256", Reader::item(key("provenance"), "files", i));
    file.sha256 = sha.is_null() ? "" : "read";
    p.files.push_back(std::move(file));
  }
  const json& warnings = r.array(value, "warnings", key("provenance"));
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    if (!warnings[i].is_string()) {
      r.fail("\"" + Reader::item(key("provenance"), "warnings", i) + "\" must be a string");
    }
    p.warnings.push_back(warnings[i].get<std::string>());
  }
  const json& commits = r.array(value, "git_commits", key("provenance"));
  for (std::size_t i = 0; i < commits.size(); ++i) {
    const std::string at = Reader::item(key("provenance"), "git_commits", i);
    GitCommit commit;
    commit.side = r.str(commits[i], "side", at);
    if (commit.side != "base" && commit.side != "head") {
      r.fail("\"" + at + ".side\" must be \"base\" or \"head\", not " + JsonFields::shown(commit.side));
    }
    commit.commit = r.matching(commits[i], "commit", at, is_hex_commit, "a commit in hex");
    commit.summary = r.str(commits[i], "summary", at);
    commit.dirty = r.boolean(commits[i], "dirty", at);
    commit.branch = r.at(commits[i], "branch", at).is_null() ? "" : r.str(commits[i], "branch", at);
    commit.repository = r.str(commits[i], "repository", at);
    commit.object_database = r.boolean(commits[i], "object_database", at);
    commit.manifest_commit =
        r.at(commits[i], "manifest_commit", at).is_null() ? "" : r.str(commits[i], "manifest_commit", at);
    p.commits.push_back(std::move(commit));
  }
  if (value.contains("stored_baseline")) {
    const json& b = r.at(value, "stored_baseline", key("provenance"));
    const std::string at = key("provenance.stored_baseline");
    FoundBaseline found;
    found.ref = r.str(b, "ref", at);
    found.tip = r.matching(b, "tip", at, is_hex_commit, "a commit in hex");
    found.commit = r.matching(b, "commit", at, is_hex_commit, "a commit in hex");
    found.head_commit = r.matching(b, "head_commit", at, is_hex_commit, "a commit in hex");
    found.distance = r.count(b, "distance", at);
    found.walked = r.count(b, "walked", at);
    found.from_base_commit = r.boolean(b, "from_base_commit", at);
    p.stored_baseline = found;
  }
  if (value.contains("noise_check")) {
    p.noise_check =
        noise_check_from_json(r, r.at(value, "noise_check", key("provenance")), key("provenance.noise_check"));
  }
  return p;
}

// Reads the conditions table into `diff`; true when a condition differs and is not accepted.
bool conditions_from_json(const Reader& r, const json& conditions, const std::string& top, ConditionsDiff& diff) {
  bool differing = false;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const std::string at = Reader::item(top, "conditions", i);
    ConditionRow row;
    row.name = r.str(conditions[i], "name", at);
    row.base = r.str(conditions[i], "base", at);
    row.head = r.str(conditions[i], "head", at);
    row.matches = r.boolean(conditions[i], "matches", at);
    row.accepted = r.boolean(conditions[i], "accepted", at);
    row.verified = r.boolean(conditions[i], "verified", at);
    row.note = r.str(conditions[i], "note", at);
    differing = differing || (!row.matches && !row.accepted);
    diff.rows.push_back(std::move(row));
  }
  return differing;
}

// The rules a report shows (alpha, correction, floor, runtime calls' gate, unit) into `rules`.
void rules_from_json(const Reader& r, const json& doc, const std::string& top, RuleSet& rules) {
  const std::string where = Reader::name(top, "rules");
  const json& from = r.at(doc, "rules", top);
  rules.alpha = r.number(from, "alpha", where);
  rules.correction = r.choice(
      from, "correction", where,
      {Correction::holm, Correction::benjamini_hochberg, Correction::bonferroni, Correction::none}, correction_name);
  rules.floor_us = r.number(from, "floor_us", where);
  if (from.contains("gate_runtime_calls")) {
    rules.gate_runtime_calls = r.boolean(from, "gate_runtime_calls", where);
  }
  rules.unit = r.choice(from, "unit", where, {SampleUnit::step, SampleUnit::run}, sample_unit_key);
}

Report report_from_json(const Reader& r, const json& doc, const std::string& top) {
  const auto key = [&](const char* name) { return Reader::name(top, name); };
  Report report;
  report.outcome = r.choice(doc, "outcome", "", k_outcomes, outcome_name);
  report.decision.outcome = report.outcome;
  report.decision.exit_code = static_cast<int>(r.count(doc, "exit_code", top));
  report.verdict_line = r.prose(doc, "verdict_line", top);
  report.context_line = r.prose(doc, "context_line", top);
  report.inputs_line = r.prose(r.at(doc, "inputs_overlap", top), "text", key("inputs_overlap"));

  const bool differing = conditions_from_json(r, r.array(doc, "conditions", top), top, report.conditions);
  // NOT COMPARABLE for differing conditions, else for head's data (report.hpp conditions_differ).
  if (report.outcome == Outcome::no_decision || (report.outcome == Outcome::not_comparable && !differing)) {
    report.decision.no_decision = NoDecision{NoDecisionCause::head_data_incomplete, 0, 0, "", {}};
  }

  const json& summary = r.at(doc, "summary", top);
  const json& counts = r.at(summary, "conditions", key("summary"));
  report.summary.conditions = r.count(counts, "count", key("summary.conditions"));
  report.summary.conditions_matched = r.count(counts, "matched", key("summary.conditions"));
  report.summary.conditions_accepted = r.count(counts, "accepted", key("summary.conditions"));
  const json& unverified = r.array(counts, "not_verified", key("summary.conditions"));
  for (std::size_t i = 0; i < unverified.size(); ++i) {
    if (!unverified[i].is_string()) {
      r.fail("\"" + Reader::item(key("summary.conditions"), "not_verified", i) + "\" must be a string");
    }
    report.summary.conditions_unverified.push_back(unverified[i].get<std::string>());
  }
  const json& rows = r.array(summary, "rows", key("summary"));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = Reader::item(key("summary"), "rows", i);
    SummaryLine line;
    line.role =
        r.choice(rows[i], "role", at,
                 {SummaryRole::deciding, SummaryRole::replacement, SummaryRole::structural, SummaryRole::top_change},
                 summary_role_key);
    line.name = r.prose(rows[i], "name", at);
    line.metric = r.count(rows[i], "metric", at);
    line.change = r.matching(rows[i], "change", at, is_change, "a signed change");  // printed as it is
    line.base = r.str(rows[i], "base", at);
    line.head = r.str(rows[i], "head", at);
    line.note = r.prose(rows[i], "note", at);
    line.medians_note = r.prose(rows[i], "medians_note", at);
    report.summary.rows.push_back({line.metric, line.role});
    report.summary_lines.push_back(std::move(line));
  }

  const json& metrics = r.array(doc, "metrics", top);
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    report.metrics.push_back(metric_from_json(r, metrics[i], Reader::item(top, "metrics", i)));
  }
  for (std::size_t i = 0; i < report.summary.rows.size(); ++i) {
    if (report.summary.rows[i].metric >= report.metrics.size()) {
      r.fail("\"" + Reader::item(key("summary"), "rows", i) + ".metric\" is no index into \"metrics\"");
    }
  }
  for (const char* list : {"interpretations", "open_hypotheses"}) {
    const json& lines = r.array(doc, list, top);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (!lines[i].is_string()) {
        r.fail("\"" + Reader::item(top, list, i) + "\" must be a string");
      }
      (list[0] == 'i' ? report.interpretations : report.open_hypotheses)
          .push_back(untrusted_prose(lines[i].get<std::string>()));
    }
  }
  const json& sides = r.at(doc, "sides", top);
  report.base_facts = facts_from_json(r, r.at(sides, "base", key("sides")), key("sides.base"));
  report.head_facts = facts_from_json(r, r.at(sides, "head", key("sides")), key("sides.head"));

  rules_from_json(r, doc, top, report.rules);
  report.provenance = provenance_from_json(r, doc, top);
  return report;
}

PointsReport points_from_json(const Reader& r, const json& doc) {
  PointsReport report;
  report.decision.outcome = r.choice(doc, "outcome", "", k_outcomes, outcome_name);
  report.decision.exit_code = static_cast<int>(r.count(doc, "exit_code", ""));
  report.verdict_line = r.prose(doc, "verdict_line", "");
  report.context_line = r.prose(doc, "context_line", "");
  const json& points = r.array(doc, "operating_points", "");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = Reader::item("", "operating_points", i);
    PointRow row;
    row.label = r.str(points[i], "label", at);
    row.status = r.choice(
        points[i], "status", at,
        {PointStatus::compared, PointStatus::base_only, PointStatus::head_only, PointStatus::conditions_differ},
        point_status_key);
    row.outcome = r.choice(points[i], "outcome", at, k_outcomes, outcome_name);
    row.metric = r.prose(points[i], "deciding_metric", at);
    row.change = r.matching(points[i], "change", at, is_change, "a signed change");  // printed as it is
    row.verdict = r.prose(points[i], "verdict", at);
    const json& detail = r.at(points[i], "report", at);
    report.details.push_back(detail.is_null()
                                 ? std::nullopt
                                 : std::optional<Report>(report_from_json(r, detail, Reader::name(at, "report"))));
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace

ReadBackReport read_json_report(const std::string& path) {
  // compare writes plain JSON: a compressed file (a few MB inflating to gigabytes) or one past the size of a
  // report of 50,000 ops is refused before it is read (issue 39 item 5: the file comes from a pull request).
  {
    std::ifstream in(path, std::ios::binary);
    char magic[2] = {0, 0};
    in.read(magic, 2);
    if (in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
        static_cast<unsigned char>(magic[1]) == 0x8b) {
      throw InputError(path, "is gzip-compressed; compare --json writes plain JSON");
    }
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (!error && size > k_max_report_bytes) {
      throw InputError(path, std::to_string(size) + " bytes, more than a report of compare --json (at most " +
                                 std::to_string(k_max_report_bytes) + ")");
    }
  }
  const JsonDocument document = read_json_input(path);
  const Reader reader(path);
  const json& doc = document.value;
  const std::string schema = reader.str(doc, "schema", "");
  ReadBackReport result;
  if (schema == "neuron-gate.report/2") {
    result.single = report_from_json(reader, doc, "");
  } else if (schema == "neuron-gate.points/1") {
    result.points = points_from_json(reader, doc);
  } else {
    reader.fail("\"schema\" is " + JsonFields::shown(schema) +
                ", not a report of compare --json (\"neuron-gate.report/2\" or \"neuron-gate.points/1\")");
  }
  return result;
}

}  // namespace neuron_gate
