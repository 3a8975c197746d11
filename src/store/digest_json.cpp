#include "store/digest_json.hpp"

#include "profile/converted_traces.hpp"
#include "profile/op_keys.hpp"
#include "store/digest_fields.hpp"

namespace neuron_gate {
namespace {

using json = nlohmann::json;

DataProblem problem_from_json(const DigestFields& f, const json& value, const std::string& where) {
  f.keys(value, where, {"kind", "file", "count", "byte", "example", "excluded_cpu_ns", "excluded_device_ns"});
  DataProblem problem;
  problem.kind = f.problem_kind(value, "kind", where);
  problem.file = f.str(value, "file", where);
  problem.count = f.count(value, "count", where);
  if (!f.at(value, "byte", where).is_null()) {
    problem.byte = static_cast<std::uint64_t>(f.count(value, "byte", where));
  }
  problem.example = f.str(value, "example", where);
  problem.excluded_cpu_ns = f.ns(value, "excluded_cpu_ns", where);
  problem.excluded_device_ns = f.ns(value, "excluded_device_ns", where);
  return problem;
}

std::vector<DataProblem> problems_from_json(const DigestFields& f, const json& value, const std::string& where) {
  std::vector<DataProblem> problems;
  f.array(value, where);
  for (std::size_t i = 0; i < value.size(); ++i) {
    problems.push_back(problem_from_json(f, value[i], where + "[" + std::to_string(i) + "]"));
  }
  return problems;
}

ScreenedTime screened_from_json(const DigestFields& f, const json& value, const std::string& where) {
  f.keys(value, where, {"kept_cpu_ns", "kept_device_ns", "excluded_cpu_ns", "excluded_device_ns", "device_time_lost"});
  ScreenedTime time;
  time.kept_cpu_ns = f.ns(value, "kept_cpu_ns", where);
  time.kept_device_ns = f.ns(value, "kept_device_ns", where);
  time.excluded_cpu_ns = f.ns(value, "excluded_cpu_ns", where);
  time.excluded_device_ns = f.ns(value, "excluded_device_ns", where);
  time.device_time_lost = f.boolean(value, "device_time_lost", where);
  return time;
}

// A step; its ops go into `ops` by key (set_trace_ops interns them once the trace is read).
StepSample step_from_json(const DigestFields& f, const json& value, const std::string& where,
                          const std::vector<std::string>& names, std::map<std::string, OpValues>& ops_by_key) {
  f.keys(value, where,
         {"name", "start_ns", "duration_ns", "ops", "kernels", "unattributed_device_ns", "unattributed_by_category"});
  StepSample step;
  step.name = f.str(value, "name", where);
  step.start_ns = f.ns(value, "start_ns", where);
  step.duration_ns = f.duration(value, "duration_ns", where);
  const json& ops = f.array(f.at(value, "ops", where), where + ".ops");
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string at = where + ".ops[" + std::to_string(i) + "]";
    const std::vector<std::int64_t> row = f.int_row(ops[i], at, 4);
    OpValues values{f.checked_ns(row[1], at + "[1]"), f.checked_duration(row[2], at + "[2]"),
                    f.checked_count(row[3], at + "[3]")};
    f.insert_unique(ops_by_key, f.name_at(names, row[0], at + "[0]"), values, at);
  }
  const json& kernels = f.array(f.at(value, "kernels", where), where + ".kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string at = where + ".kernels[" + std::to_string(i) + "]";
    const std::vector<std::int64_t> row = f.int_row(kernels[i], at, 2);
    f.insert_unique(step.device_kernels, f.name_at(names, row[0], at + "[0]"), f.checked_duration(row[1], at + "[1]"),
                    at);
  }
  step.unattributed_device_ns = f.duration(value, "unattributed_device_ns", where);
  step.unattributed_by_category = f.duration_map(value, "unattributed_by_category", where);
  return step;
}

TraceDataProblems trace_problems_from_json(const DigestFields& f, const json& value, const std::string& where) {
  f.keys(value, where,
         {"negative_duration_events", "unfinished_events", "malformed_events", "negative_self_time", "listed",
          "malformed_by_op"});
  TraceDataProblems problems;
  problems.negative_duration_events = f.count(value, "negative_duration_events", where);
  problems.unfinished_events = f.count(value, "unfinished_events", where);
  problems.malformed_events = f.count(value, "malformed_events", where);
  problems.negative_self_time = f.ns_map(value, "negative_self_time", where);
  problems.listed = problems_from_json(f, f.at(value, "listed", where), where + ".listed");
  const json& malformed = f.object(f.at(value, "malformed_by_op", where), where + ".malformed_by_op");
  for (const auto& item : malformed.items()) {
    const std::string at = where + ".malformed_by_op." + f.key_text(item.key());
    const std::vector<std::int64_t> row = f.int_row(item.value(), at, 2);
    problems.malformed_by_op[f.checked_string(item.key(), at)] =
        MalformedOp{f.checked_count(row[0], at + "[0]"), f.checked_count(row[1], at + "[1]")};
  }
  return problems;
}

std::optional<TraceFormat> format_from_word(const std::string& word) {
  for (TraceFormat format : {TraceFormat::kineto, TraceFormat::legacy_array, TraceFormat::key_averages_table}) {
    if (word == trace_format_word(format)) {
      return format;
    }
  }
  return std::nullopt;
}

void trace_screening_from_json(const DigestFields& f, const json& value, const std::string& where,
                               TraceSamples& trace) {
  trace.screened = screened_from_json(f, f.at(value, "screened", where), where + ".screened");
  const json& screened_ops = f.object(f.at(value, "screened_ops", where), where + ".screened_ops");
  for (const auto& item : screened_ops.items()) {
    const std::string at = where + ".screened_ops." + f.key_text(item.key());
    // [cpu, device], [cpu, device, unusable cpu] or [cpu, device, unusable cpu, missing device] (the later
    // ones written when not 0)
    const std::size_t size = item.value().is_array() ? item.value().size() : 0;
    const std::vector<std::int64_t> row = f.int_row(item.value(), at, size == 3 || size == 4 ? size : 2);
    ScreenedOp op{f.checked_count(row[0], at + "[0]"), f.checked_count(row[1], at + "[1]"),
                  row.size() >= 3 ? f.checked_count(row[2], at + "[2]") : 0,
                  row.size() == 4 ? f.checked_count(row[3], at + "[3]") : 0};
    if (op.unusable_cpu_events > op.cpu_events) {
      f.fail("\"" + at + "\": more unusable CPU events than screened CPU events");
    }
    if (op.missing_device_events > op.device_events) {
      f.fail("\"" + at + "\": more missing device events than screened device events");
    }
    trace.screened_ops[f.checked_string(item.key(), at)] = op;
  }
  trace.screened_unattributed = f.count_map(value, "screened_unattributed", where);
  const std::vector<std::string> calls = f.string_list(value, "runtime_calls", where);
  trace.runtime_calls.insert(calls.begin(), calls.end());
  trace.steps_screened = f.boolean(value, "steps_screened", where);
}

TraceSamples trace_from_json(const DigestFields& f, const json& value, const std::string& where) {
  f.keys(value, where,
         {"path", "format", "names", "steps", "has_profiler_steps", "outside_steps", "event_count", "categories",
          "has_device_events", "input_shapes", "metadata", "problems", "screened", "screened_ops",
          "screened_unattributed", "steps_screened", "rank", "rank_source", "runtime_calls"});
  TraceSamples trace;
  trace.path = f.str(value, "path", where);
  const std::string format = f.str(value, "format", where);
  const std::optional<TraceFormat> known = format_from_word(format);
  if (!known) {
    f.fail("\"" + where + ".format\" must be \"kineto\", \"legacy_array\" or \"key_averages_table\", not " +
           DigestFields::shown(value.at("format")));
  }
  trace.format = *known;
  const std::vector<std::string> names = f.string_list(value, "names", where);
  const json& steps = f.array(f.at(value, "steps", where), where + ".steps");
  std::vector<std::map<std::string, OpValues>> ops(steps.size() + 1);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    trace.steps.push_back(step_from_json(f, steps[i], where + ".steps[" + std::to_string(i) + "]", names, ops[i]));
  }
  trace.has_profiler_steps = f.boolean(value, "has_profiler_steps", where);
  trace.outside_steps =
      step_from_json(f, f.at(value, "outside_steps", where), where + ".outside_steps", names, ops.back());
  set_trace_ops(trace, ops);
  trace.event_count = f.count(value, "event_count", where);
  const std::vector<std::string> categories = f.string_list(value, "categories", where);
  trace.categories.insert(categories.begin(), categories.end());
  trace.has_device_events = f.boolean(value, "has_device_events", where);
  trace.input_shapes = f.string_set_map(value, "input_shapes", where);
  trace.metadata = f.string_map(value, "metadata", where);
  trace.problems = trace_problems_from_json(f, f.at(value, "problems", where), where + ".problems");
  trace_screening_from_json(f, value, where, trace);
  f.check_negative_self_time(trace, where);
  if (!f.at(value, "rank", where).is_null()) {
    const std::int64_t rank = f.count(value, "rank", where);
    if (rank > std::numeric_limits<unsigned>::max()) {
      f.fail("\"" + where + ".rank\" must be at most " + std::to_string(std::numeric_limits<unsigned>::max()));
    }
    trace.rank = static_cast<unsigned>(rank);
  }
  trace.rank_source = f.str(value, "rank_source", where);
  return trace;
}

