#pragma once
// Digests (docs/user-guide.md "Digests"; issue 20 item 3): one side's samples in a small versioned file, so that a
// profile is read once (where it was taken) and compared many times without its traces. A digest is
// gzip-compressed JSON, named `*.ngdigest` by convention (it is recognised by its content, never its name):
//
//   {"format": "neuron-gate digest", "version": 1, "tool_version": "...", "by_shape": false,
//    "side": {...}}
//
// "side" is everything read_side() produced (digest_json.hpp): the inventory (every file with its kind,
// size and SHA-256, for the report's Provenance), the per-step samples of every op and metric of every
// trace with its rank, the end-to-end metrics with their runs, the manifest, the data problems, the tables'
// input shapes and warnings: so `compare` gives the same verdicts and numbers on digests as on the files.
// The bytes are deterministic: one side always gives the same digest (gzip header without time or name).

#include "formats/digest_format.hpp"
#include "input/byte_source.hpp"
#include "profile/read_side.hpp"
#include "store/repository_state.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// The newest version this build reads and writes (the format word: formats/digest_format.hpp).
inline constexpr int k_digest_version = 1;
// A digest's JSON may hold at most this many bytes decompressed (a digest of the 105 MB large-transformer
// trace holds about 0.3 MB); a larger one is refused before it is parsed.
inline constexpr std::uint64_t k_max_digest_bytes = std::uint64_t{256} << 20;

// What a digest says of itself beyond the side.
struct DigestInfo {
  int version = k_digest_version;
  std::string tool_version;  // the neuron-gate that wrote it
  bool by_shape = false;     // ops keyed by name and input shapes (compare --by-shape)
  std::string sha256;        // of the digest file's bytes (compressed) as read; "" for one written
  // The git state of the profile's repository when it was digested (the side's "repository"), nullopt
  // when it lay in none. Kept beside the samples, never in them: the command gathers a side's git state.
  std::optional<SideRepository> repository;
  bool operator==(const DigestInfo&) const = default;
};

// The digest of `side` (read with by_shape) and the git state of its repository (`repository`, written as
// the side's "repository"; null when nullopt): gzip bytes. Every file of side.inventory that is read or
// hashed must carry its sha256 (read_side() sets them; Neuron binaries are hashed by the caller).
std::string digest_bytes(const SideSamples& side, bool by_shape = false,
                         const std::optional<SideRepository>& repository = std::nullopt);

// Writes digest_bytes(side, by_shape, repository) to `path` whole or not at all (temp file + rename). Throws
// InputError naming the path when it cannot be written. Callers refuse a path that is one of the inputs.
void write_digest(const SideSamples& side, const std::string& path, bool by_shape = false,
                  const std::optional<SideRepository>& repository = std::nullopt);

// Reads one digest from `source` (a file, a git blob, bytes in memory). Throws InputError naming
// source.path(): gzip that is corrupt or ends early (with the compressed byte offset), more than
// k_max_digest_bytes, JSON that does not parse (with the byte offset), not a neuron-gate digest, a newer
// version ("written by a newer neuron-gate"), or any value of the wrong type or out of range
// (digest_fields.hpp). The side's label is ""; `info`, when given, receives the envelope and the recorded
// git state.
SideSamples read_digest(ByteSource& source, DigestInfo* info = nullptr);

}  // namespace neuron_gate
