#pragma once
// The file kinds neuron-gate recognises, one row each (issue 40): its kind, the word a digest stores, the
// name shown, how its first bytes are recognised (sniff) and, for an end-to-end file, the reader that
// turns it into metrics (read). Discovery tries the rows in order; the digest's kind words, the names
// shown and the fuzz targets' list (fuzz/CMakeLists.txt reads the rows' fuzz column) come from here;
// read_side dispatches on the kind in a switch without `default:`, so a new kind is a compile error until
// it is read. Adding a format: docs/ARCHITECTURE.md, "Adding a file format".

#include "formats/end_to_end_metric.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// What a file was recognised as (one row each in file_kinds()).
enum class FileKind {
  trace,                // Kineto {"traceEvents": ...} or legacy top-level array
  end_to_end,           // e2e.json, schema neuron-gate.e2e/1
  key_averages_table,   // a printed key_averages() table
  run_manifest,         // neuron-gate.json, schema neuron-gate.manifest/1
  neuron_artifact,      // NEFF, NTFF or Neuron runtime .pb: opaque, checked for completeness, never parsed
  google_benchmark,     // Google Benchmark JSON: first key "context", with "benchmarks"
  hyperfine,            // hyperfine --export-json: first key "results", entries with "command"
  pytest_benchmark,     // pytest-benchmark JSON: "machine_info", or "benchmarks" with "fullname"
  neuron_summary_json,  // neuron-explorer summary-json, or legacy neuron-profile JSON with a "summary" array
  neuron_summary_text,  // neuron-explorer summary-text: `key value` lines with `total_time`
  digest,               // a neuron-gate digest (store/digest.hpp): a side's samples, gzip JSON `*.ngdigest`
  ignored,              // not recognised: listed with the reason, never read further
};

// A file's first bytes as the sniffs see them.
struct FileHead {
  std::string_view name;   // the file name (relative path); Neuron binaries are told by it
  std::string_view whole;  // the first bytes (the first MiB at most), decompressed
  std::string_view text;   // `whole` from its first significant byte (after a UTF-8 BOM and white space)
  std::string_view small;  // the first 64 KiB of `whole`, where benchmark tools and summaries say what they are
  char first = '\0';       // text's first byte; '\0' when text is empty
};

// Reads an end-to-end file's text into metrics; `path` names it in errors (InputError).
using MetricsReader = std::vector<EndToEndMetric> (*)(std::string_view text, const std::string& path);

// One file kind.
struct FileKindRow {
  FileKind kind;
  const char* id;                  // the stable word a digest stores: "end_to_end"
  const char* name;                // shown in reports and `inspect`: "end-to-end"
  const char* fuzz;                // the fuzz target that feeds its reader arbitrary bytes ("" none)
  bool (*sniff)(const FileHead&);  // true when the head is this kind; nullptr for `ignored`
  MetricsReader read;              // end-to-end kinds: their reader; nullptr for the others
};

// Every kind, in the order discovery tries them (ignored, which no sniff claims, last).
std::span<const FileKindRow> file_kinds();

// The row of `kind`.
const FileKindRow& file_kind_row(FileKind kind);

// Human-readable kind: "trace", "end-to-end", "key_averages table", ... (the row's name).
const char* file_kind_name(FileKind kind);

}  // namespace neuron_gate
