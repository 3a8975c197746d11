#include "profile/read_side.hpp"

#include "formats/file_kinds.hpp"
#include "formats/key_averages_table.hpp"
#include "formats/neuron_summary.hpp"
#include "input/byte_source.hpp"
#include "input/json_input.hpp"
#include "profile/converted_traces.hpp"
#include "profile/op_keys.hpp"
#include "profile/ranks.hpp"
#include "profile/table_samples.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"
#include "util/parallel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <unordered_set>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace neuron_gate {
namespace {

std::string direction_text(const EndToEndMetric& metric) {
  return "\"" + metric.unit + "\", " + (metric.better == Better::lower ? "lower" : "higher") + " is better";
}

// Adds the metrics of one file to the side's: a new name is appended, a known one gets the samples
// appended when unit, direction and "gates" agree (else InputError naming both files).
void merge_end_to_end(SideSamples& side, const DiscoveredFile& file, std::vector<EndToEndMetric> metrics) {
  for (EndToEndMetric& metric : metrics) {
    // Ratios are taken on logs: a zero, negative or infinite time or throughput is a broken sample.
    for (std::size_t i = 0; i < metric.samples.size(); ++i) {
      if (!(metric.samples[i] > 0) || !std::isfinite(metric.samples[i])) {
        throw InputError(file.path, "metric \"" + metric.name + "\" sample " + std::to_string(i + 1) + " is " +
                                        std::to_string(metric.samples[i]) + " " + metric.unit +
                                        ": samples must be positive and finite");
      }
    }
    auto existing = std::find_if(side.end_to_end.begin(), side.end_to_end.end(),
                                 [&](const EndToEndMetric& m) { return m.name == metric.name; });
    if (existing == side.end_to_end.end()) {
      side.end_to_end.push_back(std::move(metric));
      continue;
    }
    if (existing->unit != metric.unit || existing->better != metric.better) {
      throw InputError(file.path, "metric \"" + metric.name + "\" is " + direction_text(metric) + " here but " +
                                      direction_text(*existing) + " in " + existing->source_path);
    }
    if (existing->gates != metric.gates) {
      throw InputError(file.path, "metric \"" + metric.name + "\" has \"gates\": " + (metric.gates ? "true" : "false") +
                                      " here but " + (existing->gates ? "true" : "false") + " in " +
                                      existing->source_path + ": every run of a side must mark it alike");
    }
    existing->samples.insert(existing->samples.end(), metric.samples.begin(), metric.samples.end());
    existing->runs += metric.runs;  // each file is a process of its own (several run folders: several runs)
    existing->run_sizes.insert(existing->run_sizes.end(), metric.run_sizes.begin(), metric.run_sizes.end());
  }
}

std::string count_text(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// An end-to-end file (e2e.json, a benchmark tool's JSON): its metrics, read by its kind's reader
// (file_kinds.hpp), merged by name with the side's others.
void read_metrics_file(SideSamples& side, const DiscoveredFile& file, const std::string& text) {
  std::vector<EndToEndMetric> metrics = file_kind_row(file.kind).read(text, file.path);
  side.file_details[file.relative_path] = count_text(metrics.size(), "metric", "metrics");
  merge_end_to_end(side, file, std::move(metrics));
}

// A Neuron summary: each summary (execution) is one sample of each device measure, in ms. Keys
// without a value become warnings; the Explorer and schema versions go to file_details.
void read_neuron_summary_file(SideSamples& side, const DiscoveredFile& file, const std::string& text) {
  const std::vector<NeuronSummary> summaries = file.kind == FileKind::neuron_summary_json
                                                   ? parse_neuron_summary_json(text, file.path)
                                                   : parse_neuron_summary_text(text, file.path);
  std::vector<std::string> versions, skipped;
  for (const NeuronSummary& summary : summaries) {
    if (std::find(versions.begin(), versions.end(), summary.version) == versions.end()) {
      versions.push_back(summary.version);
    }
    for (const std::string& key : summary.no_value_keys) {
      if (std::find(skipped.begin(), skipped.end(), key) == skipped.end()) {
        skipped.push_back(key);
      }
    }
  }
  std::string details;
  for (const std::string& version : versions) {
    details += (details.empty() ? "" : " / ") + version;
  }
  side.file_details[file.relative_path] = details + "; " + count_text(summaries.size(), "execution", "executions");
  if (!skipped.empty()) {
    std::string keys;
    for (const std::string& key : skipped) {
      keys += (keys.empty() ? "`" : ", `") + key + "`";
    }
    side.read_warnings.push_back(file.relative_path + ": no value (NaN, Infinity or null) for " + keys +
                                 ": skipped, not counted as 0");
  }
  if (summaries.size() > 1) {
    side.read_warnings.push_back(file.relative_path + ": " + std::to_string(summaries.size()) +
                                 " summaries in one file (one per NTFF); each is taken as one sample, though "
                                 "NeuronCores of one execution are not independent repetitions");
  }
  std::vector<EndToEndMetric> metrics = neuron_summary_metrics(summaries);
  for (EndToEndMetric& metric : metrics) {
    // Device executions take milliseconds: report them in ms (summaries give seconds).
    for (double& sample : metric.samples) {
      sample *= 1000.0;
    }
    metric.unit = "ms";
  }
  merge_end_to_end(side, file, std::move(metrics));
}

std::string share_text(std::int64_t part, std::int64_t whole) {
  const double percent = whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 100.0;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", percent);
  return std::to_string(part) + " of " + std::to_string(whole) + " (" + text + ")";
}

// The first example of the malformed events of `trace`, for messages.
std::string first_malformed_example(const TraceSamples& trace) {
  for (const DataProblem& problem : trace.problems.listed) {
    if (problem.kind == DataProblemKind::bad_duration || problem.kind == DataProblemKind::bad_timestamp ||
        problem.kind == DataProblemKind::time_out_of_range || problem.kind == DataProblemKind::missing_name) {
      return problem.example + (problem.byte ? " (near byte " + std::to_string(*problem.byte) + ")" : "");
    }
  }
  return "";
}

// Malformed events with a name are screened as their op's data problem (event_screen.hpp: the op's metrics
// are marked, and undecidable past rules max_excluded_share); events without a name belong to no op, so
// past k_max_malformed_share of a trace's events the trace is refused.
void check_malformed_share(const TraceSamples& trace) {
  const TraceDataProblems& p = trace.problems;
  std::int64_t unnamed = p.malformed_events;
  for (const auto& [op, counts] : p.malformed_by_op) {
    unnamed -= counts.malformed;
  }
  if (unnamed > 0 && static_cast<double>(unnamed) > k_max_malformed_share * static_cast<double>(trace.event_count)) {
    throw InputError(trace.path,
                     share_text(unnamed, trace.event_count) + " complete events have no usable name, e.g. " +
                         first_malformed_example(trace) +
                         ": more than 1% of the trace's events belong to no op (docs/user-guide.md \"Data problems\")");
  }
}

// Adds the op names of `trace` to `names` and refuses a side past the distinct-op limit.
void count_distinct_ops(const TraceSamples& trace, std::unordered_set<std::string>& names) {
  const std::uint64_t limit = input_limits().max_distinct_ops;
  names.insert(trace.op_keys.begin(), trace.op_keys.end());  // the keys every step and outside_steps hold
  if (names.size() > limit) {
    throw InputError(trace.path, "more than " + std::to_string(limit) +
                                     " distinct op names on this side (the limit; raise it with NEURON_GATE_MAX_OPS "
                                     "if the profile is genuine)");
  }
}

// Tables read so far, by kind: plain ones are preferred as samples over by-shape ones.
struct SideTables {
  std::vector<std::pair<std::string, KeyAveragesTable>> plain, by_shape;
};

void read_table_file(SideSamples& side, const DiscoveredFile& file, const std::string& text, SideTables& tables) {
  KeyAveragesTable table = parse_key_averages_table(text, file.path);
  if (table.names_with_invalid_utf8 > 0) {
    DataProblem problem{DataProblemKind::invalid_utf8, file.path,
                        static_cast<std::int64_t>(table.names_with_invalid_utf8), std::nullopt, ""};
    side.data_problems.push_back(std::move(problem));
  }
  for (const KeyAveragesWarning& warning : table.warnings) {
    side.table_warnings.push_back(file.relative_path + ":" + std::to_string(warning.line) + ": " + warning.message);
  }
  if (const std::string note = table_device_rows_note(table); !note.empty()) {
    side.table_warnings.push_back(file.relative_path + ":" + std::to_string(table.first_line) + ": " + note);
  }
  for (const auto& [op, shapes] : table_input_shapes(table)) {
    side.table_input_shapes[op].insert(shapes.begin(), shapes.end());
  }
  const bool by_shape_table = std::any_of(table.rows.begin(), table.rows.end(),
                                          [](const KeyAveragesRow& row) { return row.input_shapes.has_value(); });
  (by_shape_table ? tables.by_shape : tables.plain).emplace_back(file.path, std::move(table));
}

// A trace file read on a worker thread (read_sides), waiting to be merged into its side in path order.
struct TraceRead {
  TraceSamples samples;
  std::string sha256;  // of the bytes read
};

TraceRead read_trace_file(const DiscoveredFile& file, const TraceReadOptions& options) {
  const std::unique_ptr<ByteSource> source = open_profile_file(file);
  TraceRead read{read_trace_samples(*source, options), ""};
  check_malformed_share(read.samples);
  read.sha256 = source->raw_sha256();
  return read;
}

// Reads one file of the inventory by its kind and returns the SHA-256 of the bytes read ("" for files
// that are not read: Neuron binaries, ignored files). A trace was read already: `trace` holds it, or
// `trace_error` what reading it threw, rethrown here so that errors come in path order.
std::string read_one_file(SideSamples& side, const DiscoveredFile& file, SideTables& tables, TraceRead* trace,
                          const std::exception_ptr& trace_error) {
  if (file.kind == FileKind::neuron_artifact || file.kind == FileKind::ignored) {
    return "";
  }
  if (file.kind == FileKind::trace) {
    if (trace_error) {
      std::rethrow_exception(trace_error);
    }
    side.traces.push_back(std::move(trace->samples));
    const TraceDataProblems& problems = side.traces.back().problems;
    side.data_problems.insert(side.data_problems.end(), problems.listed.begin(), problems.listed.end());
    return trace->sha256;
  }
  const InputText input = read_input_text(*open_profile_file(file));
  // Every kind listed, no `default:`: a kind added to file_kinds.hpp is a compile error here until it is read.
  switch (file.kind) {
  case FileKind::end_to_end:
  case FileKind::google_benchmark:
  case FileKind::hyperfine:
  case FileKind::pytest_benchmark:
    read_metrics_file(side, file, input.text);
    break;
  case FileKind::neuron_summary_json:
  case FileKind::neuron_summary_text:
    read_neuron_summary_file(side, file, input.text);
    break;
  case FileKind::key_averages_table:
    read_table_file(side, file, input.text, tables);
    break;
  case FileKind::run_manifest:
    if (side.manifest) {
      throw InputError(file.path,
                       "a second run manifest on one side (the first is " + side.manifest->source_path + ")");
    }
    side.manifest = parse_manifest(input.text, file.path);
    break;
  case FileKind::trace:            // read above, on a worker thread
  case FileKind::neuron_artifact:  // never parsed (checked by neuron_artifacts_of)
  case FileKind::ignored:
  case FileKind::digest:  // a digest side is read by store/digest_side.hpp, never here
    break;
  }
  return input.sha256;
}

}  // namespace

void set_screened_shares(SideSamples& side) {
  const auto share = [](Nanoseconds part, Nanoseconds kept, Nanoseconds excluded) {
    const Nanoseconds all = kept + excluded;
    return all > 0 ? static_cast<double>(part) / static_cast<double>(all) : 0.0;
  };
  for (DataProblem& problem : side.data_problems) {
    if (!is_screened_kind(problem.kind)) {
      continue;
    }
    problem.cpu_share = share(problem.excluded_cpu_ns, side.screened.kept_cpu_ns, side.screened.excluded_cpu_ns);
    problem.device_share =
        problem.kind == DataProblemKind::device_time_lost
            ? 1.0
            : share(problem.excluded_device_ns, side.screened.kept_device_ns, side.screened.excluded_device_ns);
  }
}

NeuronArtifacts neuron_artifacts_of(const ProfileInventory& inventory) {
  std::vector<ArtifactFile> artifacts;
  for (const DiscoveredFile& file : inventory.files) {
    if (file.regular) {
      artifacts.push_back({file.relative_path, file.size_bytes, false});
    }
  }
  for (const std::string& folder : inventory.folders) {
    artifacts.push_back({folder, 0, true});
  }
  std::sort(artifacts.begin(), artifacts.end(),
            [](const ArtifactFile& a, const ArtifactFile& b) { return a.relative_path < b.relative_path; });
  return find_neuron_artifacts(artifacts);
}

std::string unattributed_row_name(const std::string& category) {
  return std::string(k_unattributed_row) + " (" + category + ")";
}

bool is_unattributed_row(std::string_view name) {
  return name.substr(0, std::string_view(k_unattributed_row).size()) == k_unattributed_row;
}

void add_unattributed_rows(TraceSamples& trace) {
  const auto add = [&trace](StepSample& step) {
    for (const auto& [category, ns] : step.unattributed_by_category) {
      add_op(trace, step, unattributed_row_name(category)).device_ns += ns;
    }
  };
  for (StepSample& step : trace.steps) {
    add(step);
  }
  add(trace.outside_steps);
  for (const auto& [category, events] : trace.screened_unattributed) {
    trace.screened_ops[unattributed_row_name(category)].device_events += events;
  }
}

namespace {

// The trace files of one side, read already (or the exception reading each threw), in path order.
struct SideReads {
  std::vector<TraceRead> traces;
  std::vector<std::exception_ptr> errors;
};

// Everything but the reading of traces, in path order, as the side was read one file after another:
// the first error in path order is the one thrown, and the distinct-op limit names the same file.
SideSamples merge_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options,
                       SideReads& reads) {
  SideSamples side;
  side.label = label;
  side.inventory = inventory;
  SideTables tables;
  std::unordered_set<std::string> op_names;
  if (inventory.names_with_invalid_utf8 > 0) {
    side.data_problems.push_back({DataProblemKind::invalid_utf8, inventory.spec,
                                  static_cast<std::int64_t>(inventory.names_with_invalid_utf8), std::nullopt,
                                  "file or folder names"});
  }
  std::size_t next_trace = 0;
  for (DiscoveredFile& file : side.inventory.files) {
    const bool trace = file.kind == FileKind::trace;
    try {
      file.sha256 = trace ? read_one_file(side, file, tables, &reads.traces[next_trace], reads.errors[next_trace])
                          : read_one_file(side, file, tables, nullptr, nullptr);
    } catch (const std::bad_alloc&) {
      throw InputError(file.path, "out of memory while reading this file (see docs/user-guide.md \"Limits\")");
    } catch (const nlohmann::json::exception& error) {
      // The readers check types themselves; this is the net under them: never an internal error.
      throw InputError(file.path, "unexpected JSON content: " + json_exception_reason(error));
    }
    if (trace) {
      reads.traces[next_trace++] = TraceRead{};  // moved into side.traces; release what is left
    }
    if (trace) {
      count_distinct_ops(side.traces.back(), op_names);
    }
  }
  if (side.traces.empty()) {
    const auto& chosen = tables.plain.empty() ? tables.by_shape : tables.plain;
    for (const auto& [path, table] : chosen) {
      side.traces.push_back(samples_from_table(table, path, options.by_shape));
      side.samples_from_tables = true;
      count_distinct_ops(side.traces.back(), op_names);
    }
  }
  assign_ranks(side.traces, side.manifest ? &*side.manifest : nullptr);
  for (TraceSamples& trace : side.traces) {
    add_unattributed_rows(trace);
    add_screened_time(side.screened, trace.screened);
  }
  set_screened_shares(side);
  side.neuron = neuron_artifacts_of(side.inventory);
  for (std::string& line : converted_trace_assumptions(side.traces)) {
    side.neuron.assumptions.push_back(std::move(line));
  }
  return side;
}

}  // namespace

