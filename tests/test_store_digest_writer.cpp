// The digest written as it goes (store/json_writer.hpp, store/gzip_writer.hpp, digest_json_write.cpp;
// issue 21 item 4) gives the bytes the digest had when it was built as an nlohmann ordered_json document
// and dumped: the reference below is that builder as it was (a77eada..6a63732), kept here only to compare.
#include "formats/discover.hpp"
#include "profile/read_side.hpp"
#include "store/digest.hpp"
#include "store/digest_fields.hpp"
#include "store/gzip_writer.hpp"
#include "store/json_writer.hpp"
#include "test_files.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace neuron_gate;
namespace fs = std::filesystem;

using neuron_gate::testing::gunzip_text;

using neuron_gate::testing::k_test_data;

using neuron_gate::testing::k_source_dir;

namespace {

using ojson = nlohmann::ordered_json;

// ---- The reference: the document builder and one-shot gzip digest_bytes() used before streaming. ----

ojson problem_to_json(const DataProblem& problem) {
  ojson out{{"kind", data_problem_id(problem.kind)}, {"file", problem.file}, {"count", problem.count}};
  out["byte"] = problem.byte ? ojson(*problem.byte) : ojson(nullptr);
  out["example"] = problem.example;
  out["excluded_cpu_ns"] = problem.excluded_cpu_ns;
  out["excluded_device_ns"] = problem.excluded_device_ns;
  return out;
}

ojson problems_to_json(const std::vector<DataProblem>& problems) {
  ojson out = ojson::array();
  for (const DataProblem& problem : problems) {
    out.push_back(problem_to_json(problem));
  }
  return out;
}

ojson screened_to_json(const ScreenedTime& time) {
  return ojson{{"kept_cpu_ns", time.kept_cpu_ns},
               {"kept_device_ns", time.kept_device_ns},
               {"excluded_cpu_ns", time.excluded_cpu_ns},
               {"excluded_device_ns", time.excluded_device_ns},
               {"device_time_lost", time.device_time_lost}};
}

struct NameTable {
  std::map<std::string, std::size_t> index;
  ojson names = ojson::array();
  std::size_t of(const std::string& name) {
    const auto [it, added] = index.emplace(name, index.size());
    if (added) {
      names.push_back(name);
    }
    return it->second;
  }
};

ojson step_to_json(const TraceSamples& trace, const StepSample& step, NameTable& names) {
  ojson ops = ojson::array();
  for (const auto& [op, values] : step.ops) {
    ops.push_back(ojson::array({names.of(trace.op_keys[op]), values.self_cpu_ns, values.device_ns, values.calls}));
  }
  ojson kernels = ojson::array();
  for (const auto& [name, ns] : step.device_kernels) {
    kernels.push_back(ojson::array({names.of(name), ns}));
  }
  return ojson{{"name", step.name},
               {"start_ns", step.start_ns},
               {"duration_ns", step.duration_ns},
               {"ops", std::move(ops)},
               {"kernels", std::move(kernels)},
               {"unattributed_device_ns", step.unattributed_device_ns},
               {"unattributed_by_category", step.unattributed_by_category}};
}

ojson trace_problems_to_json(const TraceDataProblems& problems) {
  ojson malformed = ojson::object();
  for (const auto& [op, counts] : problems.malformed_by_op) {
    malformed[op] = ojson::array({counts.malformed, counts.read});
  }
  return ojson{{"negative_duration_events", problems.negative_duration_events},
               {"unfinished_events", problems.unfinished_events},
               {"malformed_events", problems.malformed_events},
               {"negative_self_time", problems.negative_self_time},
               {"listed", problems_to_json(problems.listed)},
               {"malformed_by_op", std::move(malformed)}};
}

ojson trace_to_json(const TraceSamples& trace) {
  NameTable names;
  ojson steps = ojson::array();
  for (const StepSample& step : trace.steps) {
    steps.push_back(step_to_json(trace, step, names));
  }
  ojson outside = step_to_json(trace, trace.outside_steps, names);
  ojson screened_ops = ojson::object();
  for (const auto& [op, counts] : trace.screened_ops) {
    ojson row = ojson::array({counts.cpu_events, counts.device_events});
    if (counts.unusable_cpu_events != 0 || counts.missing_device_events != 0) {
      row.push_back(counts.unusable_cpu_events);
    }
    if (counts.missing_device_events != 0) {
      row.push_back(counts.missing_device_events);
    }
    screened_ops[op] = std::move(row);
  }
  ojson out{{"path", trace.path}, {"format", trace_format_word(trace.format)}, {"names", std::move(names.names)}};
  out["steps"] = std::move(steps);
  out["has_profiler_steps"] = trace.has_profiler_steps;
  out["outside_steps"] = std::move(outside);
  out["event_count"] = trace.event_count;
  out["categories"] = trace.categories;
  out["has_device_events"] = trace.has_device_events;
  out["input_shapes"] = trace.input_shapes;
  out["metadata"] = trace.metadata;
  out["problems"] = trace_problems_to_json(trace.problems);
  out["screened"] = screened_to_json(trace.screened);
  out["screened_ops"] = std::move(screened_ops);
  out["runtime_calls"] = trace.runtime_calls;
  out["screened_unattributed"] = trace.screened_unattributed;
  out["steps_screened"] = trace.steps_screened;
  out["rank"] = trace.rank ? ojson(*trace.rank) : ojson(nullptr);
  out["rank_source"] = trace.rank_source;
  return out;
}

ojson metric_to_json(const EndToEndMetric& metric) {
  return ojson{{"name", metric.name},
               {"unit", metric.unit},
               {"better", metric.better == Better::lower ? "lower" : "higher"},
               {"samples", metric.samples},
               {"runs", metric.runs},
               {"run_sizes", metric.run_sizes},
               {"source_path", metric.source_path},
               {"origin", metric.origin == EndToEndOrigin::application ? "application" : "device_summary"}};
}

ojson inventory_to_json(const ProfileInventory& inventory) {
  ojson files = ojson::array();
  for (const DiscoveredFile& file : inventory.files) {
    files.push_back(ojson{{"path", file.path},
                          {"relative_path", file.relative_path},
                          {"kind", file_kind_id(file.kind)},
                          {"size_bytes", file.size_bytes},
                          {"ignored_reason", file.ignored_reason},
                          {"outside_link", file.outside_link},
                          {"regular", file.regular},
                          {"sha256", file.sha256}});
  }
  return ojson{{"spec", inventory.spec},
               {"files", std::move(files)},
               {"folders", inventory.folders},
               {"names_with_invalid_utf8", inventory.names_with_invalid_utf8},
               {"git_repository", inventory.git_repository},
               {"git_repository_shown", inventory.git_repository_shown},
               {"git_commit", inventory.git_commit}};
}

ojson side_to_json(const SideSamples& side, const std::optional<SideRepository>& state) {
  ojson traces = ojson::array();
  for (const TraceSamples& trace : side.traces) {
    traces.push_back(trace_to_json(trace));
  }
  ojson metrics = ojson::array();
  for (const EndToEndMetric& metric : side.end_to_end) {
    metrics.push_back(metric_to_json(metric));
  }
  ojson out{{"inventory", inventory_to_json(side.inventory)}, {"traces", std::move(traces)}};
  out["samples_from_tables"] = side.samples_from_tables;
  out["end_to_end"] = std::move(metrics);
  out["table_input_shapes"] = side.table_input_shapes;
  out["manifest"] = side.manifest ? ojson{{"source_path", side.manifest->source_path},
                                          {"fields", side.manifest->fields},
                                          {"commit", side.manifest->commit}}
                                  : ojson(nullptr);
  if (side.manifest && !side.manifest->pairing_session.empty()) {
    out["manifest"]["pairing_session"] = side.manifest->pairing_session;
  }
  if (side.manifest && !side.manifest->pairing_order.empty()) {
    out["manifest"]["pairing_order"] = side.manifest->pairing_order;
  }
  out["table_warnings"] = side.table_warnings;
  out["file_details"] = side.file_details;
  out["read_warnings"] = side.read_warnings;
  out["data_problems"] = problems_to_json(side.data_problems);
  out["repository"] = state ? ojson{{"commit", state->commit},         {"summary", state->summary},
                                    {"dirty", state->dirty},           {"branch", state->branch},
                                    {"repository", state->repository}, {"object_database", state->object_database}}
                            : ojson(nullptr);
  return out;
}

std::string reference_text(const SideSamples& side, bool by_shape, const std::optional<SideRepository>& repository) {
  ojson document{{"format", k_digest_format},
                 {"version", k_digest_version},
                 {"tool_version", NEURON_GATE_VERSION},
                 {"by_shape", by_shape}};
  document["side"] = side_to_json(side, repository);
  return document.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::string reference_gzip(std::string_view text) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// ---- Helpers. ----

// The streamed digest's text and bytes equal the reference's.
void check_same_digest(const SideSamples& side, bool by_shape = false,
                       const std::optional<SideRepository>& repository = std::nullopt) {
  const std::string bytes = digest_bytes(side, by_shape, repository);
  const std::string reference = reference_text(side, by_shape, repository);
  CHECK(gunzip_text(bytes) == reference);
  CHECK(bytes == reference_gzip(reference));
}

// The JSON text `write` gives through a JsonWriter.
template <class Write>
std::string written(Write write) {
  std::string text;
  JsonWriter out([&text](std::string_view piece) { text.append(piece); });
  write(out);
  out.flush();
  return text;
}

std::string nlohmann_dump(const ojson& value) {
  return value.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

// Strings no trace holds but a writer must get right: every escape, control and DEL characters, UTF-8 of
// 2, 3 and 4 bytes, and invalid UTF-8 (a stray continuation byte, a lead byte cut short at the end and in
// the middle, an overlong '/', a surrogate, past U+10FFFF, 0xFF).
std::vector<std::string> hostile_strings() {
  return {"",
          "plain aten::mm",
          "quote \" and backslash \\ and slash /",
          std::string("nul \0 inside", 12),
          "\x01\x02\x08\x09\x0a\x0b\x0c\x0d\x1b\x1f\x7f",
          "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80",
          "stray \x80 continuation",
          "cut short at the end \xe4\xb8",
          "cut \xc3 in the middle",
          "overlong \xc0\xaf",
          "surrogate \xed\xa0\x80",
          "past U+10FFFF \xf4\x90\x80\x80",
          "\xff\xfe",
          std::string(600, 'x') + "\xff" + std::string(600, '\x01') + "\xe4\xb8"};
}

// A side holding every hostile string in every kind of string field and map key, and odd numbers.
SideSamples hostile_side() {
  SideSamples side;
  const std::vector<std::string> strings = hostile_strings();
  side.inventory.spec = strings[2];
  for (const std::string& text : strings) {
    DiscoveredFile file;
    file.path = text;
    file.relative_path = text + "/r";
    file.kind = FileKind::ignored;
    file.ignored_reason = text;
    file.size_bytes = std::numeric_limits<std::uintmax_t>::max();
    side.inventory.files.push_back(file);
    side.inventory.folders.push_back(text);
    side.table_warnings.push_back(text);
    side.file_details[text] = text;
    side.table_input_shapes[text] = {text, "[[1, 2]]"};
  }
  TraceSamples trace;
  trace.path = strings[5];
  trace.op_keys = strings;
  std::sort(trace.op_keys.begin(), trace.op_keys.end());
  StepSample step;
  step.name = strings[4];
  step.start_ns = std::numeric_limits<std::int64_t>::min();
  step.duration_ns = std::numeric_limits<std::int64_t>::max();
  for (std::uint32_t op = 0; op < trace.op_keys.size(); ++op) {
    step.ops.push_back(OpSample{op, OpValues{-static_cast<Nanoseconds>(op), 7, 1}});
    step.device_kernels[trace.op_keys[op] + " kernel"] = op;
    step.unattributed_by_category[trace.op_keys[op]] = -1;
  }
  trace.steps = {step, step};
  trace.outside_steps.device_kernels["only outside \x01"] = 3;
  for (const std::string& text : strings) {
    trace.categories.insert(text);
    trace.metadata[text] = text;
    trace.problems.negative_self_time[text] = -5;
    trace.problems.malformed_by_op[text] = MalformedOp{1, 2};
    trace.screened_ops[text] = ScreenedOp{3, 4};
    trace.screened_unattributed[text] = 9;
    trace.problems.listed.emplace_back(DataProblemKind::bad_duration, text, 1, std::nullopt, text);
  }
  trace.problems.listed.back().byte = std::numeric_limits<std::uint64_t>::max();
  trace.rank = std::numeric_limits<unsigned>::max();
  side.traces = {trace, trace};
  side.traces[1].rank.reset();
  EndToEndMetric metric;
  metric.name = strings[3];
  metric.samples = {0.1,
                    1.0,
                    1e300,
                    5e-324,
                    123456789.125,
                    1e-7,
                    2.5e16,
                    -0.0,
                    1.0 / 3.0,
                    std::nan(""),
                    std::numeric_limits<double>::infinity()};
  metric.run_sizes = {11};
  side.end_to_end = {metric};
  side.manifest =
      RunManifest{strings[6], {{strings[7], strings[8]}}, "0123abc", strings[9], {"base/run-01", "head/run-01"}};
  side.data_problems = side.traces[0].problems.listed;
  return side;
}

// The git state written beside hostile_side(): hostile strings in every field.
std::optional<SideRepository> hostile_repository() {
  const std::vector<std::string> strings = hostile_strings();
  return SideRepository{"", "abcdef0", strings[12], true, strings[9], strings[10], true, ""};
}

// A Kineto trace of two steps whose ops and kernel are named with quotes, backslashes, escaped control
// characters and non-ASCII text, in a folder beside a file whose name is not UTF-8.
fs::path hostile_trace_folder() {
  const fs::path dir = fs::temp_directory_path() / "neuron-gate-digest-writer-hostile";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<std::string> names = {R"(aten::\"quoted\")",
                                          R"(back\\slash\\)",
                                          R"(ctl \u0001\u001f\u007f\b\f\n\r\t)",
                                          "caf\xc3\xa9 \xe4\xb8\xad",
                                          R"(emoji \ud83d\ude00 and \u00e9)",
                                          R"(slash \/ and nul \u0000 end)"};
  std::string events;
  for (int step = 0; step < 2; ++step) {
    const int base = 1000 * step;
    events += R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(step) +
              R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(base) + R"(, "dur": 900},)";
    for (std::size_t i = 0; i < names.size(); ++i) {
      events += R"({"ph": "X", "cat": "cpu_op", "name": ")" + names[i] + R"(", "pid": 1, "tid": 1, "ts": )" +
                std::to_string(base + 10 + 100 * static_cast<int>(i)) + R"(, "dur": 50, "args": {"External id": )" +
                std::to_string(100 * step + static_cast<int>(i)) + "}},";
    }
    events += R"({"ph": "X", "cat": "kernel", "name": "k \"\\\u0002 \u00e9", "pid": 0, "tid": 7, "ts": )" +
              std::to_string(base + 20) + R"(, "dur": 5, "args": {"correlation": 1}},)";
  }
  events.pop_back();
  std::ofstream(dir / "op \"names\" \\ caf\xc3\xa9.pt.trace.json")
      << R"({"schemaVersion": 1, "traceEvents": [)" << events << "]}";
  std::ofstream(dir / "notes-\xff\xfe.txt") << "not a profile file";
  return dir;
}

}  // namespace

TEST_SUITE_BEGIN("profile::digest_writer");

TEST_CASE("JsonWriter writes every string as nlohmann's dump does, escapes and invalid UTF-8 included") {
  std::vector<std::string> strings = hostile_strings();
  for (int a = 0; a < 256; ++a) {  // every byte, and every pair of bytes, alone
    strings.emplace_back(1, static_cast<char>(a));
    for (int b = 0; b < 256; ++b) {
      strings.push_back({static_cast<char>(a), static_cast<char>(b)});
    }
  }
  std::mt19937 random(21);
  for (int i = 0; i < 2000; ++i) {  // random bytes across nlohmann's 512-byte string buffer
    std::string text(std::uniform_int_distribution<std::size_t>(0, 1200)(random), '\0');
    for (char& c : text) {
      c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
    }
    strings.push_back(text);
  }
  std::size_t differing = 0;
  for (const std::string& text : strings) {
    differing += written([&](JsonWriter& out) { out.string(text); }) != nlohmann_dump(ojson(text)) ? 1U : 0U;
    differing += written([&](JsonWriter& out) {
                   out.begin_object();
                   out.key(text);
                   out.null();
                   out.end_object();
                 }) != nlohmann_dump(ojson{{text, nullptr}})
                     ? 1U
                     : 0U;
  }
  CHECK(strings.size() > 65000);
  CHECK(differing == 0);
}

TEST_CASE("JsonWriter writes numbers, literals and nesting as nlohmann's dump does") {
  const std::vector<std::int64_t> integers = {0,
                                              -1,
                                              1,
                                              9,
                                              10,
                                              -10,
                                              1234567890123,
                                              std::numeric_limits<std::int64_t>::min(),
                                              std::numeric_limits<std::int64_t>::max()};
  const std::vector<double> doubles = {
      0.0,    -0.0, 1.0,    -1.5, 0.1,           1.0 / 3.0,    1e300,
      5e-324, 1e-7, 2.5e16, 1e21, 123456789.125, std::nan(""), -std::numeric_limits<double>::infinity()};
  ojson reference = ojson::array();
  const std::string text = written([&](JsonWriter& out) {
    out.begin_array();
    for (const std::int64_t value : integers) {
      out.integer(value);
      reference.push_back(value);
    }
    out.unsigned_integer(std::numeric_limits<std::uint64_t>::max());
    reference.push_back(std::numeric_limits<std::uint64_t>::max());
    for (const double value : doubles) {
      out.number(value);
      reference.push_back(value);
    }
    out.boolean(true);
    out.boolean(false);
    out.null();
    out.begin_object();
    out.end_object();
    out.begin_array();
    out.end_array();
    out.begin_object();
    out.key("a");
    out.begin_array();
    out.begin_object();
    out.end_object();
    out.end_array();
    out.key("b");
    out.integer(2);
    out.end_object();
    out.end_array();
  });
  reference.push_back(true);
  reference.push_back(false);
  reference.push_back(nullptr);
  reference.push_back(ojson::object());
  reference.push_back(ojson::array());
  reference.push_back(ojson{{"a", ojson::array({ojson::object()})}, {"b", 2}});
  CHECK(text == nlohmann_dump(reference));
}

TEST_CASE("GzipWriter gives the same bytes however its input is split") {
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text += "{\"op\":" + std::to_string(i * 7919 % 1000) + "},";
  }
  const std::string whole = reference_gzip(text);
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{65536}, text.size()}) {
    CAPTURE(piece);
    GzipWriter gzip;
    for (std::size_t at = 0; at < text.size(); at += piece) {
      gzip.write(std::string_view(text).substr(at, piece));
    }
    CHECK(gzip.finish() == whole);
  }
  GzipWriter empty;
  CHECK(empty.finish() == reference_gzip(""));
}

