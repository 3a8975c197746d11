#include "compare/rule_set.hpp"

#include "input/json_input.hpp"
#include "util/date.hpp"
#include "util/error.hpp"
#include "util/glob.hpp"
#include "util/spellcheck.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace neuron_gate {

extern const char* const k_default_rules_text;

namespace {

using nlohmann::json;

class RulesParser {
 public:
  explicit RulesParser(std::string source) : m_source(std::move(source)) {}

  [[noreturn]] void fail(const std::string& problem) const { throw InputError(m_source, problem); }

  void check_keys(const json& object, const std::string& where, const std::vector<std::string>& allowed) const {
    for (const auto& item : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
        std::string problem = "unknown key \"" + where + item.key() + "\"";
        if (auto suggestion = closest_word(item.key(), allowed)) {
          problem += ", did you mean \"" + *suggestion + "\"?";
        }
        fail(problem);
      }
    }
  }

  double number(const json& value, const std::string& key, double low, double high) const {
    if (!value.is_number()) {
      fail("\"" + key + "\" must be a number, not " + value.dump());
    }
    const double number = value.get<double>();
    if (!(number >= low && number <= high)) {
      std::ostringstream range;
      range << "\"" << key << "\" must be between " << low << " and " << high << ", not " << value.dump();
      fail(range.str());
    }
    return number;
  }

  std::string string(const json& value, const std::string& key) const {
    if (!value.is_string()) {
      fail("\"" + key + "\" must be a string, not " + value.dump());
    }
    return value.get<std::string>();
  }

  std::vector<std::string> strings(const json& value, const std::string& key) const {
    if (!value.is_array()) {
      fail("\"" + key + "\" must be an array of strings, not " + value.dump());
    }
    std::vector<std::string> result;
    for (const auto& item : value) {
      result.push_back(string(item, key + "[]"));
    }
    return result;
  }

  MetricClassRule metric_rule(const json& value, const std::string& key, MetricClassRule rule) const {
    if (!value.is_object()) {
      fail("\"" + key + "\" must be an object, not " + value.dump());
    }
    check_keys(value, key + ".", {"threshold", "gate"});
    if (value.contains("threshold")) {
      rule.threshold = number(value["threshold"], key + ".threshold", 0.0, 100.0);
    }
    if (value.contains("gate")) {
      const std::string gate = string(value["gate"], key + ".gate");
      if (gate == "auto") {
        rule.gate = GateMode::automatic;
      } else if (gate == "always") {
        rule.gate = GateMode::always;
      } else if (gate == "never") {
        rule.gate = GateMode::never;
      } else {
        fail("\"" + key + ".gate\" must be \"auto\", \"always\" or \"never\", not \"" + gate + "\"");
      }
    }
    return rule;
  }

 private:
  std::string m_source;
};

}  // namespace

const char* metric_class_key(MetricClass metric_class) {
  switch (metric_class) {
  case MetricClass::end_to_end:
    return "end_to_end";
  case MetricClass::device:
    return "device";
  case MetricClass::self_cpu:
    return "self_cpu";
  case MetricClass::step_time:
    return "step_time";
  }
  return "end_to_end";
}

const char* sample_unit_key(SampleUnit unit) {
  return unit == SampleUnit::run ? "run" : "step";
}

const char* sample_unit_description(SampleUnit unit) {
  return unit == SampleUnit::run ? "run (one sample per run: the median of its steps)" : "step (one sample per step)";
}

std::optional<SampleUnit> parse_sample_unit(std::string_view text) {
  if (text == "step") {
    return SampleUnit::step;
  }
  if (text == "run") {
    return SampleUnit::run;
  }
  return std::nullopt;
}

const MetricClassRule& RuleSet::rule_for(MetricClass metric_class) const {
  switch (metric_class) {
  case MetricClass::end_to_end:
    return end_to_end;
  case MetricClass::device:
    return device;
  case MetricClass::self_cpu:
    return self_cpu;
  case MetricClass::step_time:
    return step_time;
  }
  return end_to_end;
}

