#include "profile/ranks.hpp"

#include "formats/neuron_artifacts.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <tuple>

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

std::string parent_folder(const std::string& folder) {
  const auto slash = folder.rfind('/');
  return slash == std::string::npos ? std::string() : folder.substr(0, slash);
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

void assign_ranks(std::vector<TraceSamples>& traces) {
  // Rank folders holding a trace that no better source places, numbered in (parent, instance, pid) order.
  using FolderKey = std::tuple<std::string, std::string, std::uint64_t, std::string>;
  std::map<FolderKey, unsigned> folder_ranks;
  std::vector<std::optional<FolderKey>> trace_folders(traces.size());
  const std::string common = common_folder(traces);
  for (std::size_t i = 0; i < traces.size(); ++i) {
    TraceSamples& trace = traces[i];
    trace.rank.reset();
    trace.rank_source.clear();
    if (auto rank = rank_from_metadata(trace)) {
      trace.rank = rank;
      trace.rank_source = "distributedInfo.rank";
    } else if (auto named = rank_from_file_name(trace.path)) {
      trace.rank = named;
      trace.rank_source = "file name";
    } else if (auto in_folder = rank_from_folder_names(trace.path, common)) {
      trace.rank = in_folder;
      trace.rank_source = "folder name";
    } else if (auto folder = enclosing_rank_folder(trace.path)) {
      trace_folders[i] = FolderKey{parent_folder(folder->folder), folder->instance_id, folder->pid, folder->folder};
      folder_ranks.emplace(*trace_folders[i], 0);
    }
  }
  unsigned next = 0;
  for (auto& [key, rank] : folder_ranks) {
    rank = next++;
  }
  for (std::size_t i = 0; i < traces.size(); ++i) {
    if (trace_folders[i]) {
      traces[i].rank = folder_ranks.at(*trace_folders[i]);
      traces[i].rank_source = "rank folder";
    }
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
  bool by_folder = false, by_name = false, unknown = false;
  for (const TraceSamples& trace : traces) {
    by_folder = by_folder || trace.rank_source == "rank folder";
    by_name = by_name || trace.rank_source == "file name";
    unknown = unknown || !trace.rank;
  }
  if (by_folder) {
    assumptions.push_back(
        "traces without distributedInfo.rank were given the rank of their <instance-id>_pid_<pid> folder, the folders "
        "numbered 0, 1, ... in order of instance id and pid; that processes start in rank order is assumed "
        "(unverified): base rank k is compared with head rank k, so profile with distributedInfo in the trace "
        "(torch.distributed initialised) to be sure");
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
                          "name, no <instance-id>_pid_<pid> folder): they are kept together as \"rank unknown\"");
  }
  return assumptions;
}

}  // namespace neuron_gate
