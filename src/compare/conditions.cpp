#include "compare/conditions.hpp"

#include "compare/inputs_condition.hpp"
#include "compare/neuron_conditions.hpp"
#include "compare/side_view.hpp"
#include "formats/neuron_summary.hpp"
#include "profile/ranks.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"
#include "util/text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <tuple>

namespace neuron_gate {
namespace {

// The manifest field that names the workload: shown in the conditions table, never blocking.
constexpr const char* k_informational_field = "manifest.workload";
// The price per instance-hour: shown, never blocking (compare/cost.hpp).
constexpr const char* k_price_field = "manifest.price_per_hour";

// "1 step per trace" or "1 step per trace (28), 2 steps per trace (2)".
std::string describe_steps(const std::vector<TraceSamples>& traces) {
  std::map<std::size_t, std::size_t> traces_by_steps;
  bool any_steps = false;
  for (const TraceSamples& trace : traces) {
    any_steps = any_steps || trace.has_profiler_steps;
    ++traces_by_steps[trace.has_profiler_steps ? trace.steps.size() : 0];
  }
  if (!any_steps) {
    return "no ProfilerStep (one sample per trace)";
  }
  std::string text;
  for (const auto& [steps, count] : traces_by_steps) {
    if (!text.empty()) {
      text += ", ";
    }
    text += plural(steps, "step") + " per trace";
    if (traces_by_steps.size() > 1) {
      text += " (" + std::to_string(count) + ")";
    }
  }
  return text;
}

// "2 (ranks 0, 1)", "1 (rank 0)", "3 (ranks 0, 1, unknown)".
std::string describe_ranks(const std::set<std::optional<unsigned>>& ranks) {
  std::string ids;
  for (const std::optional<unsigned>& rank : ranks) {
    ids += (ids.empty() ? "" : ", ") + (rank ? std::to_string(*rank) : std::string("unknown"));
  }
  return std::to_string(ranks.size()) + (ranks.size() == 1 ? " (rank " : " (ranks ") + ids + ")";
}

// What to do about incomplete Neuron artifacts; where a side lacks NEFFs, the other side's NEFFs that it
// does not have (by file name), so the user knows which files to look for.
std::string artifacts_note(const Fingerprint& base, const Fingerprint& head) {
  std::string note;
  for (const auto& [side, other, label] : {std::tuple{&base, &head, "base"}, std::tuple{&head, &base, "head"}}) {
    auto value = side->values.find("artifacts");
    if (value == side->values.end() || value->second.find("no NEFF") == std::string::npos) {
      continue;
    }
    std::set<std::string> missing;
    std::set_difference(other->neff_names.begin(), other->neff_names.end(), side->neff_names.begin(),
                        side->neff_names.end(), std::inserter(missing, missing.end()));
    note += std::string(note.empty() ? "" : "; ") + label + " lacks NEFFs" +
            (missing.empty() ? std::string() : " (the other side has " + join_set(missing) + ")") +
            ": copy them from the NEFF cache (e.g. /tmp/neff_cache) into the capture folder, or capture with "
            "NeuronConfig(neff_cache_dir=...)";
  }
  return note.empty() ? "an incomplete capture is not the same measurement: capture again, or accept the "
                        "difference with --allow-mismatch artifacts"
                      : note;
}

// A metadata value as text: a JSON string unquoted, anything else as written.
std::string metadata_text(const std::string& value) {
  if (value.size() >= 2 && value.front() == '"') {
    try {
      return nlohmann::json::parse(value).get<std::string>();
    } catch (const nlohmann::json::exception&) {
      return value;
    }
  }
  return value;
}

// "world_size" from distributedInfo.world_size and "devices" from deviceProperties (count and names),
// the distinct values of the side's traces joined; absent when no trace tells.
void add_world_and_devices(const SideSamples& side, Fingerprint& fp) {
  std::set<std::string> world_sizes, devices;
  for (const TraceSamples& trace : side.traces) {
    if (auto it = trace.metadata.find("distributedInfo.world_size"); it != trace.metadata.end()) {
      world_sizes.insert(metadata_text(it->second));
    }
    const auto count = trace.metadata.find("deviceProperties.count");
    const auto names = trace.metadata.find("deviceProperties.names");
    if (names != trace.metadata.end()) {
      devices.insert((count == trace.metadata.end() ? std::string("?") : count->second) + " × " +
                     metadata_text(names->second));
    }
  }
  if (!world_sizes.empty()) {
    fp.values["world_size"] = join_set(world_sizes);
  }
  if (!devices.empty()) {
    fp.values["devices"] = join_set(devices);
  }
}

}  // namespace

const std::vector<std::string>& condition_names() {
  // clang-format off
  static const std::vector<std::string> names{
      "schedule", "traces", "processes", "samples_from", "activities", "device_time", "end_to_end_metrics",
      "inputs", "record_shapes", "with_stack", "ranks", "world_size", "devices", "neuron_cores", "artifacts",
      "trace_format", "neuron_core_selection", "neff_hashes"};
  // clang-format on
  return names;
}

namespace {

// A trace's format: its schemaVersion and the generation of its event categories — Kineto's current names
// (cpu_op, kernel, cuda_runtime, ...), the 2021 names (Operator, Kernel, Runtime, Memcpy, Memset), or none
// (the legacy autograd profiler). The reader aliases the generations (formats/event_kinds.cpp); a change
// of format between the sides is a change of profiler, so it is a condition, not silently aliased.
std::string trace_format(const TraceSamples& trace) {
  static const std::set<std::string> old_names{"Operator", "Kernel", "Runtime", "Memcpy", "Memset"};
  // The current names that replaced them (user_annotation, Trace and the like are in both generations).
  static const std::set<std::string> current_names{
      "cpu_op",      "kernel",     "gpu_memcpy",          "gpu_memset",         "cuda_runtime", "cuda_driver",
      "xpu_runtime", "xpu_driver", "privateuse1_runtime", "privateuse1_driver", "mtia_runtime", "mtia_ccp_events"};
  bool old_generation = false, current = false, any = false;
  for (const std::string& category : trace.categories) {
    old_generation = old_generation || old_names.count(category) != 0;
    current = current || current_names.count(category) != 0;
    any = any || !category.empty();
  }
  const auto version = trace.metadata.find("schemaVersion");
  const std::string schema =
      version == trace.metadata.end() ? "no schemaVersion" : "schemaVersion " + metadata_text(version->second);
  const char* generation = old_generation && current ? "2021 and current categories"
                           : old_generation          ? "2021 categories (Operator, Kernel, Runtime)"
                           : current                 ? "current categories (cpu_op, kernel, ...)"
                           : any                     ? "categories of neither generation"
                                                     : "no categories (legacy autograd profiler)";
  return schema + ", " + generation;
}

// From the traces: schedule, traces, samples_from, activities, device_time, record_shapes, with_stack,
// trace_format, and the op input shapes (the inputs condition).
void add_trace_conditions(const SideSamples& side, Fingerprint& fp) {
  if (side.traces.empty()) {
    fp.values["traces"] = "0";
    return;
  }
  fp.values["schedule"] = side.samples_from_tables ? "one sample per key_averages table" : describe_steps(side.traces);
  fp.values["traces"] = std::to_string(side.traces.size());
  fp.values["samples_from"] = side.samples_from_tables ? "key_averages tables" : "traces";
  std::set<std::string> activities, formats;
  bool device = false;
  for (const TraceSamples& trace : side.traces) {
    activities.insert("CPU ops");
    formats.insert(trace_format(trace));
    device = device || trace.has_device_events;
    for (const std::string& category : trace.categories) {
      if (category.find("runtime") != std::string::npos || category == "Runtime") {
        activities.insert("runtime calls");
      }
    }
    for (const char* key : {"record_shapes", "with_stack"}) {
      auto it = trace.metadata.find(key);
      if (it != trace.metadata.end()) {
        fp.values[key] = it->second;
      }
    }
    for (const auto& [op, shapes] : trace.input_shapes) {
      fp.input_shapes[op].insert(shapes.begin(), shapes.end());
    }
  }
  fp.values["activities"] = join_set(activities);
  fp.values["trace_format"] = join_set(formats);
  fp.values["device_time"] = device ? "present" : "none";
}

// "processes": the run folders of the side's traces and the fewest runs of its end-to-end metrics that may gate.
void add_processes(const SideSamples& side, Fingerprint& fp) {
  fp.trace_runs = side_runs(side).size();
  for (const EndToEndMetric& metric : side.end_to_end) {
    // Metrics that may gate: not those marked "gates": false, nor device summary measures that only explain.
    const bool may_gate =
        metric.gates && (metric.origin == EndToEndOrigin::application || metric.name == k_device_total_time_metric);
    if (may_gate) {
      fp.e2e_runs = fp.e2e_runs == 0 ? metric.runs : std::min(fp.e2e_runs, metric.runs);
    }
  }
  std::string text;
  if (fp.trace_runs > 0) {
    text = plural(fp.trace_runs, "run folder") + " of traces";
  }
  if (fp.e2e_runs > 0) {
    text += (text.empty() ? "" : ", ") + std::string("end-to-end from ") + plural(fp.e2e_runs, "run");
  }
  if (!text.empty()) {
    fp.values["processes"] = text;
  }
}

// Head's samples come from no fewer processes than base's, in traces and end to end.
bool enough_processes(const Fingerprint& base, const Fingerprint& head) {
  return head.trace_runs >= base.trace_runs && head.e2e_runs >= base.e2e_runs;
}

}  // namespace

Fingerprint fingerprint_side(const SideSamples& side) {
  Fingerprint fp;
  add_trace_conditions(side, fp);
  if (fp.input_shapes.empty()) {
    fp.input_shapes = side.table_input_shapes;
  }
  std::string metrics;
  for (const EndToEndMetric& metric : side.end_to_end) {
    // The direction too where it is "higher" (throughput): a side that flips it measures another metric.
    metrics += (metrics.empty() ? "" : ", ") + metric.name + " (" + metric.unit +
               (metric.better == Better::higher ? ", higher is better" : "") + ")";
  }
  fp.values["end_to_end_metrics"] = metrics.empty() ? "none" : metrics;
  add_processes(side, fp);
  add_neuron_conditions(side, fp);
  // Ranks the traces themselves tell (distributedInfo.rank, rank-N / _rank_N / workerN names), without
  // rank folders: one known rank is a condition too (a rank-0 file against a rank-1 file).
  const bool any_known_rank = std::any_of(side.traces.begin(), side.traces.end(),
                                          [](const TraceSamples& trace) { return trace.rank.has_value(); });
  if (fp.values.count("ranks") == 0 && (distinct_ranks(side.traces).size() > 1 || any_known_rank)) {
    fp.values["ranks"] = describe_ranks(distinct_ranks(side.traces));
  }
  add_world_and_devices(side, fp);
  if (side.manifest) {
    fp.has_manifest = true;
    for (const auto& [field, value] : side.manifest->fields) {
      fp.values["manifest." + field] = value;
    }
  }
  return fp;
}

bool ConditionsDiff::comparable() const {
  return std::all_of(rows.begin(), rows.end(), [](const ConditionRow& row) { return row.matches || row.accepted; });
}

namespace {

// Refuses an --allow-mismatch / allow_mismatch name that is no condition, suggesting the closest.
void check_allowed_names(const std::vector<std::string>& allowed) {
  for (const std::string& name : allowed) {
    const bool known = std::find(condition_names().begin(), condition_names().end(), name) != condition_names().end() ||
                       name == "manifest" || name.rfind("manifest.", 0) == 0;  // "manifest": every manifest field
    if (!known) {
      std::string message = "unknown condition \"" + name + "\"";
      if (auto suggestion = closest_word(name, condition_names())) {
        message += ", did you mean \"" + *suggestion + "\"?";
      }
      throw UsageError(message);
    }
  }
}

// The rows' order: the fixed conditions, then each side's manifest fields in first-seen order.
std::vector<std::string> row_names(const Fingerprint& base, const Fingerprint& head) {
  std::vector<std::string> names = condition_names();
  for (const auto* fp : {&base, &head}) {
    for (const auto& [name, value] : fp->values) {
      if (name.rfind("manifest.", 0) == 0 && std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

// A value recorded on one side only: a manifest field head alone records (base's capture may predate it),
// world_size and devices (e.g. deviceProperties written by one Kineto version only) and a single known rank
// are shown, not verified. A manifest field base records and head lacks is not: head is the pull request's
// evidence, and a head without its manifest (or with fields taken out) would otherwise pass unverified at
// another operating point, thread count or grad mode (docs/decision-rule.md, fail closed).
void accept_one_sided(ConditionRow& row, bool head_lacks) {
  const std::string& name = row.name;
  const bool manifest = name.rfind("manifest.", 0) == 0;
  if (manifest && head_lacks && name != k_informational_field) {
    return;  // stays a difference; difference_note says why
  }
  if (manifest || name == "world_size" || name == "devices") {
    row.matches = true;
    row.verified = false;
    row.note = "recorded on one side only: not verified";
  }
  if (name == "ranks" && (row.base.rfind("1 (rank ", 0) == 0 || row.head.rfind("1 (rank ", 0) == 0)) {
    row.matches = true;  // one rank known on one side, none on the other: a single process each
    row.verified = false;
    row.note = "the rank is recorded on one side only: assumed the same process";
  }
}

// Why a differing condition matters and what to do, for the row's note ("" where nothing is to add).
std::string difference_note(const std::string& name, const Fingerprint& base, const Fingerprint& head) {
  if (name.rfind("manifest.", 0) == 0 && !head.has_manifest) {
    return "head has no run manifest (neuron-gate.json) while base's records this field: head's evidence must "
           "state how it was captured; capture head with the same helper and settings, or accept the difference "
           "with --allow-mismatch manifest";
  }
  if (name.rfind("manifest.", 0) == 0 && head.values.count(name) == 0) {
    return "base's run manifest records this field and head's does not: head's evidence must state it too; "
           "capture head with the same helper and settings, or accept the difference with --allow-mismatch " +
           name;
  }
  if (name.rfind("manifest.", 0) == 0) {
    return "the run manifests (neuron-gate.json) say the runs were made differently: profile both sides the "
           "same way, or accept the difference with --allow-mismatch " +
           name;
  }
  if (name == "artifacts") {
    return artifacts_note(base, head);
  }
  if (name == "devices") {
    return "the traces' deviceProperties name other accelerators (model or count): device times of different "
           "hardware are not a comparison of the code; profile both sides on the same instance type";
  }
  if (name == "world_size") {
    return "distributedInfo.world_size differs: a run with another number of processes does other work per rank";
  }
  if (name == "ranks") {
    return "ranks are compared rank to rank (base rank k against head rank k): profile both sides with the "
           "same number of processes; a rank on one side only cannot be compared";
  }
  if (name == "trace_format") {
    return "the traces were written by different profiler versions (schemaVersion or event category names "
           "differ): profile both sides with the same PyTorch and Kineto, or accept it with --allow-mismatch "
           "trace_format";
  }
  if (name == "processes") {
    return "head's samples come from fewer processes than base's, and samples of fewer processes are judged by "
           "a looser bound (docs/decision-rule.md): capture head with as many runs as base, or accept it with "
           "--allow-mismatch processes";
  }
  if (name == "neuron_core_selection") {
    return "the manifest's neuron_config.capture_enabled_for_nc selects NeuronCores that are not the ones "
           "holding NTFF files: the capture did not trace what it says; fix the selection and capture again, or "
           "accept it with --allow-mismatch neuron_core_selection";
  }
  if (name == "device_time") {
    return "a side without device time although the other has it: likely the device was not synchronized "
           "before the profiler stopped, or device activity was not requested";
  }
  return "";
}

// The row of one condition other than inputs; nullopt when neither side records it.
std::optional<ConditionRow> value_row(const std::string& name, const Fingerprint& base, const Fingerprint& head) {
  auto b = base.values.find(name);
  auto h = head.values.find(name);
  if (b == base.values.end() && h == head.values.end()) {
    return std::nullopt;
  }
  ConditionRow row;
  row.name = name;
  row.base = b == base.values.end() ? "not recorded" : b->second;
  row.head = h == head.values.end() ? "not recorded" : h->second;
  row.matches = name == "artifacts"   ? row.base == "complete" && row.head == "complete"
                : name == "processes" ? enough_processes(base, head)
                : name == "neuron_core_selection"
                    ? neuron_core_selection_consistent(row.base) && neuron_core_selection_consistent(row.head)
                    : row.base == row.head;
  if (b == base.values.end() || h == head.values.end()) {
    accept_one_sided(row, h == head.values.end());
  }
  if (name == "neff_hashes" && !row.matches) {
    row.matches = true;  // a code change may recompile: stated, not refused (issue 37 item 3)
    row.verified = b != base.values.end() && h != head.values.end();
    row.note = !row.verified
                   ? "NEFF hashes on one side only: not verified"
                   : "compiled executable changed: the NEFF hashes differ, so the device runs another compiled graph "
                     "(expected when the change recompiles; otherwise check the compiler version and flags)";
  }
  if (name == k_informational_field && !row.matches) {
    row.matches = true;  // a name, not a measurement condition: the inputs are compared instead
    row.note = "the workload's name differs: shown, not a condition (its inputs are compared)";
  }
  if (name == k_price_field && !row.matches) {
    row.matches = true;  // what the instance costs does not change what was measured (docs/user-guide.md "Cost")
    row.note = "the price differs: shown, not a condition (the profiles measure the same work whatever it costs); "
               "each side's cost uses its own price unless the rules set one, so the cost change includes the "
               "price change";
  }
  if (!row.matches) {
    row.note = difference_note(name, base, head);
  }
  return row;
}

}  // namespace

ConditionsDiff diff_conditions(const Fingerprint& base, const Fingerprint& head,
                               const std::vector<std::string>& allowed) {
  check_allowed_names(allowed);
  auto is_allowed = [&](const std::string& name) {
    return std::find(allowed.begin(), allowed.end(), name) != allowed.end() ||
           (name.rfind("manifest.", 0) == 0 && std::find(allowed.begin(), allowed.end(), "manifest") != allowed.end());
  };
  ConditionsDiff diff;
  for (const std::string& name : row_names(base, head)) {
    std::optional<ConditionRow> row =
        name == "inputs" ? std::optional<ConditionRow>(inputs_row(base, head)) : value_row(name, base, head);
    if (row) {
      row->accepted = !row->matches && is_allowed(name);
      diff.rows.push_back(std::move(*row));
    }
  }
  return diff;
}

}  // namespace neuron_gate