double RuleSet::threshold_for(MetricClass metric_class, std::string_view op_name) const {
  if (metric_class == MetricClass::device || metric_class == MetricClass::self_cpu) {
    for (const OpRule& rule : ops) {
      if (glob_match(rule.pattern, op_name)) {
        return rule.threshold;
      }
    }
  }
  return rule_for(metric_class).threshold;
}

bool RuleSet::is_ignored(std::string_view op_name) const {
  return std::any_of(ignore.begin(), ignore.end(), [&](const std::string& p) { return glob_match(p, op_name); });
}

const Waiver* RuleSet::waiver_for(std::string_view name, std::string_view today) const {
  for (const Waiver& waiver : waivers) {
    if (glob_match(waiver.pattern, name) && today <= std::string_view(waiver.expires)) {
      return &waiver;
    }
  }
  return nullptr;
}

namespace {

// The statistics of the rules: alpha, correction, per-class metric rules, floor, material share and
// between-run allowance.
void parse_statistics(const json& doc, const RulesParser& parser, RuleSet& rules) {
  if (doc.contains("alpha")) {
    rules.alpha = parser.number(doc["alpha"], "alpha", 1e-12, 0.5);
  }
  if (doc.contains("correction")) {
    const std::string correction = parser.string(doc["correction"], "correction");
    if (correction == "holm") {
      rules.correction = Correction::holm;
    } else if (correction == "bonferroni") {
      rules.correction = Correction::bonferroni;
    } else {
      parser.fail("\"correction\" must be \"holm\" or \"bonferroni\" (the gate controls the family-wise error "
                  "rate), not \"" +
                  correction + "\"");
    }
  }
  if (doc.contains("metrics")) {
    const json& metrics = doc["metrics"];
    if (!metrics.is_object()) {
      parser.fail("\"metrics\" must be an object");
    }
    parser.check_keys(metrics, "metrics.", {"end_to_end", "device", "self_cpu", "step_time"});
    for (MetricClass c :
         {MetricClass::end_to_end, MetricClass::device, MetricClass::self_cpu, MetricClass::step_time}) {
      const std::string key = metric_class_key(c);
      if (metrics.contains(key)) {
        MetricClassRule& rule = c == MetricClass::end_to_end ? rules.end_to_end
                                : c == MetricClass::device   ? rules.device
                                : c == MetricClass::self_cpu ? rules.self_cpu
                                                             : rules.step_time;
        rule = parser.metric_rule(metrics[key], "metrics." + key, rule);
      }
    }
  }
  if (doc.contains("floor_us")) {
    rules.floor_us = parser.number(doc["floor_us"], "floor_us", 0.0, 1e12);
  }
  if (doc.contains("material_share")) {
    rules.material_share = parser.number(doc["material_share"], "material_share", 0.0, 1.0);
  }
  if (doc.contains("between_run_allowance")) {
    rules.between_run_allowance = parser.number(doc["between_run_allowance"], "between_run_allowance", 0.0, 100.0);
  }
  if (doc.contains("max_excluded_share")) {
    rules.max_excluded_share = parser.number(doc["max_excluded_share"], "max_excluded_share", 0.0, 1.0);
  }
  if (doc.contains("gate_runtime_calls")) {
    if (!doc["gate_runtime_calls"].is_boolean()) {
      parser.fail("\"gate_runtime_calls\" must be true or false, not " + doc["gate_runtime_calls"].dump());
    }
    rules.gate_runtime_calls = doc["gate_runtime_calls"].get<bool>();
  }
  if (doc.contains("price_per_hour")) {
    rules.price_per_hour = parser.number(doc["price_per_hour"], "price_per_hour", 1e-12, 1e9);
  }
}

// Which ops are left out (ignore) and which get their own threshold (ops).
void parse_op_rules(const json& doc, const RulesParser& parser, RuleSet& rules) {
  if (doc.contains("ignore")) {
    rules.ignore = parser.strings(doc["ignore"], "ignore");
    for (std::size_t i = 0; i < rules.ignore.size(); ++i) {
      if (is_catch_all_pattern(rules.ignore[i])) {
        parser.fail("\"ignore[" + std::to_string(i) + "]\" is \"" + rules.ignore[i] +
                    "\", which matches every op: catch-all patterns are refused in ignore and waivers (name the ops)");
      }
    }
  }
  if (doc.contains("ops")) {
    if (!doc["ops"].is_array()) {
      parser.fail("\"ops\" must be an array");
    }
    for (const auto& op : doc["ops"]) {
      if (!op.is_object()) {
        parser.fail("\"ops[]\" entries must be objects, not " + op.dump());
      }
      parser.check_keys(op, "ops[].", {"pattern", "threshold"});
      if (!op.contains("pattern") || !op.contains("threshold")) {
        parser.fail("\"ops[]\" entries need \"pattern\" and \"threshold\"");
      }
      rules.ops.push_back({parser.string(op["pattern"], "ops[].pattern"),
                           parser.number(op["threshold"], "ops[].threshold", 0.0, 100.0)});
    }
  }
}

// What one sample is: drop_first_steps and unit.
void parse_sampling(const json& doc, const RulesParser& parser, RuleSet& rules) {
  if (doc.contains("drop_first_steps")) {
    rules.drop_first_steps =
        static_cast<std::size_t>(parser.number(doc["drop_first_steps"], "drop_first_steps", 0, 1e6));
  }
  if (doc.contains("unit")) {
    const std::string unit = parser.string(doc["unit"], "unit");
    const std::optional<SampleUnit> parsed = parse_sample_unit(unit);
    if (!parsed) {
      parser.fail("\"unit\" must be \"step\" or \"run\", not \"" + unit + "\"");
    }
    rules.unit = *parsed;
  }
}

// What is accepted although it differs or regressed: allow_mismatch, waivers and their maximum length.
void parse_acceptances(const json& doc, const RulesParser& parser, RuleSet& rules) {
  if (doc.contains("allow_mismatch")) {
    rules.allow_mismatch = parser.strings(doc["allow_mismatch"], "allow_mismatch");
  }
  if (doc.contains("max_waiver_days")) {
    rules.max_waiver_days = static_cast<int>(parser.number(doc["max_waiver_days"], "max_waiver_days", 1, 3650));
  }
  if (doc.contains("waivers")) {
    if (!doc["waivers"].is_array()) {
      parser.fail("\"waivers\" must be an array");
    }
    for (const auto& item : doc["waivers"]) {
      const std::string where = "waivers[" + std::to_string(rules.waivers.size()) + "]";
      if (!item.is_object()) {
        parser.fail("\"waivers[]\" entries must be objects, not " + item.dump());
      }
      parser.check_keys(item, "waivers[].", {"pattern", "reason", "expires"});
      if (!item.contains("pattern") || !item.contains("reason") || !item.contains("expires")) {
        parser.fail("\"waivers[]\" entries need \"pattern\", \"reason\" and \"expires\"");
      }
      Waiver waiver{parser.string(item["pattern"], "waivers[].pattern"),
                    parser.string(item["reason"], "waivers[].reason"),
                    parser.string(item["expires"], "waivers[].expires")};
      if (!parse_iso_date(waiver.expires)) {
        parser.fail("\"waivers[].expires\" must be a date YYYY-MM-DD, not \"" + waiver.expires + "\"");
      }
      if (waiver.reason.find_first_not_of(" \t\r\n") == std::string::npos) {
        parser.fail("\"" + where + ".reason\" is empty: a waiver must say why the regression is accepted");
      }
      if (is_catch_all_pattern(waiver.pattern)) {
        parser.fail(
            "\"" + where + ".pattern\" is \"" + waiver.pattern +
            "\", which matches every metric: catch-all patterns are refused in waivers and ignore (name the ops)");
      }
      rules.waivers.push_back(std::move(waiver));
    }
  }
}

}  // namespace

