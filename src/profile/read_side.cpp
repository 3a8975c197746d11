#include "profile/read_side.hpp"

#include "profile/key_averages_table.hpp"
#include "profile/ranks.hpp"
#include "profile/table_samples.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <filesystem>

namespace neuron_gate {
namespace {

void merge_end_to_end(SideSamples& side, const DiscoveredFile& file) {
  for (EndToEndMetric& metric : read_e2e_json(file.path)) {
    auto existing = std::find_if(side.end_to_end.begin(), side.end_to_end.end(),
                                 [&](const EndToEndMetric& m) { return m.name == metric.name; });
    if (existing == side.end_to_end.end()) {
      side.end_to_end.push_back(std::move(metric));
      continue;
    }
    if (existing->unit != metric.unit || existing->better != metric.better) {
      throw InputError(file.path, "metric \"" + metric.name + "\" has unit \"" + metric.unit + "\" here but \"" +
                                      existing->unit + "\" in " + existing->source_path);
    }
    existing->samples.insert(existing->samples.end(), metric.samples.begin(), metric.samples.end());
  }
}

} // namespace

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
    case FileKind::end_to_end:
      merge_end_to_end(side, file);
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
  std::filesystem::path root(inventory.spec);
  if (std::filesystem::is_directory(root)) {
    side.neuron = find_neuron_artifacts(list_artifact_files(inventory.spec));
  } else {
    side.neuron = find_neuron_artifacts(artifacts);
  }
  return side;
}

} // namespace neuron_gate
