// Tests for input/byte_source and formats/kineto_trace at the reader level: what is a trace, what
// is an input error (with its byte offset), gzip, and the files of tests/data/bad-inputs.
#include "formats/kineto_trace.hpp"
#include "input/byte_source.hpp"
#include "keyed_step.hpp"
#include "profile/op_keys.hpp"
#include "profile/trace_samples.hpp"
#include "test_files.hpp"
#include "trace_bytes.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace neuron_gate;

using neuron_gate::testing::read_bytes;
using neuron_gate::testing::read_error;

using neuron_gate::testing::k_test_data;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

InputError file_error(const std::string& path) {
  try {
    read_trace_samples(path);
  } catch (const InputError& error) {
    return error;
  }
  FAIL("no InputError for " << path);
  return InputError(path, "unreachable");
}

// gzip (one member) of `text`, via zlib.
std::string gzip_bytes(const std::string& text) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

double self_us(const KeyedStep& step, const std::string& op) {
  const auto found = step.ops.find(op);
  REQUIRE_MESSAGE(found != step.ops.end(), "no op " << op << " in " << step.name);
  return static_cast<double>(found->second.self_cpu_ns) / 1000.0;
}

const std::string k_small_trace =
    R"({"schemaVersion": 1, "traceEvents": [)"
    R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 7, "tid": 7, "ts": 100.000, "dur": 50.000},)"
    R"({"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 7, "tid": 7, "ts": 110.500, "dur": 4.250, "args": {"External id": 3}})"
    R"(]})";

}  // namespace

TEST_SUITE_BEGIN("profile::kineto_trace");