EndToEndMetric metric_from_json(const DigestFields& f, const json& value, const std::string& where) {
  EndToEndMetric metric;
  if (value.is_object() && value.contains("gates")) {  // e2e.json "gates": false, written only then
    f.keys(value, where, {"name", "unit", "better", "samples", "runs", "run_sizes", "source_path", "origin", "gates"});
    metric.gates = f.boolean(value, "gates", where);
  } else {
    f.keys(value, where, {"name", "unit", "better", "samples", "runs", "run_sizes", "source_path", "origin"});
  }
  metric.name = f.str(value, "name", where);
  metric.unit = f.str(value, "unit", where);
  metric.better = f.word(value, "better", where, {"lower", "higher"}) == 0 ? Better::lower : Better::higher;
  const json& samples = f.array(f.at(value, "samples", where), where + ".samples");
  if (samples.empty()) {
    f.fail("\"" + where + ".samples\" must not be empty");
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double sample = f.number(samples[i], where + ".samples[" + std::to_string(i) + "]");
    if (!(sample > 0)) {
      f.fail("\"" + where + ".samples[" + std::to_string(i) + "]\" must be positive, not " +
             DigestFields::shown(samples[i]));
    }
    metric.samples.push_back(sample);
  }
  metric.runs = static_cast<std::size_t>(f.count(value, "runs", where));
  const json& sizes = f.array(f.at(value, "run_sizes", where), where + ".run_sizes");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string at = where + ".run_sizes[" + std::to_string(i) + "]";
    const std::int64_t size = f.checked_count(f.integer(sizes[i], at), at);
    if (static_cast<std::uint64_t>(size) > metric.samples.size()) {
      f.fail("\"" + at + "\" must be at most the number of samples (" + std::to_string(metric.samples.size()) + ")");
    }
    metric.run_sizes.push_back(static_cast<std::size_t>(size));
  }
  if (metric.runs > metric.samples.size()) {
    f.fail("\"" + where + ".runs\" must be at most the number of samples (" + std::to_string(metric.samples.size()) +
           ")");
  }
  metric.source_path = f.str(value, "source_path", where);
  metric.origin = f.word(value, "origin", where, {"application", "device_summary"}) == 0
                      ? EndToEndOrigin::application
                      : EndToEndOrigin::device_summary;
  return metric;
}

