#include "formats/manifest.hpp"

#include "input/json_input.hpp"

#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace neuron_gate {

namespace {

using nlohmann::json;

constexpr std::string_view k_schema = "neuron-gate.manifest/1";

// A JSON value as shown in an error message, cut when long.
std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 80) {
    text = text.substr(0, 77) + "...";
  }
  return text;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

std::optional<std::uint32_t> core_number(std::string_view text) {
  text = trimmed(text);
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

class ManifestParser {
 public:
  explicit ManifestParser(std::string path) : m_path(std::move(path)) {}

  RunManifest parse(const json& doc) {
    if (!doc.is_object() || !doc.contains("schema")) {
      fail("not a run manifest: expected \"schema\": \"" + std::string(k_schema) + "\"");
    }
    if (doc["schema"] != k_schema) {
      fail("unknown schema, expected \"" + std::string(k_schema) + "\", not " + shown(doc["schema"]));
    }
    check_keys(doc, "", {"schema",           "workload",      "operating_point", "model_version",
                         "compilation_path", "device",        "versions",        "instance_type",
                         "profiler",         "neuron_config", "schedule",        "timing",
                         "inputs",           "notes",         "price_per_hour",  "commit",
                         "pairing",          "rank",          "world_size",      "intra_op_threads",
                         "grad_mode"});
    for (const char* key :
         {"workload", "operating_point", "model_version", "compilation_path", "device", "instance_type"}) {
      if (doc.contains(key)) {
        set(key, string(doc[key], key));
      }
    }
    run_settings(doc);
    if (doc.contains("versions")) {
      for (const auto& item : object(doc["versions"], "versions").items()) {
        const std::string field = "versions." + item.key();
        set(field, string(item.value(), field));
      }
    }
    if (doc.contains("profiler")) {
      profiler(object(doc["profiler"], "profiler"));
    }
    if (doc.contains("neuron_config")) {
      neuron_config(object(doc["neuron_config"], "neuron_config"));
    }
    if (doc.contains("schedule")) {
      const json& schedule = object(doc["schedule"], "schedule");
      check_keys(schedule, "schedule.", {"wait", "warmup", "active", "repeat", "skip_first", "skip_first_wait"});
      for (const auto& item : schedule.items()) {
        const std::string field = "schedule." + item.key();
        set(field, count(item.value(), field));
      }
    }
    if (doc.contains("timing")) {
      timing(object(doc["timing"], "timing"));
    }
    if (doc.contains("inputs")) {
      inputs(doc["inputs"]);
    }
    if (doc.contains("commit")) {
      // The commit the run profiled: provenance, never a condition (base and head differ by design).
      const std::string commit = string(doc["commit"], "commit");
      if (commit.size() < 7 || commit.size() > 64 ||
          commit.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
        fail("\"commit\" must be a git commit id (7 to 64 hex digits), not " + shown(doc["commit"]));
      }
      m_manifest.commit = commit;
    }
    if (doc.contains("pairing")) {
      const json& pairing = object(doc["pairing"], "pairing");
      check_keys(pairing, "pairing.", {"session", "order"});
      const std::string session = pairing.contains("session") ? string(pairing["session"], "pairing.session") : "";
      if (session.empty() || session.size() > 128 ||
          !std::all_of(session.begin(), session.end(), [](char c) { return c >= 0x21 && c <= 0x7e; })) {
        fail("\"pairing.session\" must be 1 to 128 printable ASCII characters without spaces, not " +
             shown(pairing.contains("session") ? pairing["session"] : json()));
      }
      m_manifest.pairing_session = session;
      if (pairing.contains("order")) {
        pairing_order(pairing["order"]);
      }
    }
    if (doc.contains("price_per_hour")) {
      const json& price = doc["price_per_hour"];
      if (!price.is_number() || !(price.get<double>() > 0.0) || price.get<double>() > 1e9) {
        fail("\"price_per_hour\" must be a number above 0 (USD per instance-hour), not " + shown(price));
      }
      set("price_per_hour", price.dump());
    }
    return std::move(m_manifest);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw InputError(m_path, problem); }

  void set(const std::string& field, std::string value) { m_manifest.fields[field] = std::move(value); }

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

  const json& object(const json& value, const std::string& field) const {
    if (!value.is_object()) {
      fail("\"" + field + "\" must be an object, not " + shown(value));
    }
    return value;
  }

  std::string string(const json& value, const std::string& field) const {
    if (!value.is_string()) {
      fail("\"" + field + "\" must be a string, not " + shown(value));
    }
    return value.get<std::string>();
  }

  // "rank" (the rank of every trace on this side) and "world_size" (ranks in the run, > 0): rank marks
  // (profile/ranks.hpp); "intra_op_threads" (torch.get_num_threads(), > 0) and "grad_mode" ("enabled",
  // "no_grad" or "inference_mode"): how the steps ran. All kept as conditions.
  void run_settings(const json& doc) {
    if (doc.contains("rank")) {
      set("rank", count(doc["rank"], "rank"));
    }
    for (const char* key : {"world_size", "intra_op_threads"}) {
      if (doc.contains(key)) {
        if (doc[key] == 0) {
          fail("\"" + std::string(key) + "\" must be a positive integer, not 0");
        }
        set(key, count(doc[key], key));
      }
    }
    if (doc.contains("grad_mode")) {
      const std::string mode = string(doc["grad_mode"], "grad_mode");
      if (mode != "enabled" && mode != "no_grad" && mode != "inference_mode") {
        fail("\"grad_mode\" must be \"enabled\", \"no_grad\" or \"inference_mode\", not " + shown(doc["grad_mode"]));
      }
      set("grad_mode", mode);
    }
  }

  // A non-negative JSON integer as decimal text.
  std::string count(const json& value, const std::string& field) const {
    if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<std::int64_t>() < 0)) {
      fail("\"" + field + "\" must be a non-negative integer, not " + shown(value));
    }
    return value.dump();
  }

  std::string boolean(const json& value, const std::string& field) const {
    if (!value.is_boolean()) {
      fail("\"" + field + "\" must be true or false, not " + shown(value));
    }
    return value.get<bool>() ? "true" : "false";
  }

  // torch.profiler.profile settings: activities as a set, the flags as true/false.
  void profiler(const json& settings) {
    check_keys(settings, "profiler.",
               {"activities", "record_shapes", "with_stack", "profile_memory", "with_flops", "with_modules"});
    for (const auto& item : settings.items()) {
      const std::string field = "profiler." + item.key();
      set(field, item.key() == "activities" ? name_set(item.value(), field, "ProfilerActivity.", false)
                                            : boolean(item.value(), field));
    }
  }

  // How the un-profiled step was timed for e2e.json; "gate" names the end-to-end metric that decides.
  void timing(const json& settings) {
    check_keys(settings, "timing.", {"warmup", "repetitions", "calls_per_sample", "interleaved", "bursts", "gate"});
    for (const auto& item : settings.items()) {
      const std::string field = "timing." + item.key();
      if (item.key() == "gate") {
        const std::string gate = string(item.value(), field);
        if (gate.empty()) {
          fail("\"timing.gate\" must name an end-to-end metric such as \"latency\", not \"\"");
        }
        set(field, gate);
      } else {
        set(field, item.key() == "interleaved" ? boolean(item.value(), field) : count(item.value(), field));
      }
    }
  }

  void neuron_config(const json& config) {
    for (const auto& item : config.items()) {
      const std::string& key = item.key();
      const std::string field = "neuron_config." + key;
      const json& value = item.value();
      if (key == "modes") {
        set(field, name_set(value, field, "ProfileMode.", true));
      } else if (key == "capture_enabled_for_nc") {
        if (!value.is_string()) {
          fail("\"" + field + "\" must be a string such as \"0,1,2-5\", not " + shown(value));
        }
        set(field, canonical_core_list(value.get<std::string>(), m_path, field));
      } else if (key == "max_events_per_nc") {
        set(field, count(value, field));
      } else if (key == "profile_output_dir" || key == "neff_cache_dir") {
        continue;
      } else {
        set(field, value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
  }

  // A set of enum names: `prefix` dropped, optionally upper-cased, sorted, comma-joined; so
  // ["RUNTIME", "ProfileMode.DEVICE"] -> "DEVICE,RUNTIME" and ["PrivateUse1", "CPU"] -> "CPU,PrivateUse1".
  std::string name_set(const json& value, const std::string& field, const std::string& prefix, bool upper) const {
    if (!value.is_array()) {
      fail("\"" + field + "\" must be an array of strings, not " + shown(value));
    }
    std::set<std::string> names;
    for (const auto& mode : value) {
      std::string name = string(mode, field + "[]");
      if (name.rfind(prefix, 0) == 0) {
        name.erase(0, prefix.size());
      }
      if (upper) {
        std::transform(name.begin(), name.end(), name.begin(),
                       [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; });
      }
      names.insert(name);
    }
    std::string text;
    for (const auto& name : names) {
      text += (text.empty() ? "" : ",") + name;
    }
    return text;
  }

  // "pairing.order": at most 4096 entries "base/RUN" or "head/RUN", RUN a folder name of 1-64 of
  // [A-Za-z0-9._-], each once.
  void pairing_order(const json& order) {
    if (!order.is_array()) {
      fail("\"pairing.order\" must be an array of strings, not " + shown(order));
    }
    if (order.size() > 4096) {
      fail("\"pairing.order\" holds " + std::to_string(order.size()) + " entries, at most 4096");
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::string where = "pairing.order[" + std::to_string(i) + "]";
      const std::string entry = string(order[i], where);
      if (!is_pairing_order_entry(entry) || !seen.insert(entry).second) {
        fail("\"" + where + "\" must be \"base/RUN\" or \"head/RUN\" (RUN a run folder, each once), not " +
             shown(order[i]));
      }
      m_manifest.pairing_order.push_back(entry);
    }
  }

  void inputs(const json& value) {
    if (!value.is_array()) {
      fail("\"inputs\" must be an array of objects, not " + shown(value));
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string where = "inputs[" + std::to_string(i) + "]";
      const json& input = object(value[i], where);
      check_keys(input, where + ".", {"name", "shape", "dtype", "value"});
      if (!input.contains("name")) {
        fail("\"" + where + "\" needs a string \"name\"");
      }
      const std::string name = string(input["name"], where + ".name");
      if (!names.insert(name).second) {
        fail("two inputs named \"" + name + "\"");
      }
      const std::string prefix = "inputs[" + name + "]";
      if (input.contains("shape")) {
        const json& shape = input["shape"];
        const bool valid = shape.is_array() && std::all_of(shape.begin(), shape.end(), [](const json& dim) {
                             return dim.is_number_integer() || dim.is_string();
                           });
        if (!valid) {
          fail("\"" + prefix + ".shape\" must be an array of integers (or strings for symbolic sizes), not " +
               shown(shape));
        }
        set(prefix + ".shape", shape.dump());
      }
      if (input.contains("value")) {
        const json& scalar = input["value"];
        if (scalar.is_structured()) {
          fail("\"" + prefix + ".value\" must be a number, string, true, false or null, not " + shown(scalar));
        }
        set(prefix + ".value", scalar.dump());
      }
      if (input.contains("dtype")) {
        std::string dtype = string(input["dtype"], prefix + ".dtype");
        if (dtype.rfind("torch.", 0) == 0) {
          dtype.erase(0, 6);
        }
        set(prefix + ".dtype", dtype);
      }
    }
  }

  std::string m_path;
  RunManifest m_manifest;
};

}  // namespace

std::string canonical_core_list(std::string_view text, const std::string& path, const std::string& field) {
  const auto bad = [&]() {
    return InputError(path,
                      "\"" + field + "\" must list NeuronCores such as \"0,1,2-5\", not \"" + std::string(text) + "\"");
  };
  if (trimmed(text).empty()) {
    return "";
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto dash = item.find('-');
    const auto first = core_number(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : core_number(item.substr(dash + 1));
    if (!first || !last || *last < *first) {
      throw bad();
    }
    ranges.emplace_back(*first, *last);
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& range : ranges) {
    if (!merged.empty() && range.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  std::string canonical;
  for (const auto& [first, last] : merged) {
    canonical += canonical.empty() ? "" : ",";
    if (first == last) {
      canonical += std::to_string(first);
    } else if (last == first + 1) {
      canonical += std::to_string(first) + "," + std::to_string(last);
    } else {
      canonical += std::to_string(first) + "-" + std::to_string(last);
    }
  }
  return canonical;
}

bool looks_like_manifest(std::string_view head) {
  return head.find("\"neuron-gate.manifest/1\"") != std::string_view::npos;
}

RunManifest parse_manifest(std::string_view text, const std::string& path) {
  const json doc = parse_json_input(text, path).value;
  RunManifest manifest = ManifestParser(path).parse(doc);
  manifest.source_path = path;
  return manifest;
}

RunManifest read_manifest(const std::string& path) {
  return parse_manifest(read_input_text(path).text, path);
}

std::vector<ManifestDifference> diff_manifests(const RunManifest& base, const RunManifest& head) {
  std::set<std::string> fields;
  for (const auto& [field, value] : base.fields) {
    fields.insert(field);
  }
  for (const auto& [field, value] : head.fields) {
    fields.insert(field);
  }
  std::vector<ManifestDifference> differences;
  for (const auto& field : fields) {
    const auto in_base = base.fields.find(field);
    const auto in_head = head.fields.find(field);
    std::string base_value = in_base == base.fields.end() ? "absent" : in_base->second;
    std::string head_value = in_head == head.fields.end() ? "absent" : in_head->second;
    if (in_base == base.fields.end() || in_head == head.fields.end() || base_value != head_value) {
      differences.push_back({field, std::move(base_value), std::move(head_value)});
    }
  }
  return differences;
}

bool is_pairing_order_entry(std::string_view entry) {
  const std::string_view run = entry.size() > 5 ? entry.substr(5) : std::string_view();
  return (entry.substr(0, 5) == "base/" || entry.substr(0, 5) == "head/") && !run.empty() && run.size() <= 64 &&
         std::all_of(run.begin(), run.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
         });
}

}  // namespace neuron_gate
