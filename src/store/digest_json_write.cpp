// The digest's "side" object written as it goes (digest_json.hpp): the keys and values the reader
// (digest_json.cpp) takes, in the order it documents, straight to a JsonWriter.
#include "store/digest_fields.hpp"
#include "store/digest_json.hpp"

#include <string_view>
#include <unordered_map>

namespace neuron_gate {
namespace {

void write_problem(JsonWriter& out, const DataProblem& problem) {
  out.begin_object();
  out.key("kind");
  out.string(data_problem_id(problem.kind));
  out.key("file");
  out.string(problem.file);
  out.key("count");
  out.integer(problem.count);
  out.key("byte");
  problem.byte ? out.unsigned_integer(*problem.byte) : out.null();
  out.key("example");
  out.string(problem.example);
  out.key("excluded_cpu_ns");
  out.integer(problem.excluded_cpu_ns);
  out.key("excluded_device_ns");
  out.integer(problem.excluded_device_ns);
  out.end_object();
}

void write_problems(JsonWriter& out, const std::vector<DataProblem>& problems) {
  out.begin_array();
  for (const DataProblem& problem : problems) {
    write_problem(out, problem);
  }
  out.end_array();
}

void write_screened(JsonWriter& out, const ScreenedTime& time) {
  out.begin_object();
  out.key("kept_cpu_ns");
  out.integer(time.kept_cpu_ns);
  out.key("kept_device_ns");
  out.integer(time.kept_device_ns);
  out.key("excluded_cpu_ns");
  out.integer(time.excluded_cpu_ns);
  out.key("excluded_device_ns");
  out.integer(time.excluded_device_ns);
  out.key("device_time_lost");
  out.boolean(time.device_time_lost);
  out.end_object();
}

// A trace's op and kernel names, each once, indexed in order of first use: each step's ops (by id) then
// its kernels, over the steps and then the outside steps. Views into the trace, which outlives it.
struct NameTable {
  std::unordered_map<std::string_view, std::size_t> index;
  std::vector<std::string_view> names;
  std::vector<std::size_t> of_op;  // op id -> name index

  std::size_t of(std::string_view name) {
    const auto [it, added] = index.emplace(name, names.size());
    if (added) {
      names.push_back(name);
    }
    return it->second;
  }