TEST_CASE("a streamed digest is byte-identical to the document's dump on every bundled profile") {
  std::vector<std::string> specs;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_source_dir + "/examples/rmsnorm-4x512")) {
    specs.push_back(entry.path().string());
  }
  for (const char* folder : {"/profiles/two-ranks", "/corpus", "/formats", "/key_averages", "/unattributed",
                             "/profiles/operating-points/base", "/bad/screen"}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(k_test_data + folder)) {
      specs.push_back(entry.path().string());
    }
  }
  std::size_t compared = 0;
  for (const std::string& spec : specs) {
    CAPTURE(spec);
    SideSamples side;
    try {
      side = read_side("base", discover_profile(spec), {});
    } catch (const InputError&) {
      continue;  // the malformed inputs among the format samples
    }
    check_same_digest(side);
    ++compared;
  }
  CHECK(compared >= 25);
  TraceReadOptions by_shape;
  by_shape.by_shape = true;
  check_same_digest(
      read_side("head", discover_profile(k_test_data + "/corpus/H01-cpu-only.pt.trace.json.gz"), by_shape), true);
}

TEST_CASE("a streamed digest is byte-identical to the document's dump with hostile names") {
  SUBCASE("a trace whose op, kernel and file names hold quotes, backslashes, control characters, non-ASCII") {
    const fs::path dir = hostile_trace_folder();
    const SideSamples side = read_side("base", discover_profile(dir.string()), {});
    REQUIRE(side.traces.size() == 1);
    const TraceSamples& trace = side.traces[0];
    CHECK(side.inventory.names_with_invalid_utf8 == 1);
    CHECK(std::count(trace.op_keys.begin(), trace.op_keys.end(), std::string("aten::\"quoted\"")) == 1);
    CHECK(std::count(trace.op_keys.begin(), trace.op_keys.end(), std::string("ctl \x01\x1f\x7f\b\f\n\r\t")) == 1);
    CHECK(std::count(trace.op_keys.begin(), trace.op_keys.end(), std::string("slash / and nul \0 end", 21)) == 1);
    CHECK(std::count(trace.op_keys.begin(), trace.op_keys.end(), std::string("emoji \xf0\x9f\x98\x80 and \xc3\xa9")) ==
          1);
    check_same_digest(side);
    const std::string text = gunzip_text(digest_bytes(side));
    CHECK(text.find(R"("ctl \u0001\u001f)"
                    "\x7f"
                    R"(\b\f\n\r\t")") != std::string::npos);
    CHECK(text.find(R"("aten::\"quoted\"")") != std::string::npos);
    fs::remove_all(dir);
  }
  SUBCASE("every string field and key holding escapes and invalid UTF-8, and extreme numbers") {
    const SideSamples side = hostile_side();
    check_same_digest(side, false, hostile_repository());
    check_same_digest(side, true, hostile_repository());
    const std::string text = gunzip_text(digest_bytes(side));
    CHECK(text.find("stray \xef\xbf\xbd continuation") != std::string::npos);  // U+FFFD, as nlohmann replaces
    CHECK(text.find("[0.1,1.0,1e+300,5e-324,123456789.125,1e-07,2.5e+16,-0.0,0.3333333333333333,null,null]") !=
          std::string::npos);
  }
}

TEST_SUITE_END();