RuleSet parse_rules(std::string_view text, const std::string& source) {
  JsonReadOptions options;
  options.comments = true;
  const json doc = parse_json_input(text, source, options).value;
  const RulesParser parser(source);
  if (!doc.is_object()) {
    parser.fail("rules must be a JSON object");
  }
  parser.check_keys(doc, "",
                    {"schema", "alpha", "correction", "metrics", "floor_us", "material_share", "between_run_allowance",
                     "max_excluded_share", "gate_runtime_calls", "ignore", "ops", "drop_first_steps", "unit",
                     "allow_mismatch", "waivers", "max_waiver_days", "price_per_hour"});
  RuleSet rules;
  rules.source = source;
  rules.text = std::string(text);
  if (doc.contains("schema") && doc["schema"] != "neuron-gate.rules/1") {
    parser.fail("\"schema\" must be \"neuron-gate.rules/1\", not " + doc["schema"].dump());
  }
  parse_statistics(doc, parser, rules);
  parse_op_rules(doc, parser, rules);
  parse_sampling(doc, parser, rules);
  parse_acceptances(doc, parser, rules);
  return rules;
}

bool is_catch_all_pattern(std::string_view pattern) {
  return pattern.find('*') != std::string_view::npos && pattern.find_first_not_of("*?") == std::string_view::npos;
}