DiscoveredFile file_from_json(const DigestFields& f, const json& value, const std::string& where) {
  f.keys(value, where,
         {"path", "relative_path", "kind", "size_bytes", "ignored_reason", "outside_link", "regular", "sha256"});
  DiscoveredFile file;
  file.path = f.str(value, "path", where);
  file.relative_path = f.str(value, "relative_path", where);
  file.kind = f.file_kind(value, "kind", where);
  file.size_bytes = static_cast<std::uintmax_t>(f.count(value, "size_bytes", where));
  file.ignored_reason = f.str(value, "ignored_reason", where);
  file.outside_link = f.str(value, "outside_link", where);
  file.regular = f.boolean(value, "regular", where);
  file.sha256 = f.str(value, "sha256", where);
  // Provenance hashes a Neuron binary it finds without a hash by opening its path: a digest carries them
  // all, and its paths are never opened.
  const bool read = file.kind != FileKind::ignored && file.regular;
  if (!file.sha256.empty() || read) {
    f.sha256(file.sha256, where + ".sha256");
  }
  return file;
}

ProfileInventory inventory_from_json(const DigestFields& f, const json& value, const std::string& where) {
  f.keys(
      value, where,
      {"spec", "files", "folders", "names_with_invalid_utf8", "git_repository", "git_repository_shown", "git_commit"});
  ProfileInventory inventory;
  inventory.spec = f.str(value, "spec", where);
  const json& files = f.array(f.at(value, "files", where), where + ".files");
  for (std::size_t i = 0; i < files.size(); ++i) {
    inventory.files.push_back(file_from_json(f, files[i], where + ".files[" + std::to_string(i) + "]"));
  }
  inventory.folders = f.string_list(value, "folders", where);
  inventory.names_with_invalid_utf8 = static_cast<std::size_t>(f.count(value, "names_with_invalid_utf8", where));
  inventory.git_repository = f.str(value, "git_repository", where);
  inventory.git_repository_shown = f.str(value, "git_repository_shown", where);
  inventory.git_commit = f.str(value, "git_commit", where);
  return inventory;
}

