#include "formats/neuron_artifacts.hpp"

#include "input/walk.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <system_error>

namespace neuron_gate {

namespace {

constexpr std::string_view k_root = ".";
constexpr const char* k_pb_names[] = {"cpu_util.pb", "host_mem.pb", "ntrace.pb", "trace_info.pb"};

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Decimal digits only (no sign, no spaces), within the range of T.
template <typename T>
std::optional<T> parse_decimal(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// A NEFF hash is documented as decimal; any run of letters and digits is accepted, compared as text.
bool is_hash(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
}

std::string_view file_name_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string parent_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string(k_root) : std::string(path.substr(0, slash));
}

std::string join(const std::string& folder, std::string_view name) {
  return folder == k_root ? std::string(name) : folder + "/" + std::string(name);
}

// "./a/b/" -> "a/b"; "" and "." -> ".".
std::string normalise(std::string_view path) {
  while (starts_with(path, "./")) {
    path.remove_prefix(2);
  }
  while (!path.empty() && path.back() == '/') {
    path.remove_suffix(1);
  }
  return path.empty() ? std::string(k_root) : std::string(path);
}

std::optional<RankFolder> parse_rank_folder(const std::string& folder) {
  const std::string_view name = file_name_of(folder);
  const auto at = name.rfind("_pid_");
  if (at == std::string_view::npos || at == 0) {
    return std::nullopt;
  }
  const auto pid = parse_decimal<std::uint64_t>(name.substr(at + 5));
  if (!pid) {
    return std::nullopt;
  }
  return RankFolder{folder, std::string(name.substr(0, at)), *pid};
}

NeffFile parse_neff(std::string_view name, std::uintmax_t size_bytes) {
  NeffFile neff;
  neff.name = std::string(name);
  neff.size_bytes = size_bytes;
  if (!starts_with(name, "neff_")) {
    return neff;
  }
  std::string_view middle = name.substr(5, name.size() - 5 - 5);
  const auto vnc_at = middle.rfind("_vnc_");
  if (vnc_at != std::string_view::npos) {
    if (const auto vnc = parse_decimal<unsigned>(middle.substr(vnc_at + 5))) {
      neff.vnc = vnc;
      middle = middle.substr(0, vnc_at);
    }
  }
  if (is_hash(middle)) {
    neff.hash = std::string(middle);
  } else {
    neff.vnc.reset();
  }
  return neff;
}

// "<a><separator><b>" with a and b decimal.
std::optional<std::pair<unsigned, unsigned>> parse_number_pair(std::string_view text, std::string_view separator) {
  const auto at = text.find(separator);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  const auto first = parse_decimal<unsigned>(text.substr(0, at));
  const auto second = parse_decimal<unsigned>(text.substr(at + separator.size()));
  if (!first || !second) {
    return std::nullopt;
  }
  return std::pair{*first, *second};
}

NtffFile parse_ntff(std::string_view name, std::uintmax_t size_bytes) {
  NtffFile ntff;
  ntff.name = std::string(name);
  ntff.size_bytes = size_bytes;
  const std::string_view stem = name.substr(0, name.size() - 5);
  if (starts_with(stem, "profile_nc_")) {
    if (const auto pair = parse_number_pair(stem.substr(11), "_session_")) {
      ntff.naming = NtffNaming::session;
      ntff.neuron_core = pair->first;
      ntff.session = pair->second;
      return ntff;
    }
  }
  if (stem == "profile") {
    ntff.naming = NtffNaming::capture;
    return ntff;
  }
  if (starts_with(stem, "profile_rank_")) {
    if (const auto rank = parse_decimal<unsigned>(stem.substr(13))) {
      ntff.naming = NtffNaming::capture;
      ntff.rank = rank;
      return ntff;
    }
  }
  const auto instid_at = stem.find("_instid_");
  if (instid_at != std::string_view::npos && is_hash(stem.substr(0, instid_at))) {
    if (const auto pair = parse_number_pair(stem.substr(instid_at + 8), "_vnc_")) {
      ntff.naming = NtffNaming::hashed;
      ntff.hash = std::string(stem.substr(0, instid_at));
      ntff.instid = pair->first;
      ntff.vnc = pair->second;
      return ntff;
    }
  }
  return ntff;
}

bool is_framework_trace(std::string_view name) {
  return name == "trace.json" || name == "trace.json.gz" || name == "pytorch_trace.json" ||
         (starts_with(name, "neuron_framework_trace_rank_") && ends_with(name, ".json")) ||
         ends_with(name, ".pt.trace.json") || ends_with(name, ".pt.trace.json.gz");
}

bool is_known_pb(std::string_view name) {
  return std::find(std::begin(k_pb_names), std::end(k_pb_names), name) != std::end(k_pb_names);
}

// "a", "b" -> "\"a\", \"b\"".
std::string quoted_list(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) {
    text += (text.empty() ? "\"" : ", \"") + name + "\"";
  }
  return text;
}

// YYYYMMDD_HHMMSS_mmm, the runtime's format that the old TorchNeuron wrapper copies.
bool looks_like_timestamp(std::string_view name) {
  if (name.size() != 19 || name[8] != '_' || name[15] != '_') {
    return false;
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (i != 8 && i != 15 && (name[i] < '0' || name[i] > '9')) {
      return false;
    }
  }
  return true;
}

struct Folder {
  std::vector<std::pair<std::string, std::uintmax_t>> files;  // name, size
  bool has_subfolders = false;
};

// Every folder named by `files` (ancestors included), with its direct files.
std::map<std::string, Folder> collect_folders(const std::vector<ArtifactFile>& files) {
  std::map<std::string, Folder> folders;
  folders[std::string(k_root)];
  for (const auto& file : files) {
    const std::string path = normalise(file.relative_path);
    if (path == k_root) {
      continue;
    }
    std::string folder = file.is_directory ? path : parent_of(path);
    if (file.is_directory) {
      folders[folder];
    } else {
      folders[folder].files.emplace_back(std::string(file_name_of(path)), file.size_bytes);
    }
    while (folder != k_root) {
      const std::string parent = parent_of(folder);
      folders[parent].has_subfolders = true;
      folder = parent;
    }
  }
  return folders;
}

// The nearest folder at or above `folder` named `<instance-id>_pid_<pid>`.
std::optional<RankFolder> enclosing_rank(std::string folder) {
  while (folder != k_root) {
    if (auto rank = parse_rank_folder(folder)) {
      return rank;
    }
    folder = parent_of(folder);
  }
  return std::nullopt;
}

void judge(NeuronCapture& capture, const Folder& contents) {
  const std::string& folder = capture.folder;
  if (contents.files.empty() && !contents.has_subfolders) {
    capture.problems.push_back(folder + ": empty capture folder: nothing was written");
    return;
  }
  for (const auto& neff : capture.neffs) {
    if (neff.size_bytes == 0) {
      capture.problems.push_back(join(folder, neff.name) + ": 0-byte NEFF: the compiled graph is missing");
    }
  }
  std::set<std::string> neff_hashes;
  for (const auto& neff : capture.neffs) {
    neff_hashes.insert(neff.hash);
  }
  std::map<unsigned, std::vector<std::string>> sessions_without_neff;
  for (const auto& ntff : capture.ntffs) {
    if (ntff.size_bytes == 0) {
      capture.problems.push_back(join(folder, ntff.name) + ": 0-byte NTFF: nothing ran while capturing");
    }
    if (ntff.naming == NtffNaming::hashed) {
      if (neff_hashes.count(ntff.hash) == 0) {
        capture.problems.push_back(join(folder, ntff.name) + ": no NEFF with its hash in \"" + folder + "\": \"" +
                                   ntff.hash + "\" (expected \"neff_" + ntff.hash + ".neff\" beside it)");
      }
    } else if (capture.neffs.empty()) {
      if (ntff.naming == NtffNaming::session) {
        sessions_without_neff[*ntff.session].push_back(ntff.name);
      } else {
        capture.problems.push_back(folder + ": no NEFF beside \"" + ntff.name + "\"");
      }
    }
  }
  for (const auto& [session, names] : sessions_without_neff) {
    capture.problems.push_back(folder + ": no NEFF beside the NTFFs of session " + std::to_string(session) + ": " +
                               quoted_list(names) + " (perhaps left in the NEFF cache, e.g. /tmp/neff_cache)");
  }
  if (!capture.pb_files.empty() && capture.ntffs.empty()) {
    capture.problems.push_back(folder +
                               ": .pb files but no .ntff: device profiling was off: " + quoted_list(capture.pb_files));
  }
}

}  // namespace