namespace {

// The reading threads freed their events, chunks and maps into glibc's per-thread arenas, which keep
// freed memory below their top for reuse; handed back to the system here, so what compare builds next
// (its metrics) is not stacked on memory nothing uses (compare ops50k: 6 MiB less at its peak).
void return_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

std::vector<SideSamples> read_sides(std::span<const SideToRead> sides, const TraceReadOptions& options,
                                    const std::function<void(const SideSamples&)>& after_each) {
  // Every trace file of every side is one item for the worker threads.
  std::vector<SideReads> reads(sides.size());
  struct Item {
    std::size_t side, slot;  // the slot: the trace's index within its side
    const DiscoveredFile* file;
  };
  std::vector<Item> items;
  for (std::size_t s = 0; s < sides.size(); ++s) {
    for (const DiscoveredFile& file : sides[s].inventory->files) {
      if (file.kind == FileKind::trace) {
        items.push_back({s, reads[s].traces.size(), &file});
        reads[s].traces.emplace_back();
      }
    }
  }
  const std::vector<std::exception_ptr> errors = parallel_for(items.size(), [&](std::size_t i) {
    reads[items[i].side].traces[items[i].slot] = read_trace_file(*items[i].file, options);
  });
  for (std::size_t i = 0; i < items.size(); ++i) {
    reads[items[i].side].errors.push_back(errors[i]);
  }
  std::vector<SideSamples> result;
  result.reserve(sides.size());
  for (std::size_t s = 0; s < sides.size(); ++s) {
    result.push_back(merge_side(sides[s].label, *sides[s].inventory, options, reads[s]));
    if (after_each) {
      after_each(result.back());
    }
  }
  return_free_memory();
  return result;
}

SideSamples read_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options) {
  const SideToRead side{label, &inventory};
  return std::move(read_sides({&side, 1}, options).front());
}

}  // namespace neuron_gate
