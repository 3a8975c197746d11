#include "profile/read_side.hpp"

#include "profile/benchmark_formats.hpp"
#include "profile/key_averages_table.hpp"
#include "profile/neuron_summary.hpp"
#include "profile/ranks.hpp"
#include "profile/table_samples.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace neuron_gate {
namespace {

std::string direction_text(const EndToEndMetric& metric) {
  return "\"" + metric.unit + "\", " + (metric.better == Better::lower ? "lower" : "higher") + " is better";
}

// Adds the metrics of one file to the side's: a new name is appended, a known one gets the samples
// appended when unit and direction agree (else InputError naming both files).
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
    existing->samples.insert(existing->samples.end(), metric.samples.begin(), metric.samples.end());
    existing->runs += metric.runs;  // each file is a process of its own (several run folders: several runs)
    existing->run_sizes.insert(existing->run_sizes.end(), metric.run_sizes.begin(), metric.run_sizes.end());
  }
}

std::string count_text(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// A benchmark tool's JSON: one metric per benchmark (and measure), merged like e2e.json.
void read_benchmark_file(SideSamples& side, const DiscoveredFile& file) {
  std::vector<EndToEndMetric> metrics = read_benchmark_json(file.path);
  side.file_details[file.relative_path] = count_text(metrics.size(), "metric", "metrics");
  merge_end_to_end(side, file, std::move(metrics));
}

// A Neuron summary: each summary (execution) is one sample of each device measure, in ms. Keys
// without a value become warnings; the Explorer and schema versions go to file_details.
void read_neuron_summary_file(SideSamples& side, const DiscoveredFile& file) {
  const std::vector<NeuronSummary> summaries = file.kind == FileKind::neuron_summary_json
                                                   ? read_neuron_summary_json(file.path)
                                                   : read_neuron_summary_text(file.path);
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

} // namespace

std::string unattributed_row_name(const std::string& category) {
  return std::string(k_unattributed_row) + " (" + category + ")";
}

void add_unattributed_rows(TraceSamples& trace) {
  const auto add = [](StepSample& step) {
    for (const auto& [category, ns] : step.unattributed_by_category) {
      step.ops[unattributed_row_name(category)].device_ns += ns;
    }
  };
  for (StepSample& step : trace.steps) {
    add(step);
  }
  add(trace.outside_steps);
}

SideSamples read_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options) {
  SideSamples side;
  side.label = label;
  side.inventory = inventory;
  std::vector<std::pair<std::string, KeyAveragesTable>> plain_tables, shape_tables;
  std::vector<ArtifactFile> artifacts;
  for (const DiscoveredFile& file : inventory.files) {
    switch (file.kind) {
    case FileKind::trace:
      side.traces.push_back(read_trace_samples(file.path, options));
      break;
    case FileKind::end_to_end: {
      std::vector<EndToEndMetric> metrics = read_e2e_json(file.path);
      side.file_details[file.relative_path] = count_text(metrics.size(), "metric", "metrics");
      merge_end_to_end(side, file, std::move(metrics));
      break;
    }
    case FileKind::google_benchmark:
    case FileKind::hyperfine:
    case FileKind::pytest_benchmark:
      read_benchmark_file(side, file);
      break;
    case FileKind::neuron_summary_json:
    case FileKind::neuron_summary_text:
      read_neuron_summary_file(side, file);
      break;
    case FileKind::key_averages_table: {
      KeyAveragesTable table = parse_key_averages_table(std::filesystem::path(file.path));
      for (const KeyAveragesWarning& warning : table.warnings) {
        side.table_warnings.push_back(file.relative_path + ":" + std::to_string(warning.line) + ": " + warning.message);
      }
      for (const auto& [op, shapes] : table_input_shapes(table)) {
        side.table_input_shapes[op].insert(shapes.begin(), shapes.end());
      }
      const bool by_shape_table = std::any_of(table.rows.begin(), table.rows.end(),
                                              [](const KeyAveragesRow& row) { return row.input_shapes.has_value(); });
      (by_shape_table ? shape_tables : plain_tables).emplace_back(file.path, std::move(table));
      break;
    }
    case FileKind::run_manifest:
      if (side.manifest) {
        throw InputError(file.path, "a second run manifest on one side (the first is " + side.manifest->source_path + ")");
      }
      side.manifest = read_manifest(file.path);
      break;
    case FileKind::neuron_artifact:
    case FileKind::ignored:
      break;
    }
    artifacts.push_back({file.relative_path, file.size_bytes, false});
  }
  if (side.traces.empty()) {
    const auto& tables = plain_tables.empty() ? shape_tables : plain_tables;
    for (const auto& [path, table] : tables) {
      side.traces.push_back(samples_from_table(table, path, options.by_shape));
      side.samples_from_tables = true;
    }
  }
  assign_ranks(side.traces);
  for (TraceSamples& trace : side.traces) {
    add_unattributed_rows(trace);
  }
  std::filesystem::path root(inventory.spec);
  if (std::filesystem::is_directory(root)) {
    side.neuron = find_neuron_artifacts(list_artifact_files(inventory.spec));
  } else {
    side.neuron = find_neuron_artifacts(artifacts);
  }
  return side;
}

} // namespace neuron_gate