bool is_neuron_binary_name(std::string_view path) {
  const std::string_view name =
      path.substr(path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1);
  return name.ends_with(".neff") || name.ends_with(".ntff") || name == "ntrace.pb" || name == "trace_info.pb" ||
         name == "cpu_util.pb" || name == "host_mem.pb";
}

std::optional<RankFolder> enclosing_rank_folder(const std::string& path) {
  const std::string normal = normalise(path);
  return normal == k_root ? std::nullopt : enclosing_rank(parent_of(normal));
}

std::vector<RankFolder> find_rank_folders(const std::vector<ArtifactFile>& files) {
  std::map<std::string, RankFolder> ranks;
  for (const auto& file : files) {
    const std::string path = normalise(file.relative_path);
    std::string folder = file.is_directory ? path : parent_of(path);
    while (folder != k_root) {
      if (auto rank = parse_rank_folder(folder)) {
        ranks.emplace(folder, std::move(*rank));
      }
      folder = parent_of(folder);
    }
  }
  std::vector<RankFolder> result;
  for (auto& [folder, rank] : ranks) {
    result.push_back(std::move(rank));
  }
  return result;
}

NeuronArtifacts find_neuron_artifacts(const std::vector<ArtifactFile>& files) {
  NeuronArtifacts artifacts;
  bool saw_timestamp = false;
  bool saw_hash_pairing = false;
  bool saw_folder_pairing = false;
  std::vector<std::string> odd_timestamps;
  for (const auto& [folder, contents] : collect_folders(files)) {
    NeuronCapture capture;
    capture.folder = folder;
    capture.rank = enclosing_rank(folder);
    const std::optional<RankFolder> own_rank = parse_rank_folder(folder);
    const bool inside_rank = folder != k_root && parse_rank_folder(parent_of(folder)).has_value();
    auto sorted_files = contents.files;
    std::sort(sorted_files.begin(), sorted_files.end());
    std::set<unsigned> cores;
    for (const auto& [name, size_bytes] : sorted_files) {
      if (ends_with(name, ".neff")) {
        capture.neffs.push_back(parse_neff(name, size_bytes));
        if (capture.neffs.back().vnc) {
          cores.insert(*capture.neffs.back().vnc);
        }
      } else if (ends_with(name, ".ntff")) {
        capture.ntffs.push_back(parse_ntff(name, size_bytes));
        const NtffFile& ntff = capture.ntffs.back();
        if (ntff.vnc) {
          cores.insert(*ntff.vnc);
        }
        if (ntff.neuron_core) {
          cores.insert(*ntff.neuron_core);
        }
      } else if (is_known_pb(name)) {
        capture.pb_files.push_back(name);
      } else if (is_framework_trace(name)) {
        capture.framework_traces.push_back(name);
      }
    }
    const bool holds_artifacts = !capture.neffs.empty() || !capture.ntffs.empty() || !capture.pb_files.empty();
    const bool rank_level = own_rank.has_value() && !contents.has_subfolders;
    if (!holds_artifacts && !rank_level && !inside_rank) {
      continue;
    }
    if (inside_rank) {
      capture.timestamp = std::string(file_name_of(folder));
      saw_timestamp = true;
      if (!looks_like_timestamp(capture.timestamp)) {
        odd_timestamps.push_back(capture.timestamp);
      }
    }
    capture.neuron_cores.assign(cores.begin(), cores.end());
    for (const auto& ntff : capture.ntffs) {
      (ntff.naming == NtffNaming::hashed ? saw_hash_pairing : saw_folder_pairing) = true;
    }
    judge(capture, contents);
    artifacts.captures.push_back(std::move(capture));
  }
  if (saw_timestamp) {
    artifacts.assumptions.push_back(
        "a folder directly inside an <instance-id>_pid_<pid> folder is one capture named by its timestamp; "
        "the timestamp format (probably YYYYMMDD_HHMMSS_mmm) is undocumented (unverified)");
  }
  if (!odd_timestamps.empty()) {
    artifacts.assumptions.push_back(
        "timestamp folders not in the form YYYYMMDD_HHMMSS_mmm, taken as captures anyway: " +
        quoted_list(odd_timestamps));
  }
  if (saw_hash_pairing) {
    artifacts.assumptions.push_back(
        "an NTFF <hash>_instid_<n>_vnc_<k>.ntff pairs with the NEFF neff_<hash>[_vnc_<k>].neff in the same folder; "
        "hashes are compared as text, so one beyond the uint64 range still pairs (documented as a decimal uint64, "
        "unverified)");
  }
  if (saw_folder_pairing) {
    artifacts.assumptions.push_back(
        "an NTFF without a hash in its name (profile_nc_<n>_session_<m>.ntff, profile[_rank_<i>].ntff) counts as "
        "paired when its folder holds at least one NEFF; pairing by folder and NeuronCore is unverified, so the "
        "NEFF's vnc_<k> is not matched against the NTFF's nc_<n>");
  }
  return artifacts;
}

std::vector<ArtifactFile> list_artifact_files(const std::string& root) {
  std::vector<ArtifactFile> files;
  for (const WalkEntry& entry : walk_profile(root).entries) {
    if (entry.kind != WalkEntryKind::skipped) {
      files.push_back({entry.relative_path, entry.size_bytes, entry.kind == WalkEntryKind::directory});
    }
  }
  return files;
}

}  // namespace neuron_gate
