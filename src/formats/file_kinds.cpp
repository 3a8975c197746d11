#include "formats/file_kinds.hpp"

#include "formats/benchmark_formats.hpp"
#include "formats/digest_format.hpp"
#include "formats/e2e_json.hpp"
#include "formats/key_averages_table.hpp"
#include "formats/manifest.hpp"
#include "formats/neuron_artifacts.hpp"
#include "formats/neuron_summary.hpp"

#include <array>

namespace neuron_gate {
namespace {

bool json_object(const FileHead& head) {
  return head.first == '{';
}
bool other_text(const FileHead& head) {
  return !head.text.empty() && head.first != '{' && head.first != '[';
}
// The fuzz target of a row, marked so that fuzz/CMakeLists.txt and scripts/fuzz.sh find it by its call.
constexpr const char* fuzz_target(const char* name) {
  return name;
}

bool benchmark(const FileHead& head, BenchmarkFormat format) {
  return json_object(head) && sniff_benchmark_format(head.small) == format;
}

// One row per kind, in the order discovery tries them; fuzz/CMakeLists.txt reads the fuzz_target("...")
// marks. Columns: kind, digest word, name shown, fuzz target, sniff, reader (end-to-end kinds).
constexpr std::array<FileKindRow, 12> k_rows{{
    {FileKind::neuron_artifact, "neuron_artifact", "Neuron artifact", "",
     [](const FileHead& h) { return is_neuron_binary_name(h.name); }, nullptr},
    // Before the trace: a digest may hold an op named "traceEvents".
    {FileKind::digest, "digest", "neuron-gate digest", "",
     [](const FileHead& h) { return json_object(h) && looks_like_digest(h.text); }, nullptr},
    // A top-level array is a legacy trace, unless its objects are Neuron summaries (one per NTFF).
    {FileKind::trace, "trace", "trace", fuzz_target("trace"),
     [](const FileHead& h) {
       return json_object(h) ? h.whole.find("\"traceEvents\"") != std::string_view::npos
                             : h.first == '[' && !looks_like_neuron_summary_json(h.small);
     },
     nullptr},
    {FileKind::end_to_end, "end_to_end", "end-to-end", fuzz_target("e2e"), sniff_e2e_json, parse_e2e_json},
    {FileKind::run_manifest, "run_manifest", "run manifest", fuzz_target("manifest"),
     [](const FileHead& h) { return json_object(h) && looks_like_manifest(h.whole); }, nullptr},
    {FileKind::google_benchmark, "google_benchmark", "Google Benchmark JSON", fuzz_target("benchmark"),
     [](const FileHead& h) { return benchmark(h, BenchmarkFormat::google_benchmark); }, parse_benchmark_json},
    {FileKind::hyperfine, "hyperfine", "hyperfine JSON", fuzz_target("benchmark"),
     [](const FileHead& h) { return benchmark(h, BenchmarkFormat::hyperfine); }, parse_benchmark_json},
    {FileKind::pytest_benchmark, "pytest_benchmark", "pytest-benchmark JSON", fuzz_target("benchmark"),
     [](const FileHead& h) { return benchmark(h, BenchmarkFormat::pytest_benchmark); }, parse_benchmark_json},
    {FileKind::neuron_summary_json, "neuron_summary_json", "Neuron summary JSON", fuzz_target("neuron_summary"),
     [](const FileHead& h) { return (json_object(h) || h.first == '[') && looks_like_neuron_summary_json(h.small); },
     nullptr},
    {FileKind::key_averages_table, "key_averages_table", "key_averages table", fuzz_target("key_averages"),
     [](const FileHead& h) { return other_text(h) && looks_like_key_averages_table(h.whole); }, nullptr},
    // A text holding a NUL byte is a binary file, never a summary.
    {FileKind::neuron_summary_text, "neuron_summary_text", "Neuron summary text", fuzz_target("neuron_summary"),
     [](const FileHead& h) {
       return other_text(h) && h.whole.find('\0') == std::string_view::npos && looks_like_neuron_summary_text(h.small);
     },
     nullptr},
    {FileKind::ignored, "ignored", "ignored", "", nullptr, nullptr},
}};

// Every kind has exactly one row, and `ignored`, which nothing sniffs, comes last.
constexpr bool one_row_each() {
  for (int kind = 0; kind <= static_cast<int>(FileKind::ignored); ++kind) {
    int rows = 0;
    for (const FileKindRow& row : k_rows) {
      rows += static_cast<int>(row.kind) == kind ? 1 : 0;
    }
    if (rows != 1) {
      return false;
    }
  }
  return k_rows.back().kind == FileKind::ignored && k_rows.back().sniff == nullptr;
}
static_assert(one_row_each(), "every FileKind needs exactly one row in k_rows, `ignored` last");

}  // namespace

std::span<const FileKindRow> file_kinds() {
  return k_rows;
}

const FileKindRow& file_kind_row(FileKind kind) {
  for (const FileKindRow& row : k_rows) {
    if (row.kind == kind) {
      return row;
    }
  }
  return k_rows.back();
}

const char* file_kind_name(FileKind kind) {
  return file_kind_row(kind).name;
}

}  // namespace neuron_gate