void side_lists_from_json(const DigestFields& f, const json& value, SideSamples& side,
                          std::optional<SideRepository>& recorded) {
  const std::string where = "side";
  side.samples_from_tables = f.boolean(value, "samples_from_tables", where);
  const json& metrics = f.array(f.at(value, "end_to_end", where), where + ".end_to_end");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    side.end_to_end.push_back(metric_from_json(f, metrics[i], where + ".end_to_end[" + std::to_string(i) + "]"));
    for (std::size_t j = 0; j < i; ++j) {
      if (side.end_to_end[j].name == side.end_to_end[i].name) {
        f.fail("\"" + where + ".end_to_end[" + std::to_string(i) + "]\" repeats the metric \"" +
               side.end_to_end[i].name + "\"");
      }
    }
  }
  side.table_input_shapes = f.string_set_map(value, "table_input_shapes", where);
  const json& manifest = f.at(value, "manifest", where);
  if (!manifest.is_null()) {
    // "pairing_session" and "pairing_order" only where the manifest names them (older digests have none).
    if (!manifest.is_object()) {
      f.keys(manifest, where + ".manifest", {"source_path", "fields", "commit"});
    } else if (manifest.contains("pairing_order")) {
      f.keys(manifest, where + ".manifest", {"source_path", "fields", "commit", "pairing_session", "pairing_order"});
    } else if (manifest.contains("pairing_session")) {
      f.keys(manifest, where + ".manifest", {"source_path", "fields", "commit", "pairing_session"});
    } else {
      f.keys(manifest, where + ".manifest", {"source_path", "fields", "commit"});
    }
    RunManifest read;
    read.source_path = f.str(manifest, "source_path", where + ".manifest");
    read.fields = f.string_map(manifest, "fields", where + ".manifest");
    read.commit = f.str(manifest, "commit", where + ".manifest");
    // As the manifest reader takes it (manifest.cpp): a commit id of 7 to 64 hex digits, or none.
    if (!read.commit.empty() && (read.commit.size() < 7 || read.commit.size() > 64 ||
                                 read.commit.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)) {
      f.fail("\"" + where + ".manifest.commit\" must be a git commit id (7 to 64 hex digits), not " +
             DigestFields::shown(manifest["commit"]));
    }
    if (manifest.contains("pairing_session")) {  // written only when the manifest names a session
      read.pairing_session = f.str(manifest, "pairing_session", where + ".manifest");
    }
    if (manifest.contains("pairing_order")) {
      read.pairing_order = f.string_list(manifest, "pairing_order", where + ".manifest");
      for (const std::string& entry : read.pairing_order) {
        if (!is_pairing_order_entry(entry)) {
          f.fail("\"" + where + ".manifest.pairing_order\" holds " + DigestFields::shown(entry) +
                 ", not \"base/RUN\" or \"head/RUN\"");
        }
      }
    }
    side.manifest = std::move(read);
  }
  side.table_warnings = f.string_list(value, "table_warnings", where);
  side.file_details = f.string_map(value, "file_details", where);
  side.read_warnings = f.string_list(value, "read_warnings", where);
  side.data_problems = problems_from_json(f, f.at(value, "data_problems", where), where + ".data_problems");
  recorded.reset();
  const json& repository = f.at(value, "repository", where);
  if (!repository.is_null()) {
    const std::string at = where + ".repository";
    f.keys(repository, at, {"commit", "summary", "dirty", "branch", "repository", "object_database"});
    SideRepository state;
    state.commit = f.str(repository, "commit", at);
    if (state.commit.size() < 7 || state.commit.size() > 64 ||
        state.commit.find_first_not_of("0123456789abcdef") != std::string::npos) {
      f.fail("\"" + at + ".commit\" must be a git commit id (7 to 64 lowercase hex digits), not " +
             DigestFields::shown(repository["commit"]));
    }
    state.summary = f.str(repository, "summary", at);
    state.dirty = f.boolean(repository, "dirty", at);
    state.branch = f.str(repository, "branch", at);
    state.repository = f.str(repository, "repository", at);
    state.object_database = f.boolean(repository, "object_database", at);
    recorded = std::move(state);
  }
}

}  // namespace

