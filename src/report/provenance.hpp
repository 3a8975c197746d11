#pragma once
// Provenance: what a report was computed from (DESIGN.md section 6): tool version, rules and their
// hash, every file read with size and SHA-256, and the git commits the profiles sit in.

#include "compare/calibration.hpp"
#include "formats/discover.hpp"
#include "profile/read_side.hpp"
#include "store/baseline_store.hpp"
#include "store/repository_state.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// One file of a profile as recorded in the report.
struct ProvenanceFile {
  std::string side;           // "base" or "head"
  std::string relative_path;  // relative to the side's profile root
  std::string kind;           // file_kind_name()
  std::uintmax_t size_bytes = 0;
  std::string sha256;  // lowercase hex; "" for ignored files
  std::string ignored_reason;
  // What reading the file told beyond its kind (SideSamples::file_details): for a Neuron summary the
  // Explorer and schema versions and the executions, for a benchmark tool's file the metrics; "" if none.
  std::string detail;
  bool operator==(const ProvenanceFile&) const = default;
};

// The git state of one side (store/repository_state.hpp): commit, branch, dirty work tree, repository,
// the manifest's commit. Every string in it comes from a repository: renderers escape it.
using GitCommit = SideRepository;

// Everything the Provenance section shows.
struct Provenance {
  std::string tool_version;
  std::string base_spec, head_spec;
  std::string rules_source;
  std::string rules_sha256;
  std::string rules_from;  // where the rules file was taken from, as the caller says (compare --rules-from),
                           // e.g. the base commit's sha in CI; "" when not said
  std::vector<ProvenanceFile> files;
  std::vector<GitCommit> commits;  // set by the command from gather_repository_states() (none under --no-git)
  // Base read from a stored baseline (`git:REF:@merge-base`, store/baseline_store.hpp): which digest was
  // found for which head commit and how far back. The ref name is hostile text: renderers escape it.
  std::optional<FoundBaseline> stored_baseline;
  // compare's A/A noise check of base (compare/calibration.hpp): how many splits and comparisons the
  // noise estimate rests on; unset when none was made (too few runs, not comparable).
  std::optional<NoiseCheck> noise_check;
  // "base: relative/path: message" for values skipped while reading (SideSamples::read_warnings).
  std::vector<std::string> warnings;
  bool operator==(const Provenance&) const = default;
};

// The provenance line of a stored baseline, as prose (report/escape.hpp: the ref is data, prose_code):
// "base is the digest stored for commit `X` in `REF` (tip `T`): the stored baseline nearest head commit
// `H`, N commits before it (K commits looked at)".
std::string stored_baseline_text(const FoundBaseline& found);

// The noise check's provenance line, as prose: "base's A/A noise: 20 random halvings of its 10 runs
// (5 vs 5), seed 20240601: 740 comparisons of 41600 sample values (budget 4000000 values, at least 10
// halvings)", saying when and why the budget reduced the halvings.
std::string noise_check_text(const NoiseCheck& check);

// SHA-256 of a file's bytes as lowercase hex (OpenSSL EVP). Throws InputError if it cannot be read.
std::string sha256_file(const std::string& path);

// SHA-256 of a text as lowercase hex.
std::string sha256_text(std::string_view text);

// Collects provenance for both sides: hashes every recognised file, lists ignored ones.
Provenance collect_provenance(const ProfileInventory& base, const ProfileInventory& head,
                              const std::string& rules_source, std::string_view rules_text);

// What base and head share byte for byte (issue 41 item 4): a folder compared with itself or with a copy
// of itself (`identical`), or a head that is part of base, such as one run folder of it
// (`head_inside_base`). A fact the reports name; it decides nothing.
enum class InputsOverlapKind { none, identical, head_inside_base };

// The overlap and the files it rests on (the files hashed on each side: every file read, none ignored).
struct InputsOverlap {
  InputsOverlapKind kind = InputsOverlapKind::none;
  std::size_t base_files = 0, head_files = 0;
  bool operator==(const InputsOverlap&) const = default;
};

// From the files' SHA-256: `identical` when both sides hashed the same files (as a multiset of hashes,
// whatever their paths), `head_inside_base` when every one of head's hashes is among base's and base
// has more; else `none` (also when a side hashed no file).
InputsOverlap inputs_overlap(const Provenance& provenance);

// The overlap as prose, "" for none: "identical inputs: base and head are the same 12 files byte for byte
// (same SHA-256 on both sides), so this compares the data with itself and can show no change".
std::string inputs_overlap_text(const InputsOverlap& overlap);

// "identical inputs" / "head inside base" / "": the overlap in two words, for a one-line verdict.
const char* inputs_overlap_name(InputsOverlapKind kind);

// Adds what reading the sides found to `provenance`: each file's detail (matched by side and relative
// path) and the sides' read warnings, prefixed "base: " / "head: ". Files not listed are left alone.
void add_read_details(Provenance& provenance, const SideSamples& base, const SideSamples& head);

}  // namespace neuron_gate