TEST_CASE("the broken bad-inputs files are input errors naming the file and the byte offset") {
  struct Case {
    const char* file;
    std::uint64_t byte;
    const char* problem;
  };
  const Case cases[] = {
      // the quote before "device" ends the name; the parser stops at the 'd' after it
      {"unescaped-quote.pt.trace.json", 137, "not valid JSON: syntax error while parsing object - invalid literal"},
      // the file is 134 bytes long and ends inside a string
      {"truncated-mid-string.pt.trace.json", 134, "truncated trace: the JSON ends early"},
      // the raw U+0001 sits at byte 50
      {"control-char.pt.trace.json", 50, "control character U+0001 (SOH) must be escaped"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const std::string path = k_test_data + "/bad-inputs/" + c.file;
    const InputError error = file_error(path);
    CHECK(error.path() == path);
    REQUIRE(error.byte_offset().has_value());
    CHECK(*error.byte_offset() == c.byte);
    const std::string what = error.what();
    CHECK(what.find(c.file) != std::string::npos);
    CHECK(what.find(":byte " + std::to_string(c.byte) + ": ") != std::string::npos);
    CHECK(what.find(c.problem) != std::string::npos);
  }
}

TEST_CASE("the accepted bad-inputs files read as expected.json says, with their problems counted") {
  const std::string dir = k_test_data + "/bad-inputs/";
  SUBCASE("negative duration: the device event is excluded and counted") {
    const TraceSamples samples = read_trace_samples(dir + "negative-dur.pt.trace.json");
    REQUIRE(samples.steps.size() == 1);
    CHECK(self_us(keyed(samples, samples.steps[0]), "aten::mul") == 5.0);
    CHECK(self_us(keyed(samples, samples.steps[0]), "ProfilerStep*") == 95.0);
    CHECK(samples.problems.negative_duration_events == 1);
    CHECK(samples.problems.unfinished_events == 0);
    CHECK(samples.steps[0].device_kernels.empty());
    CHECK(samples.steps[0].unattributed_device_ns == 0);
    CHECK_FALSE(samples.has_device_events);
  }
  SUBCASE("dur -1: the unfinished event is excluded, not subtracted from its parent, and counted") {
    const TraceSamples samples = read_trace_samples(dir + "unfinished-dur-minus-one.pt.trace.json");
    REQUIRE(samples.steps.size() == 1);
    CHECK(self_us(keyed(samples, samples.steps[0]), "aten::add") == 40.0);
    CHECK(self_us(keyed(samples, samples.steps[0]), "ProfilerStep*") == 60.0);
    CHECK(ops_by_key(samples, samples.steps[0]).count("aten::foo") == 0);
    CHECK(samples.problems.unfinished_events == 1);
    CHECK(samples.problems.negative_duration_events == 0);
  }
  SUBCASE("an id above INT64_MAX in args does not stop the reader") {
    const TraceSamples samples = read_trace_samples(dir + "integer-above-int64.pt.trace.json");
    REQUIRE(samples.steps.size() == 1);
    CHECK(samples.steps[0].name == "whole trace");
    CHECK(self_us(keyed(samples, samples.steps[0]), "record_param_comms") == 100.0);
    CHECK(samples.metadata.at("schemaVersion") == "1");
  }
  SUBCASE("a UTF-8 BOM and white space before the object") {
    const TraceSamples samples = read_trace_samples(dir + "bom-and-leading-space.json");
    REQUIRE(samples.steps.size() == 1);
    CHECK(self_us(keyed(samples, samples.steps[0]), "aten::mul") == 5.25);
    CHECK(samples.format == TraceFormat::kineto);
  }
  SUBCASE("string timestamps in a top-level array") {
    const TraceSamples samples = read_trace_samples(dir + "string-timestamps.json");
    REQUIRE(samples.steps.size() == 1);
    CHECK(self_us(keyed(samples, samples.steps[0]), "aten::mul") == 5.25);
    CHECK(self_us(keyed(samples, samples.steps[0]), "aten::add") == 2.0);
    CHECK(samples.format == TraceFormat::legacy_array);
    CHECK(samples.steps[0].start_ns == 1704161511420306491);
    CHECK(samples.steps[0].duration_ns == 1704161511420314000 - 1704161511420306491);
  }
  SUBCASE("no problem is reported where there is none") {
    const TraceSamples samples = read_trace_samples(dir + "string-timestamps.json");
    CHECK(samples.problems == TraceDataProblems{});
  }
}

TEST_CASE("a trace truncated at any byte is an input error at that byte") {
  // Every proper prefix of a complete trace (the whole class, not one file).
  for (std::size_t length = 1; length < k_small_trace.size(); ++length) {
    CAPTURE(length);
    const InputError error = read_error("cut.json", k_small_trace.substr(0, length));
    REQUIRE(error.byte_offset().has_value());
    CHECK(*error.byte_offset() == length);
    CHECK(error.problem().find("truncated trace") != std::string::npos);
  }
  CHECK(read_bytes("whole.json", k_small_trace).steps.size() == 1);
}

TEST_CASE("a raw control character anywhere in a string is an input error at its byte") {
  const std::size_t name_at = k_small_trace.find("aten::mul");
  for (int c = 0; c < 0x20; ++c) {
    for (std::size_t offset = name_at; offset <= name_at + 9; offset += 3) {
      CAPTURE(c);
      CAPTURE(offset);
      std::string text = k_small_trace;
      text.insert(offset, 1, static_cast<char>(c));
      const InputError error = read_error("ctl.json", text);
      REQUIRE(error.byte_offset().has_value());
      CHECK(*error.byte_offset() == offset);
      CHECK(error.problem().find("must be escaped") != std::string::npos);
    }
  }
}

TEST_CASE("a raw quote inside a name is an input error naming a byte after it") {
  const std::size_t name_at = k_small_trace.find("aten::mul");
  for (std::size_t offset = name_at + 1; offset < name_at + 9; ++offset) {
    CAPTURE(offset);
    std::string text = k_small_trace;
    text.insert(offset, 1, '"');
    const InputError error = read_error("quote.json", text);
    REQUIRE(error.byte_offset().has_value());
    CHECK(*error.byte_offset() > offset);
    CHECK(*error.byte_offset() <= name_at + 10);
    CHECK(error.problem().rfind("not valid JSON", 0) == 0);
  }
}

TEST_CASE("invalid UTF-8 inside a string is an input error") {
  std::string text = k_small_trace;
  text.insert(k_small_trace.find("aten::mul") + 4, "\xff");
  const InputError error = read_error("utf8.json", text);
  CHECK(*error.byte_offset() == k_small_trace.find("aten::mul") + 4);
}

TEST_CASE("content that is neither an object nor an array is not a trace") {
  SUBCASE("other text") {
    const InputError error = read_error("notes.txt", "\xEF\xBB\xBF  hello");
    CHECK(std::string(error.what()) ==
          "notes.txt:byte 5: not a trace: the content does not start with '{' or '[': \"hello\"");
  }
  SUBCASE("a JSON scalar") {
    CHECK(read_error("n.json", "42").problem().rfind("not a trace", 0) == 0);
    CHECK(read_error("s.json", "\"text\"").problem().rfind("not a trace", 0) == 0);
    CHECK(read_error("null.json", "null").problem().rfind("not a trace", 0) == 0);
  }
  SUBCASE("an empty file") {
    const InputError error = read_error("empty.json", "");
    CHECK(std::string(error.what()) == "empty.json: not a trace: the file is empty");
  }
  SUBCASE("only white space") {
    CHECK(read_error("blank.json", " \n\t ").problem().rfind("not a trace: no JSON object or array", 0) == 0);
  }
  SUBCASE("an object without traceEvents") {
    const InputError error = read_error("e2e.json", R"({"schema": "neuron-gate.e2e/1", "metrics": []})");
    CHECK(error.problem() == "not a trace: no \"traceEvents\" array in the top-level object");
  }
  SUBCASE("data after the top-level value") {
    const InputError error = read_error("two.json", "[] []");
    CHECK(*error.byte_offset() == 3);
  }
  SUBCASE("a missing file") {
    const InputError error = file_error(k_test_data + "/no-such-trace.json");
    CHECK(error.problem().rfind("cannot open", 0) == 0);
  }
}

TEST_CASE("an empty trace reads as one empty whole-trace step") {
  for (const char* text : {"[]", R"({"traceEvents": []})"}) {
    CAPTURE(text);
    const TraceSamples samples = read_bytes("empty-trace.json", text);
    REQUIRE(samples.steps.size() == 1);
    CHECK(samples.steps[0].name == "whole trace");
    CHECK(ops_by_key(samples, samples.steps[0]).empty());
    CHECK(samples.event_count == 0);
    CHECK_FALSE(samples.has_profiler_steps);
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::byte_source");

TEST_CASE("gzip is told by its magic bytes, not by the name") {
  const std::string gz = read_file(k_test_data + "/corpus/H01-cpu-only.pt.trace.json.gz");
  const TraceSamples from_gz = read_bytes("trace.json", gz);
  ByteSource source("trace.json", gz);
  CHECK(source.is_gzip());
  // the same content, uncompressed, under a .gz name
  std::string plain;
  for (std::string_view chunk = source.next(); !chunk.empty(); chunk = source.next()) {
    plain += chunk;
  }
  CHECK(plain.size() == 25192);
  const TraceSamples from_plain = read_bytes("trace.json.gz", plain);
  CHECK(from_plain.steps == from_gz.steps);
  CHECK(from_plain.outside_steps == from_gz.outside_steps);
  CHECK_FALSE(ByteSource("trace.json.gz", plain).is_gzip());
}

TEST_CASE("a truncated gzip file is an input error naming the file") {
  const std::string path = k_test_data + "/corpus/H01-cpu-only.pt.trace.json.gz";
  const std::string gz = read_file(path);
  for (const std::size_t length : {std::size_t{2}, std::size_t{10}, std::size_t{100}, gz.size() / 2, gz.size() - 8,
                                   gz.size() - 4, gz.size() - 1}) {
    CAPTURE(length);
    const InputError error = read_error("rank-34.pt.trace.json.gz", gz.substr(0, length));
    CHECK(std::string(error.what()).find("rank-34.pt.trace.json.gz") != std::string::npos);
    CHECK(error.problem() == "gzip data ends early (truncated file)");
    CHECK(*error.byte_offset() == length);
  }
}

TEST_CASE("corrupt gzip data is an input error") {
  std::string gz = read_file(k_test_data + "/corpus/H01-cpu-only.pt.trace.json.gz");
  SUBCASE("a damaged deflate stream") {
    for (std::size_t i = 200; i < 260; ++i) {
      gz[i] = static_cast<char>(~gz[i]);
    }
    const InputError error = read_error("damaged.json.gz", gz);
    CHECK(error.problem().rfind("corrupt gzip data", 0) == 0);
  }
  SUBCASE("a wrong CRC in the trailer") {
    gz[gz.size() - 6] = static_cast<char>(gz[gz.size() - 6] ^ 1);
    CHECK(read_error("crc.json.gz", gz).problem() == "corrupt gzip data: incorrect data check");
  }
  SUBCASE("garbage after the gzip stream") {
    CHECK(read_error("tail.json.gz", gz + "garbage").problem() == "unexpected data after the end of the gzip stream");
  }
}

TEST_CASE("gzip members back to back read as one stream") {
  const std::size_t half = k_small_trace.size() / 2;
  const std::string gz = gzip_bytes(k_small_trace.substr(0, half)) + gzip_bytes(k_small_trace.substr(half));
  const TraceSamples samples = read_bytes("members.json.gz", gz);
  REQUIRE(samples.steps.size() == 1);
  CHECK(self_us(keyed(samples, samples.steps[0]), "aten::mul") == 4.25);
}

TEST_CASE("a JSON error inside gzip names the offset in the decompressed data") {
  const std::string gz = gzip_bytes(k_small_trace.substr(0, 60));
  const InputError error = read_error("cut.json.gz", gz);
  CHECK(*error.byte_offset() == 60);
  CHECK(error.problem().find("(offset in the decompressed data)") != std::string::npos);
}

TEST_CASE("big inputs come in chunks") {
  // 3 MiB of indented padding after the events (runs of white space between values, each far below the
  // string limit): several chunks, plain and gzip.
  std::string text = k_small_trace.substr(0, k_small_trace.size() - 1) + ", \"padding\": [0";
  while (text.size() < (3u << 20)) {
    text += ",\n" + std::string(1000, ' ') + "0";
  }
  text += "]}";
  for (const bool gzip : {false, true}) {
    CAPTURE(gzip);
    ByteSource source("big.json", gzip ? gzip_bytes(text) : text);
    std::size_t total = 0;
    std::size_t chunks = 0;
    for (std::string_view chunk = source.next(); !chunk.empty(); chunk = source.next()) {
      total += chunk.size();
      ++chunks;
    }
    CHECK(total == text.size());
    CHECK(chunks >= 3);
    CHECK(read_bytes("big.json", gzip ? gzip_bytes(text) : text).steps.size() == 1);
  }
}

TEST_SUITE_END();
