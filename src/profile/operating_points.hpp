#pragma once
// Operating points of one side (docs/user-guide.md "Operating points"): a side may hold several, one folder each,
// marked by its run manifest. The folders are told apart by the manifest's `operating_point` label, or
// by the folder's name where the manifest has none. A side with at most one manifest is one point.

#include "formats/discover.hpp"

#include <string>
#include <vector>

namespace neuron_gate {

// One operating point of a side: the files below its folder, as an inventory of their own.
struct OperatingPointFiles {
  std::string label;       // the manifest's operating_point, else the folder's name; "" for a side of one point
                           // whose manifest (if any) gives no label
  std::string label_from;  // "manifest" or "folder name" ("" with label "")
  std::string folder;      // relative to the side's root, "" for the root (a side of one point)
  // The point's files and folders; relative paths stay relative to the side's root (so reports name
  // "16x2048-float32/run-01/..."), spec is the side's spec joined with `folder`.
  ProfileInventory inventory;
  bool operator==(const OperatingPointFiles&) const = default;
};

// Longest label accepted, in bytes.
inline constexpr std::size_t k_max_point_label = 100;

// Splits a side into its operating points. At most one run manifest: one point holding the whole
// inventory (label from the manifest when it sets operating_point). Several manifests: one point per
// manifest, its folder being the manifest's folder, ordered by label. Throws InputError naming the files
// when a manifest sits in a folder that holds another manifest's folder (or in the root), when two points
// of the side share a label, when a label is empty, longer than k_max_point_label or holds a control
// character, and when a file that is read (not ignored) lies outside every point's folder; and as
// read_manifest() for a manifest that cannot be parsed. Ignored files outside every point are dropped.
std::vector<OperatingPointFiles> split_operating_points(const ProfileInventory& inventory);

// True when base and head are compared point by point: either side holds more than one point. Two
// sides of one point each are compared as they always were (no point in any name).
bool compare_per_point(const std::vector<OperatingPointFiles>& base, const std::vector<OperatingPointFiles>& head);

// The suffix a per-point metric name carries: " [at 16x2048-float32]" (after any rank suffix).
std::string point_suffix(const std::string& label);

}  // namespace neuron_gate
