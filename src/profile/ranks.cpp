#include "profile/ranks.hpp"

#include "formats/neuron_artifacts.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

namespace neuron_gate {
namespace {

std::optional<unsigned> parse_unsigned(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::string_view file_name_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The longest folder prefix ("a/b/") all trace paths share; "" for one trace in no folder.
std::string common_folder(const std::vector<TraceSamples>& traces) {
  if (traces.empty()) {
    return "";
  }
  std::string prefix = traces.front().path.substr(0, traces.front().path.rfind('/') + 1);
  for (const TraceSamples& trace : traces) {
    while (!prefix.empty() && trace.path.compare(0, prefix.size(), prefix) != 0) {
      const auto slash = prefix.rfind('/', prefix.size() - 2);
      prefix = slash == std::string::npos ? std::string() : prefix.substr(0, slash + 1);
    }
  }
  return prefix;
}

}  // namespace

std::optional<unsigned> rank_from_folder_names(std::string_view path, std::string_view common) {
  if (path.substr(0, common.size()) != common) {
    return std::nullopt;
  }
  std::string_view rest = path.substr(common.size());
  for (auto slash = rest.rfind('/'); slash != std::string_view::npos; slash = rest.rfind('/')) {
    rest = rest.substr(0, slash);  // drop the last part (the file name, then the nearest folder, ...)
    const auto start = rest.rfind('/');
    const std::string_view folder = start == std::string_view::npos ? rest : rest.substr(start + 1);
    if (folder.find("_pid_") == std::string_view::npos) {
      if (auto rank = rank_in_name(folder)) {
        return rank;
      }
    }
  }
  return std::nullopt;
}

std::optional<unsigned> rank_from_metadata(const TraceSamples& trace) {
  auto it = trace.metadata.find("distributedInfo.rank");
  if (it == trace.metadata.end()) {
    return std::nullopt;
  }
  std::string_view text = it->second;
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  return parse_unsigned(text);
}

std::optional<unsigned> rank_in_name(std::string_view name) {
  std::optional<unsigned> found;
  for (const std::string_view word : {std::string_view("rank"), std::string_view("worker")}) {
    for (std::size_t at = name.find(word); at != std::string_view::npos; at = name.find(word, at + 1)) {
      const bool boundary = at == 0 || !std::isalpha(static_cast<unsigned char>(name[at - 1]));
      std::size_t digits_at = at + word.size();
      if (digits_at < name.size() && (name[digits_at] == '_' || name[digits_at] == '-')) {
        ++digits_at;
      }
      std::size_t end = digits_at;
      while (end < name.size() && name[end] >= '0' && name[end] <= '9') {
        ++end;
      }
      if (!boundary || end == digits_at) {
        continue;
      }
      if (auto value = parse_unsigned(name.substr(digits_at, end - digits_at))) {
        found = value;  // the last match wins (a "_rank_<N>" suffix after other words)
      }
    }
    if (found) {
      return found;
    }
  }
  return found;
}

std::optional<unsigned> rank_from_file_name(std::string_view path) {
  return rank_in_name(file_name_of(path));
}

std::optional<unsigned> rank_from_manifest(const RunManifest& manifest) {
  const auto it = manifest.fields.find("rank");
  return it == manifest.fields.end() ? std::nullopt : parse_unsigned(it->second);
}

namespace {

// The world size a trace or the manifest states (`distributedInfo.world_size`, manifest "world_size"), 0 if none.
unsigned world_size_of(const std::map<std::string, std::string>& fields, const std::string& key) {
  const auto it = fields.find(key);
  return it == fields.end() ? 0u : parse_unsigned(it->second).value_or(0u);
}

// Each mark of one trace that states a rank: its source and the rank it states.
std::vector<std::pair<std::string, unsigned>> rank_marks(const TraceSamples& trace, const std::string& common,
                                                         const RunManifest* manifest) {
  std::vector<std::pair<std::string, unsigned>> marks;
  if (auto rank = rank_from_metadata(trace)) {
    marks.emplace_back("distributedInfo.rank", *rank);
  }
  if (auto rank = rank_from_file_name(trace.path)) {
    marks.emplace_back("file name", *rank);
  }
  if (auto rank = rank_from_folder_names(trace.path, common)) {
    marks.emplace_back("folder name", *rank);
  }
  if (auto rank = manifest ? rank_from_manifest(*manifest) : std::nullopt) {
    marks.emplace_back("manifest", *rank);
  }
  return marks;
}

}  // namespace

void assign_ranks(std::vector<TraceSamples>& traces, const RunManifest* manifest) {
  const std::string common = common_folder(traces);
  std::set<unsigned> stated;
  unsigned world_size = manifest ? world_size_of(manifest->fields, "world_size") : 0u;
  for (TraceSamples& trace : traces) {
    trace.rank.reset();
    trace.rank_source.clear();
    const auto marks = rank_marks(trace, common, manifest);
    for (const auto& [source, rank] : marks) {
      if (rank != marks.front().second) {
        throw InputError(trace.path, "conflicting rank marks: " + marks.front().first + " says rank " +
                                         std::to_string(marks.front().second) + ", " + source + " says rank " +
                                         std::to_string(rank) + "; make them agree (docs/user-guide.md \"Ranks\")");
      }
    }
    if (!marks.empty()) {
      trace.rank = marks.front().second;
      trace.rank_source = marks.front().first;
      stated.insert(*trace.rank);
    }
    world_size = std::max(world_size, world_size_of(trace.metadata, "distributedInfo.world_size"));
  }
  if (stated.size() < 2 && world_size < 2) {
    return;  // one rank at most: unmarked process folders are runs of it
  }
  for (const TraceSamples& trace : traces) {
    const auto folder = enclosing_rank_folder(trace.path);
    if (trace.rank || !folder) {
      continue;
    }
    const std::string why = stated.size() >= 2 ? std::to_string(stated.size()) + " ranks are stated by other traces"
                                               : "the world size is " + std::to_string(world_size);
    throw InputError(trace.path, "the process folder " + folder->folder + " holds a trace that states no rank, but " +
                                     why +
                                     ": ranks are never pooled, so mark its rank (distributedInfo in the trace, a "
                                     "rank_<N>, rank-<N> or worker<N> file or folder name, or \"rank\" in the run "
                                     "manifest; docs/user-guide.md \"Ranks\")");
  }
}

std::set<std::optional<unsigned>> distinct_ranks(const std::vector<TraceSamples>& traces) {
  std::set<std::optional<unsigned>> ranks;
  for (const TraceSamples& trace : traces) {
    ranks.insert(trace.rank);
  }
  return ranks;
}

bool compare_per_rank(const std::vector<TraceSamples>& base, const std::vector<TraceSamples>& head) {
  return distinct_ranks(base).size() > 1 || distinct_ranks(head).size() > 1;
}

std::string rank_name(std::optional<unsigned> rank) {
  return rank ? "rank " + std::to_string(*rank) : std::string("rank unknown");
}

std::string rank_suffix(std::optional<unsigned> rank) {
  return " [" + rank_name(rank) + "]";
}

std::vector<std::string> rank_assumptions(const std::vector<TraceSamples>& traces) {
  std::vector<std::string> assumptions;
  if (distinct_ranks(traces).size() <= 1) {
    return assumptions;
  }
  bool by_name = false, unknown = false;
  for (const TraceSamples& trace : traces) {
    by_name = by_name || trace.rank_source == "file name";
    unknown = unknown || !trace.rank;
  }
  if (by_name) {
    assumptions.push_back(
        "the N of _rank_<N> in a trace's file name (neuron_framework_trace_rank_<N>.json) is taken as "
        "its rank (unverified for TorchNeuron)");
  }
  const bool by_folder_name = std::any_of(traces.begin(), traces.end(),
                                          [](const TraceSamples& trace) { return trace.rank_source == "folder name"; });
  if (by_folder_name) {
    assumptions.push_back(
        "the N of rank-N, rankN or workerN in a folder name is taken as the rank of the traces in it");
  }
  if (unknown) {
    assumptions.push_back("some traces carry no rank (no distributedInfo.rank, no rank-N, rankN, _rank_N or workerN "
                          "name, no \"rank\" in the manifest): they are kept together as \"rank unknown\"");
  }
  return assumptions;
}

}  // namespace neuron_gate