  void add_step(const TraceSamples& trace, const StepSample& step) {
    for (const OpSample& op : step.ops) {
      of_op[op.op] = of(trace.op_keys[op.op]);
    }
    for (const auto& [name, ns] : step.device_kernels) {
      of(name);
    }
  }
};

NameTable name_table(const TraceSamples& trace) {
  NameTable table;
  table.of_op.assign(trace.op_keys.size(), 0);
  for (const StepSample& step : trace.steps) {
    table.add_step(trace, step);
  }
  table.add_step(trace, trace.outside_steps);
  return table;
}

void write_step(JsonWriter& out, const StepSample& step, const NameTable& names) {
  out.begin_object();
  out.key("name");
  out.string(step.name);
  out.key("start_ns");
  out.integer(step.start_ns);
  out.key("duration_ns");
  out.integer(step.duration_ns);
  out.key("ops");
  out.begin_array();
  for (const OpSample& op : step.ops) {  // by id: by key, as the format has it
    out.begin_array();
    out.unsigned_integer(names.of_op[op.op]);
    out.integer(op.values.self_cpu_ns);
    out.integer(op.values.device_ns);
    out.integer(op.values.calls);
    out.end_array();
  }
  out.end_array();
  out.key("kernels");
  out.begin_array();
  for (const auto& [name, ns] : step.device_kernels) {
    out.begin_array();
    out.unsigned_integer(names.index.at(name));
    out.integer(ns);
    out.end_array();
  }
  out.end_array();
  out.key("unattributed_device_ns");
  out.integer(step.unattributed_device_ns);
  out.key("unattributed_by_category");
  write_json(out, step.unattributed_by_category);
  out.end_object();
}

void write_trace_problems(JsonWriter& out, const TraceDataProblems& problems) {
  out.begin_object();
  out.key("negative_duration_events");
  out.integer(problems.negative_duration_events);
  out.key("unfinished_events");
  out.integer(problems.unfinished_events);
  out.key("malformed_events");
  out.integer(problems.malformed_events);
  out.key("negative_self_time");
  write_json(out, problems.negative_self_time);
  out.key("listed");
  write_problems(out, problems.listed);
  out.key("malformed_by_op");
  out.begin_object();
  for (const auto& [op, counts] : problems.malformed_by_op) {
    out.key(op);
    out.begin_array();
    out.integer(counts.malformed);
    out.integer(counts.read);
    out.end_array();
  }
  out.end_object();
  out.end_object();
}

// The trace's fields after its steps.
void write_trace_rest(JsonWriter& out, const TraceSamples& trace) {
  out.key("event_count");
  out.integer(trace.event_count);
  out.key("categories");
  write_json(out, trace.categories);
  out.key("has_device_events");
  out.boolean(trace.has_device_events);
  out.key("input_shapes");
  write_json(out, trace.input_shapes);
  out.key("metadata");
  write_json(out, trace.metadata);
  out.key("problems");
  write_trace_problems(out, trace.problems);
  out.key("screened");
  write_screened(out, trace.screened);
  out.key("screened_ops");
  out.begin_object();
  for (const auto& [op, counts] : trace.screened_ops) {
    out.key(op);
    out.begin_array();
    out.integer(counts.cpu_events);
    out.integer(counts.device_events);
    if (counts.unusable_cpu_events != 0 || counts.missing_device_events != 0) {
      out.integer(counts.unusable_cpu_events);
    }
    if (counts.missing_device_events != 0) {
      out.integer(counts.missing_device_events);
    }
    out.end_array();
  }
  out.end_object();
  out.key("runtime_calls");
  write_json(out, trace.runtime_calls);
  out.key("screened_unattributed");
  write_json(out, trace.screened_unattributed);
  out.key("steps_screened");
  out.boolean(trace.steps_screened);
  out.key("rank");
  trace.rank ? out.unsigned_integer(*trace.rank) : out.null();
  out.key("rank_source");
  out.string(trace.rank_source);
}

void write_trace(JsonWriter& out, const TraceSamples& trace) {
  const NameTable names = name_table(trace);
  out.begin_object();
  out.key("path");
  out.string(trace.path);
  out.key("format");
  out.string(trace_format_word(trace.format));
  out.key("names");
  out.begin_array();
  for (const std::string_view name : names.names) {
    out.string(name);
  }
  out.end_array();
  out.key("steps");
  out.begin_array();
  for (const StepSample& step : trace.steps) {
    write_step(out, step, names);
  }
  out.end_array();
  out.key("has_profiler_steps");
  out.boolean(trace.has_profiler_steps);
  out.key("outside_steps");
  write_step(out, trace.outside_steps, names);
  write_trace_rest(out, trace);
  out.end_object();
}

void write_metric(JsonWriter& out, const EndToEndMetric& metric) {
  out.begin_object();
  out.key("name");
  out.string(metric.name);
  out.key("unit");
  out.string(metric.unit);
  out.key("better");
  out.string(metric.better == Better::lower ? "lower" : "higher");
  out.key("samples");
  out.begin_array();
  for (const double sample : metric.samples) {
    out.number(sample);
  }
  out.end_array();
  out.key("runs");
  out.unsigned_integer(metric.runs);
  out.key("run_sizes");
  out.begin_array();
  for (const std::size_t size : metric.run_sizes) {
    out.unsigned_integer(size);
  }
  out.end_array();
  out.key("source_path");
  out.string(metric.source_path);
  out.key("origin");
  out.string(metric.origin == EndToEndOrigin::application ? "application" : "device_summary");
  if (!metric.gates) {  // e2e.json "gates": false; absent means true, so older digests read the same
    out.key("gates");
    out.boolean(false);
  }
  out.end_object();
}

void write_file(JsonWriter& out, const DiscoveredFile& file) {
  out.begin_object();
  out.key("path");
  out.string(file.path);
  out.key("relative_path");
  out.string(file.relative_path);
  out.key("kind");
  out.string(file_kind_id(file.kind));
  out.key("size_bytes");
  out.unsigned_integer(file.size_bytes);
  out.key("ignored_reason");
  out.string(file.ignored_reason);
  out.key("outside_link");
  out.string(file.outside_link);
  out.key("regular");
  out.boolean(file.regular);
  out.key("sha256");
  out.string(file.sha256);
  out.end_object();
}

void write_inventory(JsonWriter& out, const ProfileInventory& inventory) {
  out.begin_object();
  out.key("spec");
  out.string(inventory.spec);
  out.key("files");
  out.begin_array();
  for (const DiscoveredFile& file : inventory.files) {
    write_file(out, file);
  }
  out.end_array();
  out.key("folders");
  write_json(out, inventory.folders);
  out.key("names_with_invalid_utf8");
  out.unsigned_integer(inventory.names_with_invalid_utf8);
  out.key("git_repository");
  out.string(inventory.git_repository);
  out.key("git_repository_shown");
  out.string(inventory.git_repository_shown);
  out.key("git_commit");
  out.string(inventory.git_commit);
  out.end_object();
}

void write_manifest(JsonWriter& out, const std::optional<RunManifest>& manifest) {
  if (!manifest) {
    out.null();
    return;
  }
  out.begin_object();
  out.key("source_path");
  out.string(manifest->source_path);
  out.key("fields");
  write_json(out, manifest->fields);
  out.key("commit");
  out.string(manifest->commit);
  if (!manifest->pairing_session.empty()) {
    out.key("pairing_session");
    out.string(manifest->pairing_session);
  }
  if (!manifest->pairing_order.empty()) {
    out.key("pairing_order");
    out.begin_array();
    for (const std::string& entry : manifest->pairing_order) {
      out.string(entry);
    }
    out.end_array();
  }
  out.end_object();
}

void write_repository(JsonWriter& out, const std::optional<SideRepository>& state) {
  if (!state) {
    out.null();
    return;
  }
  out.begin_object();
  out.key("commit");
  out.string(state->commit);
  out.key("summary");
  out.string(state->summary);
  out.key("dirty");
  out.boolean(state->dirty);
  out.key("branch");
  out.string(state->branch);
  out.key("repository");
  out.string(state->repository);
  out.key("object_database");
  out.boolean(state->object_database);
  out.end_object();
}

}  // namespace

void write_side_json(const SideSamples& side, const std::optional<SideRepository>& repository, JsonWriter& out) {
  out.begin_object();
  out.key("inventory");
  write_inventory(out, side.inventory);
  out.key("traces");
  out.begin_array();
  for (const TraceSamples& trace : side.traces) {
    write_trace(out, trace);
  }
  out.end_array();
  out.key("samples_from_tables");
  out.boolean(side.samples_from_tables);
  out.key("end_to_end");
  out.begin_array();
  for (const EndToEndMetric& metric : side.end_to_end) {
    write_metric(out, metric);
  }
  out.end_array();
  out.key("table_input_shapes");
  write_json(out, side.table_input_shapes);
  out.key("manifest");
  write_manifest(out, side.manifest);
  out.key("table_warnings");
  write_json(out, side.table_warnings);
  out.key("file_details");
  write_json(out, side.file_details);
  out.key("read_warnings");
  write_json(out, side.read_warnings);
  out.key("data_problems");
  write_problems(out, side.data_problems);
  out.key("repository");
  write_repository(out, repository);
  out.end_object();
}

}  // namespace neuron_gate
