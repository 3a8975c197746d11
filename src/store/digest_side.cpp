#include "store/digest_side.hpp"

#include "profile/ranks.hpp"
#include "store/digest_fields.hpp"
#include "store/digest_json.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace neuron_gate {
namespace {

// A profile root's path as '/'-separated parts: the spec for a folder, its folder for a single file.
std::vector<std::string> root_parts(const ProfileInventory& inventory) {
  std::string root = inventory.spec;
  if (inventory.files.size() == 1 && inventory.folders.empty() && inventory.files[0].path == inventory.spec) {
    const std::size_t slash = root.find_last_of('/');
    root = slash == std::string::npos ? "" : root.substr(0, slash);
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= root.size()) {
    const std::size_t slash = std::min(root.find('/', start), root.size());
    const std::string part = root.substr(start, slash - start);
    if (!part.empty() && part != ".") {
      parts.push_back(part);
    } else if (start == 0 && slash == 0) {
      parts.push_back("");  // an absolute path keeps its leading '/'
    }
    start = slash + 1;
  }
  return parts;
}

std::string joined(const std::vector<std::string>& parts, std::size_t from, std::size_t to) {
  std::string text;
  for (std::size_t i = from; i < to; ++i) {
    text += (i == from ? "" : "/") + parts[i];
  }
  return text;
}

std::string under(const std::string& prefix, const std::string& path) {
  return prefix.empty() ? path : prefix + "/" + path;
}

// Moves one side's relative paths (files, folders, details, warnings) under `prefix`.
void rebase(SideSamples& side, const std::string& prefix) {
  if (prefix.empty()) {
    return;
  }
  for (DiscoveredFile& file : side.inventory.files) {
    file.relative_path = under(prefix, file.relative_path);
  }
  for (std::string& folder : side.inventory.folders) {
    folder = under(prefix, folder);
  }
  // The folders from the common root down to this root, as a walk of the common root lists them.
  for (std::size_t slash = prefix.find('/'); slash != std::string::npos; slash = prefix.find('/', slash + 1)) {
    side.inventory.folders.push_back(prefix.substr(0, slash));
  }
  side.inventory.folders.push_back(prefix);
  std::map<std::string, std::string> details;
  for (auto& [path, detail] : side.file_details) {
    details[under(prefix, path)] = detail;
  }
  side.file_details = std::move(details);
  for (std::vector<std::string>* warnings : {&side.table_warnings, &side.read_warnings}) {
    for (std::string& warning : *warnings) {
      warning = under(prefix, warning);  // each starts with its file's relative path
    }
  }
}

// The combined inventory: files and folders of all digests in path order, the spec their common root.
ProfileInventory merged_inventory(const std::vector<SideSamples>& sides, const std::vector<std::string>& sources,
                                  const std::string& spec) {
  ProfileInventory inventory;
  inventory.spec = spec;
  inventory.git_repository = sides.front().inventory.git_repository;
  inventory.git_repository_shown = sides.front().inventory.git_repository_shown;
  inventory.git_commit = sides.front().inventory.git_commit;
  std::map<std::string, std::size_t> owner;  // relative path -> digest
  std::set<std::string> folders;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    for (const DiscoveredFile& file : sides[i].inventory.files) {
      if (const auto [it, added] = owner.emplace(file.relative_path, i); !added) {
        throw InputError(spec, "two digests hold the file \"" + file.relative_path + "\": " + sources[it->second] +
                                   " and " + sources[i] +
                                   " (digest each rank from a folder of its own, e.g. prof/rank-0)");
      }
      inventory.files.push_back(file);
    }
    folders.insert(sides[i].inventory.folders.begin(), sides[i].inventory.folders.end());
    inventory.names_with_invalid_utf8 += sides[i].inventory.names_with_invalid_utf8;
  }
  std::sort(inventory.files.begin(), inventory.files.end(),
            [](const DiscoveredFile& a, const DiscoveredFile& b) { return a.relative_path < b.relative_path; });
  inventory.folders.assign(folders.begin(), folders.end());
  return inventory;
}

// Each end-to-end metric merged by name across the digests, as read_side merges files.
void merge_metrics(SideSamples& combined, const SideSamples& side, const std::string& source) {
  for (const EndToEndMetric& metric : side.end_to_end) {
    auto existing = std::find_if(combined.end_to_end.begin(), combined.end_to_end.end(),
                                 [&](const EndToEndMetric& m) { return m.name == metric.name; });
    if (existing == combined.end_to_end.end()) {
      combined.end_to_end.push_back(metric);
      continue;
    }
    if (existing->unit != metric.unit || existing->better != metric.better) {
      throw InputError(source, "metric \"" + metric.name + "\" is in \"" + metric.unit + "\" here but in \"" +
                                   existing->unit + "\" (or the other direction) in " + existing->source_path);
    }
    existing->samples.insert(existing->samples.end(), metric.samples.begin(), metric.samples.end());
    existing->runs += metric.runs;
    existing->run_sizes.insert(existing->run_sizes.end(), metric.run_sizes.begin(), metric.run_sizes.end());
  }
}

