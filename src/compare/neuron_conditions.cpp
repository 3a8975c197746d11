#include "compare/neuron_conditions.hpp"

#include "formats/manifest.hpp"
#include "profile/ranks.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

namespace neuron_gate {
namespace {

constexpr const char* k_traced = ", traced ";

// A set of NeuronCores in the manifest's canonical form ("0-2", "0,1", "0-3,7").
std::string core_list(const std::set<unsigned>& cores) {
  std::string text;
  for (unsigned core : cores) {
    text += (text.empty() ? "" : ",") + std::to_string(core);
  }
  return canonical_core_list(text, "", "");
}

// The NeuronCores of a canonical list ("0-2,7" -> {0, 1, 2, 7}).
std::set<unsigned> cores_of(const std::string& list) {
  std::set<unsigned> cores;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, comma - at);
    const std::size_t dash = item.find('-');
    const unsigned low = static_cast<unsigned>(std::stoul(item.substr(0, dash)));
    const unsigned high = dash == std::string::npos ? low : static_cast<unsigned>(std::stoul(item.substr(dash + 1)));
    for (unsigned core = low; core <= high && cores.size() < 4096; ++core) {
      cores.insert(core);
    }
    at = comma + 1;
  }
  return cores;
}

// "neuron_core_selection": the selected NeuronCores against those that wrote NTFF files.
void add_core_selection(const SideSamples& side, const std::set<unsigned>& traced, Fingerprint& fp) {
  if (!side.manifest || traced.empty()) {
    return;
  }
  const auto selection = side.manifest->fields.find("neuron_config.capture_enabled_for_nc");
  if (selection == side.manifest->fields.end() || selection->second.empty()) {
    return;
  }
  const std::set<unsigned> selected = cores_of(selection->second);
  const bool all_selected = std::includes(selected.begin(), selected.end(), traced.begin(), traced.end());
  if (!all_selected) {
    fp.values["neuron_core_selection"] = "selected " + selection->second + k_traced + core_list(traced);
  } else if (selected == traced) {
    fp.values["neuron_core_selection"] = "NeuronCores " + core_list(traced) + " as selected";
  } else {
    fp.values["neuron_core_selection"] = "NeuronCores " + core_list(traced) + " of " + selection->second + " selected";
  }
}

// "neff_hashes": the compiled executables' hashes, or their count and a digest of them beyond 6.
void add_neff_hashes(const std::set<std::string>& hashes, Fingerprint& fp) {
  if (hashes.empty()) {
    return;
  }
  const std::string list = join_set(hashes);
  fp.values["neff_hashes"] = hashes.size() <= 6 ? list
                                                : std::to_string(hashes.size()) + " NEFFs, sha256 of the hash list " +
                                                      sha256_hex(list).substr(0, 12);
}

}  // namespace

bool neuron_core_selection_consistent(const std::string& value) {
  return value.find(k_traced) == std::string::npos;
}

void add_neuron_conditions(const SideSamples& side, Fingerprint& fp) {
  if (side.neuron.captures.empty()) {
    return;
  }
  std::set<std::string> ranks, cores, hashes;
  std::set<unsigned> traced;
  std::vector<std::string> problems;
  for (const NeuronCapture& capture : side.neuron.captures) {
    if (capture.rank) {
      ranks.insert(capture.rank->folder);
    }
    for (unsigned core : capture.neuron_cores) {
      cores.insert(std::to_string(core));
    }
    for (const NtffFile& ntff : capture.ntffs) {
      if (const std::optional<unsigned> core = ntff.neuron_core ? ntff.neuron_core : ntff.vnc) {
        traced.insert(*core);
      }
    }
    problems.insert(problems.end(), capture.problems.begin(), capture.problems.end());
    for (const NeffFile& neff : capture.neffs) {
      fp.neff_names.insert(neff.name);
      if (!neff.hash.empty()) {
        hashes.insert(neff.hash);
      }
    }
  }
  // Process folders are runs of one rank (profile/ranks.hpp): ranks come from the traces' marks, and a
  // side of process folders without any mark is one rank.
  const std::set<std::optional<unsigned>> trace_ranks = distinct_ranks(side.traces);
  if (!ranks.empty() && trace_ranks.size() == 1 && !trace_ranks.begin()->has_value()) {
    fp.values["ranks"] = "1";
  }
  if (!cores.empty()) {
    fp.values["neuron_cores"] = join_set(cores);
  }
  std::string artifacts = problems.empty() ? "complete" : plural(problems.size(), "problem") + ": ";
  for (std::size_t i = 0; i < problems.size(); ++i) {
    artifacts += (i == 0 ? "" : "; ") + problems[i];
  }
  fp.values["artifacts"] = artifacts;
  add_core_selection(side, traced, fp);
  add_neff_hashes(hashes, fp);
}

}  // namespace neuron_gate
