// The table of file kinds (formats/file_kinds.hpp): one row per kind, from which discovery, the digest's
// kind words, the names shown and the fuzz targets are read.
#include "formats/discover.hpp"
#include "formats/file_kinds.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

namespace ng = neuron_gate;

TEST_SUITE_BEGIN("formats");

TEST_CASE("file kinds: one row per kind with its own word and name, ignored last and never sniffed") {
  std::set<std::string> ids, names;
  for (const ng::FileKindRow& row : ng::file_kinds()) {
    ids.insert(row.id);
    names.insert(row.name);
    CHECK(&ng::file_kind_row(row.kind) == &row);
    CHECK(std::string(ng::file_kind_name(row.kind)) == row.name);
    const bool end_to_end = row.kind == ng::FileKind::end_to_end || row.kind == ng::FileKind::google_benchmark ||
                            row.kind == ng::FileKind::hyperfine || row.kind == ng::FileKind::pytest_benchmark;
    CHECK((row.read != nullptr) == end_to_end);
    CHECK((row.sniff == nullptr) == (row.kind == ng::FileKind::ignored));
  }
  CHECK(ids.size() == ng::file_kinds().size());
  CHECK(names.size() == ng::file_kinds().size());
  CHECK(ng::file_kinds().back().kind == ng::FileKind::ignored);
  CHECK(std::string(ng::file_kind_row(ng::FileKind::end_to_end).id) == "end_to_end");
}

TEST_CASE("file kinds: discovery takes the first row whose sniff claims the head") {
  // An e2e.json that also names "traceEvents" is a trace: the trace row comes first.
  const std::string both = R"({"schema": "neuron-gate.e2e/1", "traceEvents": []})";
  CHECK(ng::classify_file_head("x.json", both).kind == ng::FileKind::trace);
  CHECK(ng::classify_file_head("e2e.json", R"({"schema": "neuron-gate.e2e/1", "metrics": []})").kind ==
        ng::FileKind::end_to_end);
  CHECK(ng::classify_file_head("a.neff", "").kind == ng::FileKind::neuron_artifact);
  CHECK(ng::classify_file_head("empty.json", "  \n").ignored_reason == "empty file");
}

TEST_SUITE_END();