// Traces of all digests in path order (table samples only where no digest has traces), ranks assigned
// again over all of them; a rank found in two digests is refused.
void merge_traces(SideSamples& combined, std::vector<SideSamples>& sides, const std::vector<std::string>& sources) {
  const bool any_traces = std::any_of(sides.begin(), sides.end(),
                                      [](const SideSamples& s) { return !s.samples_from_tables && !s.traces.empty(); });
  std::vector<std::pair<TraceSamples, std::size_t>> traces;  // trace, digest
  for (std::size_t i = 0; i < sides.size(); ++i) {
    if (any_traces && sides[i].samples_from_tables) {
      continue;  // read_side takes tables only where a side has no trace
    }
    for (TraceSamples& trace : sides[i].traces) {
      traces.emplace_back(std::move(trace), i);
    }
  }
  std::map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < combined.inventory.files.size(); ++i) {
    order.emplace(combined.inventory.files[i].path, i);
  }
  const auto position = [&](const TraceSamples& trace) {
    const auto it = order.find(trace.path);
    return it == order.end() ? order.size() : it->second;
  };
  std::stable_sort(traces.begin(), traces.end(),
                   [&](const auto& a, const auto& b) { return position(a.first) < position(b.first); });
  for (auto& [trace, digest] : traces) {
    trace.rank.reset();
    trace.rank_source.clear();
    combined.traces.push_back(std::move(trace));
  }
  assign_ranks(combined.traces, combined.manifest ? &*combined.manifest : nullptr);
  std::map<unsigned, std::size_t> rank_digest;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const std::optional<unsigned> rank = combined.traces[i].rank;
    if (!rank) {
      continue;
    }
    if (const auto [it, added] = rank_digest.emplace(*rank, traces[i].second);
        !added && it->second != traces[i].second) {
      throw InputError(sources[traces[i].second], "rank " + std::to_string(*rank) + " is also in " +
                                                      sources[it->second] + ": each rank's digest may be given once");
    }
  }
  combined.samples_from_tables = !any_traces && !combined.traces.empty();
}

// Data problems in the order read_side finds them: the profile's own (file or folder names) first, then
// by file in path order.
void order_problems(SideSamples& combined) {
  std::map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < combined.inventory.files.size(); ++i) {
    order.emplace(combined.inventory.files[i].path, i + 1);
  }
  std::stable_sort(combined.data_problems.begin(), combined.data_problems.end(),
                   [&](const DataProblem& a, const DataProblem& b) {
                     const auto rank = [&](const DataProblem& p) {
                       const auto it = order.find(p.file);
                       return it == order.end() ? std::size_t{0} : it->second;
                     };
                     return rank(a) < rank(b);
                   });
}

// The git state of the first digest that has one; a digest recording another commit is named in a warning
// (the ranks of one job are expected to profile one commit).
void merge_repository(SideSamples& combined, std::optional<SideRepository>& first,
                      const std::optional<SideRepository>& state, const std::string& source) {
  if (!first && state) {
    first = state;
  } else if (first && state && state->commit != first->commit) {
    combined.read_warnings.push_back(source + ": digested at commit " + state->commit + ", another rank's at " +
                                     first->commit + " (the report shows the first)");
  }
}

}  // namespace

bool is_digest_side(const ProfileInventory& inventory) {
  const DiscoveredFile* digest = nullptr;
  const DiscoveredFile* profile = nullptr;
  for (const DiscoveredFile& file : inventory.files) {
    if (file.kind == FileKind::digest && digest == nullptr) {
      digest = &file;
    } else if (file.kind != FileKind::digest && file.kind != FileKind::ignored && profile == nullptr) {
      profile = &file;
    }
  }
  if (digest != nullptr && profile != nullptr) {
    throw InputError(inventory.spec, "holds both digests (\"" + digest->relative_path + "\") and profile files (\"" +
                                         profile->relative_path +
                                         "\"): give a folder of digests or a profile, not both in one");
  }
  return digest != nullptr;
}

