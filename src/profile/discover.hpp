#pragma once
// Step 1 of the pipeline: find what a profile holds. A profile is a directory (walked recursively),
// or a single file; files are recognised by their content, not their names (DESIGN.md section 1).

#include <cstdint>
#include <string>
#include <vector>

namespace neuron_gate {

// What a file was recognised as.
enum class FileKind {
  trace,               // Kineto {"traceEvents": ...} or legacy top-level array
  end_to_end,          // e2e.json, schema neuron-gate.e2e/1
  key_averages_table,  // a printed key_averages() table
  run_manifest,        // neuron-gate.json, schema neuron-gate.manifest/1
  neuron_artifact,     // NEFF, NTFF or Neuron runtime .pb: opaque, checked for completeness, never parsed
  ignored,             // not recognised: listed with the reason, never read further
};

// Human-readable kind: "trace", "end-to-end", "key_averages table", "run manifest", "Neuron artifact", "ignored".
const char* file_kind_name(FileKind kind);

// One file found under a profile root.
struct DiscoveredFile {
  std::string path;           // as opened (root joined with the relative path)
  std::string relative_path;  // relative to the profile root; the file name for a single-file profile
  FileKind kind = FileKind::ignored;
  std::uintmax_t size_bytes = 0;
  std::string ignored_reason;  // why it was ignored ("" unless kind == ignored)
  bool operator==(const DiscoveredFile&) const = default;
};

// Everything found under one profile spec, sorted by relative path (deterministic).
struct ProfileInventory {
  std::string spec;  // what the user passed
  std::vector<DiscoveredFile> files;
  bool operator==(const ProfileInventory&) const = default;
};

// Walks `spec` (a directory or a file), skipping hidden entries such as .git, and sniffs each file's
// first bytes (gzip is decompressed for the sniff; a UTF-8 BOM and white space are skipped).
// Throws InputError when `spec` does not exist or cannot be read.
ProfileInventory discover_profile(const std::string& spec);

// Classifies a file from its first bytes (already decompressed); `name` is the file name. Text is
// recognised by content; the opaque Neuron binaries (.neff, .ntff, .pb) by their names, since their
// formats are not public. Sets kind and ignored_reason of the result.
DiscoveredFile classify_file_head(const std::string& name, const std::string& head);

} // namespace neuron_gate
