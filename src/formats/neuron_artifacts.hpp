#pragma once
// Neuron device artifacts of a profile (NEFF, NTFF, runtime .pb files), found by name and checked for
// completeness. They are opaque binaries: only their names and sizes are read, never their contents
// (NEURON-FORMATS.md sections 1.2, 1.3 and 6.1).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// One entry under a profile root: a file with its size, or a folder (folders are listed only so that
// an empty capture folder can be reported). relative_path uses '/' and has no leading "./".
struct ArtifactFile {
  std::string relative_path;  // "i-0abc_pid_4242/20261130_120000_000/trace.json"
  std::uintmax_t size_bytes = 0;
  bool is_directory = false;
  bool operator==(const ArtifactFile&) const = default;
};

// A per-process folder `<instance-id>_pid_<pid>`: one process, a run of one rank (never a rank by itself:
// ranks come from rank marks, profile/ranks.hpp).
struct RankFolder {
  std::string folder;       // relative path of the folder itself, e.g. "prof/i-0abc_pid_4242"
  std::string instance_id;  // "i-0abc"
  std::uint64_t pid = 0;    // 4242
  bool operator==(const RankFolder&) const = default;
};

// A compiled graph `neff_<hash>[_vnc_<k>].neff`; any other `*.neff` name gives an empty hash.
struct NeffFile {
  std::string name;             // file name, "neff_123_vnc_0.neff"
  std::string hash;             // "123", kept as text; "" when the name carries none
  std::optional<unsigned> vnc;  // k of `_vnc_<k>`
  std::uintmax_t size_bytes = 0;
  bool operator==(const NeffFile&) const = default;
};

// How an NTFF is named, which decides how it pairs with a NEFF.
enum class NtffNaming {
  hashed,   // `<hash>_instid_<n>_vnc_<k>.ntff` (inspect / env-var capture): pairs by hash
  session,  // `profile_nc_<n>_session_<m>.ntff` (NeuronConfig): no hash, pairs by folder
  capture,  // `profile[_rank_<i>].ntff` (neuron-explorer capture -s): no hash, pairs by folder
  other,    // any other `*.ntff`: no hash, pairs by folder
};

// A raw device trace. Fields that the naming does not carry are empty.
struct NtffFile {
  std::string name;  // file name
  NtffNaming naming = NtffNaming::other;
  std::string hash;                     // hashed: the NEFF hash as text; "" otherwise
  std::optional<unsigned> instid;       // hashed: n of `_instid_<n>`
  std::optional<unsigned> vnc;          // hashed: k of `_vnc_<k>`
  std::optional<unsigned> neuron_core;  // session: n of `profile_nc_<n>`
  std::optional<unsigned> session;      // session: m of `_session_<m>`
  std::optional<unsigned> rank;         // capture: i of `profile_rank_<i>`
  std::uintmax_t size_bytes = 0;
  bool operator==(const NtffFile&) const = default;
};

// One capture folder: a folder holding Neuron artifacts directly, or a rank folder or a folder directly
// inside one (the `<timestamp>` level) even when it holds none. Lists are sorted by file name.
struct NeuronCapture {
  std::string folder;              // relative path; "." for the profile root
  std::optional<RankFolder> rank;  // the enclosing (or own) `<instance-id>_pid_<pid>` folder
  std::string timestamp;           // folder name when directly inside a rank folder, else ""
  std::vector<NeffFile> neffs;
  std::vector<NtffFile> ntffs;
  std::vector<unsigned> neuron_cores;         // sorted, unique: n of `profile_nc_<n>` and k of `vnc_<k>`
  std::vector<std::string> pb_files;          // present among ntrace.pb, trace_info.pb, cpu_util.pb, host_mem.pb
  std::vector<std::string> framework_traces;  // trace.json, neuron_framework_trace_rank_<N>.json, ...
  std::vector<std::string> problems;          // what makes the capture incomplete, "PLACE: problem"; empty if none
  bool operator==(const NeuronCapture&) const = default;
};

// Every capture folder of a profile, sorted by folder, and the unverified readings the result relies on
// (only those that applied, e.g. the timestamp format when a timestamp level was seen).
struct NeuronArtifacts {
  std::vector<NeuronCapture> captures;
  std::vector<std::string> assumptions;
  bool operator==(const NeuronArtifacts&) const = default;
};

// Finds the Neuron artifacts among `files` (relative paths under one profile root) and judges each
// capture folder: an NTFF whose hash has no NEFF beside it, unhashed NTFFs with no NEFF in their
// folder, a 0-byte NTFF or NEFF, known .pb files but no .ntff, an empty capture folder. Never throws.
NeuronArtifacts find_neuron_artifacts(const std::vector<ArtifactFile>& files);

// True for the names of the Neuron binaries (NEFF, NTFF and the runtime's ntrace.pb, trace_info.pb,
// cpu_util.pb, host_mem.pb): formats without a public schema, told by name and never parsed.
bool is_neuron_binary_name(std::string_view path);

// The rank folders `<instance-id>_pid_<pid>` named anywhere in the paths of `files`, sorted by folder,
// each once. Folders at different paths are different ranks even when their names are equal.
std::vector<RankFolder> find_rank_folders(const std::vector<ArtifactFile>& files);

// The nearest folder named `<instance-id>_pid_<pid>` among the folders of `path` (a file's path, '/'
// separated, relative or absolute; the file name itself is not looked at). nullopt when none.
std::optional<RankFolder> enclosing_rank_folder(const std::string& path);

// The regular files and folders of walk_profile(root) (walk.hpp: the one walk, its symlink policy),
// sorted by relative path. Throws InputError when `root` is not a readable directory.
std::vector<ArtifactFile> list_artifact_files(const std::string& root);

}  // namespace neuron_gate