SideSamples side_from_json(const json& value, const std::string& path, std::optional<SideRepository>* repository) {
  const DigestFields f(path);
  const std::string where = "side";
  f.keys(value, where,
         {"inventory", "traces", "samples_from_tables", "end_to_end", "table_input_shapes", "manifest",
          "table_warnings", "file_details", "read_warnings", "data_problems", "repository"});
  SideSamples side;
  side.inventory = inventory_from_json(f, f.at(value, "inventory", where), where + ".inventory");
  const json& traces = f.array(f.at(value, "traces", where), where + ".traces");
  for (std::size_t i = 0; i < traces.size(); ++i) {
    side.traces.push_back(trace_from_json(f, traces[i], where + ".traces[" + std::to_string(i) + "]"));
  }
  std::optional<SideRepository> recorded;
  side_lists_from_json(f, value, side, recorded);
  if (repository != nullptr) {
    *repository = std::move(recorded);
  }
  f.check_side_limits(side);
  recompute_side_totals(side);
  return side;
}

void recompute_side_totals(SideSamples& side) {
  side.screened = ScreenedTime{};
  for (const TraceSamples& trace : side.traces) {
    add_screened_time(side.screened, trace.screened);
  }
  for (DataProblem& problem : side.data_problems) {
    problem.cpu_share.reset();
    problem.device_share.reset();
  }
  set_screened_shares(side);
  side.neuron = neuron_artifacts_of(side.inventory);
  for (std::string& line : converted_trace_assumptions(side.traces)) {  // as read_side adds them
    side.neuron.assumptions.push_back(std::move(line));
  }
}

}  // namespace neuron_gate
