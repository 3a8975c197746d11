#include "profile/operating_points.hpp"

#include "formats/manifest.hpp"
#include "input/json_input.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <map>

namespace neuron_gate {
namespace {

std::string parent_folder(const std::string& relative_path) {
  const std::size_t slash = relative_path.rfind('/');
  return slash == std::string::npos ? std::string() : relative_path.substr(0, slash);
}

std::string last_component(const std::string& folder) {
  const std::size_t slash = folder.rfind('/');
  return slash == std::string::npos ? folder : folder.substr(slash + 1);
}

// True when `path` (a file or folder, relative) lies in `folder` ("" holds everything).
bool inside(const std::string& path, const std::string& folder) {
  return folder.empty() ||
         (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 && path[folder.size()] == '/');
}

void check_label(const std::string& label, const std::string& path) {
  if (label.empty() || label.size() > k_max_point_label) {
    throw InputError(path, "an operating point's label must be 1 to " + std::to_string(k_max_point_label) +
                               " bytes, not " + std::to_string(label.size()));
  }
  for (const char c : label) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      throw InputError(path, "an operating point's label holds a control character");
    }
  }
}

// A manifest of the inventory, read through the one reader (on disk or a git blob).
RunManifest read_point_manifest(const DiscoveredFile& file) {
  return parse_manifest(read_input_text(*open_profile_file(file)).text, file.path);
}

// One point per manifest, labelled; files not yet assigned.
std::vector<OperatingPointFiles> points_of_manifests(const ProfileInventory& inventory,
                                                     const std::vector<const DiscoveredFile*>& manifests) {
  std::vector<OperatingPointFiles> points;
  std::map<std::string, std::string> manifest_of_label;
  for (const DiscoveredFile* file : manifests) {
    OperatingPointFiles point;
    point.folder = parent_folder(file->relative_path);
    const RunManifest manifest = read_point_manifest(*file);
    const auto label = manifest.fields.find("operating_point");
    point.label = label != manifest.fields.end() ? label->second : last_component(point.folder);
    point.label_from = label != manifest.fields.end() ? "manifest" : "folder name";
    if (point.folder.empty()) {
      throw InputError(file->path, "a run manifest at the top of a side that holds " +
                                       std::to_string(manifests.size()) +
                                       " manifests: put one manifest in each operating point's folder");
    }
    check_label(point.label, file->path);
    if (const auto [it, fresh] = manifest_of_label.emplace(point.label, file->path); !fresh) {
      throw InputError(file->path, "operating point \"" + point.label + "\" is also the label of " + it->second +
                                       ": each point of a side needs its own label");
    }
    point.inventory.spec = inventory.spec + "/" + point.folder;
    point.inventory.git_repository = inventory.git_repository;
    point.inventory.git_repository_shown = inventory.git_repository_shown;
    point.inventory.git_commit = inventory.git_commit;
    points.push_back(std::move(point));
  }
  for (const OperatingPointFiles& outer : points) {
    for (const OperatingPointFiles& inner : points) {
      if (&inner != &outer && inner.folder == outer.folder) {
        throw InputError(inventory.spec, "two run manifests in folder \"" + inner.folder +
                                             "\": one manifest per operating point, each in its own folder");
      }
      if (inside(inner.folder, outer.folder)) {
        throw InputError(inventory.spec, "operating point folder \"" + inner.folder + "\" lies inside \"" +
                                             outer.folder + "\": one manifest per point, in folders side by side");
      }
    }
  }
  return points;
}

// Gives every file and folder to the point whose folder holds it.
void assign_files(const ProfileInventory& inventory, std::vector<OperatingPointFiles>& points) {
  for (const DiscoveredFile& file : inventory.files) {
    const auto point = std::find_if(points.begin(), points.end(),
                                    [&](const OperatingPointFiles& p) { return inside(file.relative_path, p.folder); });
    if (point != points.end()) {
      point->inventory.files.push_back(file);
    } else if (file.kind != FileKind::ignored) {
      throw InputError(file.path, "this file (" + std::string(file_kind_name(file.kind)) +
                                      ") lies outside every operating point's folder (each point is the folder of "
                                      "its neuron-gate.json manifest)");
    }
  }
  for (const std::string& folder : inventory.folders) {
    for (OperatingPointFiles& point : points) {
      if (folder == point.folder || inside(folder, point.folder)) {
        point.inventory.folders.push_back(folder);
      }
    }
  }
  points.front().inventory.names_with_invalid_utf8 = inventory.names_with_invalid_utf8;
}

}  // namespace

std::vector<OperatingPointFiles> split_operating_points(const ProfileInventory& inventory) {
  std::vector<const DiscoveredFile*> manifests;
  for (const DiscoveredFile& file : inventory.files) {
    if (file.kind == FileKind::run_manifest) {
      manifests.push_back(&file);
    }
  }
  if (manifests.size() <= 1) {
    OperatingPointFiles point;
    point.inventory = inventory;
    if (!manifests.empty()) {
      const RunManifest manifest = read_point_manifest(*manifests.front());
      if (const auto label = manifest.fields.find("operating_point"); label != manifest.fields.end()) {
        point.label = label->second;
        point.label_from = "manifest";
      }
    }
    return {point};
  }
  std::vector<OperatingPointFiles> points = points_of_manifests(inventory, manifests);
  std::sort(points.begin(), points.end(),
            [](const OperatingPointFiles& a, const OperatingPointFiles& b) { return a.label < b.label; });
  assign_files(inventory, points);
  return points;
}

bool compare_per_point(const std::vector<OperatingPointFiles>& base, const std::vector<OperatingPointFiles>& head) {
  return base.size() > 1 || head.size() > 1;
}

std::string point_suffix(const std::string& label) {
  return " [at " + label + "]";
}

}  // namespace neuron_gate