SideSamples combine_digest_sides(std::vector<SideSamples> sides, const std::vector<DigestInfo>& infos,
                                 const std::vector<std::string>& sources, const std::string& spec,
                                 std::optional<SideRepository>* repository) {
  for (std::size_t i = 0; i < sides.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!infos[i].sha256.empty() && infos[i].sha256 == infos[j].sha256) {
        throw InputError(sources[i], "is the same digest as " + sources[j] + ": each rank's digest may be given once");
      }
    }
  }
  std::vector<std::vector<std::string>> roots;
  for (const SideSamples& side : sides) {
    roots.push_back(root_parts(side.inventory));
  }
  std::size_t common = roots.front().size();
  for (const auto& parts : roots) {
    std::size_t n = 0;
    while (n < common && n < parts.size() && parts[n] == roots.front()[n]) {
      ++n;
    }
    common = n;
  }
  std::vector<std::size_t> order(sides.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = 0; i < sides.size(); ++i) {
    rebase(sides[i], joined(roots[i], common, roots[i].size()));
  }
  const auto first_path = [&](std::size_t i) {
    return sides[i].inventory.files.empty() ? std::string() : sides[i].inventory.files.front().relative_path;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return first_path(a) < first_path(b); });
  std::vector<SideSamples> sorted;
  std::vector<std::string> named;
  std::vector<const DigestInfo*> sorted_infos;
  for (std::size_t i : order) {
    sorted.push_back(std::move(sides[i]));
    named.push_back(sources[i]);
    sorted_infos.push_back(&infos[i]);
  }
  const std::string root = common == 0 ? spec : joined(roots.front(), 0, common);
  SideSamples combined;
  std::optional<SideRepository> first_state;
  combined.inventory = merged_inventory(sorted, named, common == 1 && root.empty() ? "/" : root);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const SideSamples& side = sorted[i];
    merge_metrics(combined, side, named[i]);
    for (const auto& [op, shapes] : side.table_input_shapes) {
      combined.table_input_shapes[op].insert(shapes.begin(), shapes.end());
    }
    if (side.manifest && combined.manifest) {
      throw InputError(named[i], "a second run manifest on one side (" + side.manifest->source_path +
                                     "; the first is " + combined.manifest->source_path + ")");
    }
    if (side.manifest) {
      combined.manifest = side.manifest;
    }
    combined.table_warnings.insert(combined.table_warnings.end(), side.table_warnings.begin(),
                                   side.table_warnings.end());
    combined.read_warnings.insert(combined.read_warnings.end(), side.read_warnings.begin(), side.read_warnings.end());
    combined.file_details.insert(side.file_details.begin(), side.file_details.end());
    combined.data_problems.insert(combined.data_problems.end(), side.data_problems.begin(), side.data_problems.end());
    merge_repository(combined, first_state, sorted_infos[i]->repository, named[i]);
  }
  merge_traces(combined, sorted, named);
  order_problems(combined);
  DigestFields(combined.inventory.spec).check_side_limits(combined);
  recompute_side_totals(combined);
  if (repository != nullptr) {
    *repository = std::move(first_state);
  }
  return combined;
}

std::vector<SideSamples> load_sides(std::span<const SideToRead> sides, const TraceReadOptions& options,
                                    const std::function<void(const SideSamples&)>& after_each,
                                    std::vector<std::optional<RecordedRepository>>* recorded) {
  std::vector<SideToRead> profiles;
  std::vector<bool> digest;
  for (const SideToRead& side : sides) {
    digest.push_back(is_digest_side(*side.inventory));
    if (!digest.back()) {
      profiles.push_back(side);
    }
  }
  std::vector<SideSamples> read = read_sides(profiles, options);
  std::vector<SideSamples> result;
  std::size_t next = 0;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    std::optional<RecordedRepository> side_recorded;
    result.push_back(digest[i] ? load_side(sides[i].label, *sides[i].inventory, options, &side_recorded)
                               : std::move(read[next++]));
    if (recorded != nullptr) {
      recorded->push_back(std::move(side_recorded));
    }
    if (after_each) {
      after_each(result.back());
    }
  }
  return result;
}

SideSamples load_side(const std::string& label, const ProfileInventory& inventory, const TraceReadOptions& options,
                      std::optional<RecordedRepository>* recorded) {
  if (recorded != nullptr) {
    recorded->reset();
  }
  if (!is_digest_side(inventory)) {
    return read_side(label, inventory, options);
  }
  std::vector<SideSamples> sides;
  std::vector<DigestInfo> infos;
  std::vector<std::string> sources;
  for (const DiscoveredFile& file : inventory.files) {
    if (file.kind != FileKind::digest) {
      continue;
    }
    DigestInfo info;
    sides.push_back(read_digest(*open_profile_file(file), &info));
    if (info.by_shape != options.by_shape) {
      throw InputError(file.path, std::string("a digest made ") + (info.by_shape ? "with" : "without") +
                                      " --by-shape, compared " + (options.by_shape ? "with" : "without") +
                                      " it: digest the profile again with the same setting");
    }
    infos.push_back(info);
    sources.push_back(file.path);
  }
  std::optional<SideRepository> state = infos.size() == 1 ? infos.front().repository : std::nullopt;
  SideSamples side = sides.size() == 1 ? std::move(sides.front())
                                       : combine_digest_sides(std::move(sides), infos, sources, inventory.spec, &state);
  side.label = label;
  if (recorded != nullptr) {
    *recorded = RecordedRepository{std::move(state)};
  }
  return side;
}

}  // namespace neuron_gate