void check_waiver_expiry(const RuleSet& rules, std::string_view today) {
  const std::optional<std::int64_t> today_days = parse_iso_date(today);
  if (!today_days) {
    throw UsageError("today's date must be YYYY-MM-DD, not \"" + std::string(today) + "\"");
  }
  for (std::size_t i = 0; i < rules.waivers.size(); ++i) {
    const Waiver& waiver = rules.waivers[i];
    const std::int64_t days = parse_iso_date(waiver.expires).value_or(0) - *today_days;
    if (days > rules.max_waiver_days) {
      throw InputError(rules.source, "\"waivers[" + std::to_string(i) + "]\" (pattern \"" + waiver.pattern +
                                         "\") expires " + waiver.expires + ", " + std::to_string(days) +
                                         " days after today (" + std::string(today) + "); the rules allow at most " +
                                         std::to_string(rules.max_waiver_days) + " days (max_waiver_days)");
    }
  }
}

RuleSet load_rules(const std::string& path) {
  return parse_rules(read_input_text(path).text, path);
}

RuleSet default_rules() {
  return parse_rules(k_default_rules_text, "built-in rules/default.json");
}

namespace {

const char* gate_mode_key(GateMode mode) {
  switch (mode) {
  case GateMode::automatic:
    return "auto";
  case GateMode::always:
    return "always";
  case GateMode::never:
    return "never";
  }
  return "auto";
}

}  // namespace

std::string applied_rules_json(const RuleSet& rules) {
  nlohmann::ordered_json j;
  j["schema"] = "neuron-gate.rules/1";
  j["alpha"] = rules.alpha;
  j["correction"] = rules.correction == Correction::bonferroni ? "bonferroni" : "holm";
  nlohmann::ordered_json metrics;
  for (MetricClass c : {MetricClass::end_to_end, MetricClass::device, MetricClass::self_cpu, MetricClass::step_time}) {
    const MetricClassRule& rule = rules.rule_for(c);
    metrics[metric_class_key(c)] = {{"threshold", rule.threshold}, {"gate", gate_mode_key(rule.gate)}};
  }
  j["metrics"] = metrics;
  j["floor_us"] = rules.floor_us;
  j["material_share"] = rules.material_share;
  j["between_run_allowance"] = rules.between_run_allowance;
  j["max_excluded_share"] = rules.max_excluded_share;
  j["gate_runtime_calls"] = rules.gate_runtime_calls;
  j["ignore"] = rules.ignore;
  j["ops"] = nlohmann::ordered_json::array();
  for (const OpRule& op : rules.ops) {
    j["ops"].push_back({{"pattern", op.pattern}, {"threshold", op.threshold}});
  }
  j["drop_first_steps"] = rules.drop_first_steps;
  j["unit"] = sample_unit_key(rules.unit);
  j["allow_mismatch"] = rules.allow_mismatch;
  j["waivers"] = nlohmann::ordered_json::array();
  for (const Waiver& waiver : rules.waivers) {
    j["waivers"].push_back({{"pattern", waiver.pattern}, {"reason", waiver.reason}, {"expires", waiver.expires}});
  }
  j["max_waiver_days"] = rules.max_waiver_days;
  if (rules.price_per_hour) {
    j["price_per_hour"] = *rules.price_per_hour;  // only when set, so rules without it keep their hash
  }
  return j.dump(2) + "\n";
}

}  // namespace neuron_gate
