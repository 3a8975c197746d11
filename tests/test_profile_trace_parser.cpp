// Tests for the trace reader's two parsers (formats/trace_rapidjson.hpp): RapidJSON's streaming SAX pass
// reads strings across chunk boundaries whole, and every case where it hands the file to nlohmann's parser
// (deep nesting, numbers beyond a double, ill-formed UTF-8) gives nlohmann's result or message.
#include "formats/kineto_trace.hpp"
#include "formats/trace_sax.hpp"
#include "input/byte_source.hpp"
#include "input/span_hash.hpp"
#include "profile/op_keys.hpp"
#include "profile/trace_samples.hpp"
#include "trace_bytes.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace neuron_gate;

using neuron_gate::testing::read_bytes;
using neuron_gate::testing::read_error;

namespace {

constexpr std::size_t k_chunk = std::size_t{1} << 20;  // ByteSource's chunk size

// A one-step trace: a padding event whose args string makes `op_json` (a JSON string literal, the op's
// name as written) start at byte `name_at`, then the op (self time 5 µs) inside ProfilerStep#1.
std::string trace_with_name_at(std::size_t name_at, const std::string& op_json, const std::string& args = "{}") {
  const std::string head =
      R"({"traceEvents": [{"ph": "X", "name": "pad", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {"p": ")";
  const std::string middle =
      R"("}}, {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50}, {"ph": "X", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": )" +
      args + R"(, "name": )";
  const std::size_t pad = name_at - head.size() - middle.size();
  return head + std::string(pad, 'x') + middle + op_json + "}]}";
}

// The events screened as duplicates in `samples` (0 when none).
std::int64_t duplicates(const TraceSamples& samples) {
  for (const DataProblem& problem : samples.problems.listed) {
    if (problem.kind == DataProblemKind::duplicate) {
      return problem.count;
    }
  }
  return 0;
}

// A one-step trace holding `first` and then `second` (event objects), the args object of `second` starting
// at byte `args_at`; `pad_args` are the args of the padding event before them.
std::string trace_with_pair(std::size_t args_at, const std::string& first, const std::string& second,
                            const std::string& pad_args = "") {
  const std::string head =
      R"({"traceEvents": [{"ph": "X", "name": "pad", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {)" + pad_args +
      R"("p": ")";
  const std::string middle =
      R"("}}, {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50}, )" + first + ", ";
  const std::size_t pad = args_at - head.size() - middle.size() - second.find("\"args\": ") - 8;
  return head + std::string(pad, 'x') + middle + second + "]}";
}

double self_us(const TraceSamples& samples, const std::string& op) {
  REQUIRE(samples.steps.size() == 1);
  const OpValues* found = find_op(samples, samples.steps[0], op);
  REQUIRE_MESSAGE(found != nullptr, "no op " << op);
  return static_cast<double>(found->self_cpu_ns) / 1000.0;
}

}  // namespace

TEST_SUITE_BEGIN("profile::trace_parser");

TEST_CASE("a name across the 1 MiB chunk boundary is read whole, escapes and UTF-8 too") {
  // "a\"b\u00e9c" plus 40 plain bytes: the boundary falls before, inside and after the escapes and the
  // 16-byte runs the string scan copies at once.
  const std::string written = R"("aten::a\"b\u00e9c)" + std::string(40, 'z') + "\"";
  const std::string name = "aten::a\"b\xC3\xA9"
                           "c" +
                           std::string(40, 'z');
  const std::size_t befores[] = {0, 1, 2, 7, 8, 9, 10, 15, 16, 17, 31, 33, 49};
  for (const std::size_t before : befores) {
    CAPTURE(before);
    const std::string text = trace_with_name_at(k_chunk - before, written);
    CHECK(self_us(read_bytes("boundary.json", text), name) == 5.0);
  }
}

TEST_CASE("nesting deeper than the fast parser's limit reads as nlohmann reads it") {
  const std::string deep = R"({"deep": )" + std::string(300, '[') + std::string(300, ']') + "}";
  const TraceSamples samples = read_bytes("deep.json", trace_with_name_at(1000, R"("aten::mul")", deep));
  CHECK(self_us(samples, "aten::mul") == 5.0);
}

TEST_CASE("what only nlohmann refuses is refused with nlohmann's message and byte") {
  SUBCASE("a number beyond a double in args (the other JSON readers' wording, no json.exception prefix)") {
    const std::string text = trace_with_name_at(400, R"("aten::mul")", R"({"x": 1e400})");
    const InputError error = read_error("big.json", text);
    CHECK(error.problem() == "not valid JSON: number overflow parsing '1e400'");
    CHECK(*error.byte_offset() == text.find("1e400") + 4);
  }
  SUBCASE("an integer of 400 digits") {
    const std::string text = trace_with_name_at(1000, R"("aten::mul")", R"({"x": 1)" + std::string(400, '0') + "}");
    CHECK(read_error("long.json", text).problem().rfind("not valid JSON: number overflow parsing", 0) == 0);
  }
  SUBCASE("an overlong UTF-8 form in a name") {
    const std::string text = trace_with_name_at(400, "\"aten::\xC0\xAF\"");
    const InputError error = read_error("utf8.json", text);
    CHECK(error.problem().find("ill-formed UTF-8") != std::string::npos);
    CHECK(*error.byte_offset() == text.find("\xC0"));
  }
  SUBCASE("a lone low surrogate escape") {
    const std::string text = trace_with_name_at(400, R"("aten::\udc00")");
    CHECK(read_error("surrogate.json", text).problem().find("surrogate") != std::string::npos);
  }
}

TEST_CASE("numbers are typed as nlohmann types them") {
  // -0 is the integer 0; an integer beyond uint64 is a float, read from its text; 1.5e1 µs is 15 µs.
  const std::string text =
      R"({"traceEvents": [{"ph": "X", "name": "ProfilerStep#1", "pid": -0, "tid": 1, "ts": 100, "dur": 50},)"
      R"({"ph": "X", "name": "aten::mul", "pid": 0, "tid": 1, "ts": 1.1e2, "dur": 1.5e1, "args": {"id": 123456789012345678901234567890}}]})";
  CHECK(self_us(read_bytes("numbers.json", text), "aten::mul") == 15.0);
}

TEST_CASE("an event's args hash is of its bytes, wherever the chunks are cut") {
  const std::string bytes = "{\"Call stack\": \"" + std::string(70, 'z') + "\", \"n\": [1, 2.5, null]}";
  trace_reader::SpanHash whole;
  whole.reset();
  whole.update(bytes.data(), bytes.data() + bytes.size());
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    for (std::size_t second = cut; second <= bytes.size(); second += 7) {
      trace_reader::SpanHash pieces;
      pieces.reset();
      pieces.update(bytes.data(), bytes.data() + cut);
      pieces.update(bytes.data() + cut, bytes.data() + second);
      pieces.update(bytes.data() + second, bytes.data() + bytes.size());
      REQUIRE(pieces.value() == whole.value());
    }
  }
  std::string other = bytes;
  other[bytes.size() - 3] = 'm';  // "nulm": another byte, another hash
  trace_reader::SpanHash changed;
  changed.reset();
  changed.update(other.data(), other.data() + other.size());
  CHECK(changed.value() != whole.value());
}

TEST_CASE("an event repeated with the same args is a duplicate across chunk boundaries, on both parsers") {
  const auto event = [](const std::string& n) {
    return R"({"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"Call stack": ")" +
           std::string(40, 'z') + R"(", "n": )" + n + "}}";
  };
  const std::string deep = R"("deep": )" + std::string(300, '[') + std::string(300, ']') + ", ";
  for (const std::string& pad_args : {std::string(), deep}) {
    CAPTURE(pad_args.size());  // 0: RapidJSON's pass; else nlohmann's (nesting deeper than the fast limit)
    const std::size_t befores[] = {1, 2, 15, 16, 17, 30, 70};
    for (const std::size_t before : befores) {
      CAPTURE(before);
      CHECK(duplicates(read_bytes("twice.json", trace_with_pair(k_chunk - before, event("7"), event("7"), pad_args))) ==
            1);
      CHECK(duplicates(read_bytes("other.json", trace_with_pair(k_chunk - before, event("7"), event("8"), pad_args))) ==
            0);
    }
  }
}

TEST_CASE("a number across the 1 MiB chunk boundary is read whole") {
  const std::string head =
      R"({"traceEvents": [{"ph": "X", "name": "pad", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {"p": ")";
  const std::string middle =
      R"("}}, {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50}, {"ph": "X", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 110, "dur": )";
  const std::size_t befores[] = {1, 2, 3, 4, 5, 6};
  for (const std::size_t before : befores) {
    CAPTURE(before);
    const std::size_t pad = k_chunk - before - head.size() - middle.size();
    const std::string text = head + std::string(pad, 'x') + middle + "5.125e0}]}";
    CHECK(self_us(read_bytes("number.json", text), "aten::mul") == 5.125);
  }
}

TEST_CASE("numbers the fast pass stops on get nlohmann's message and byte") {
  const std::string head = R"({"traceEvents": [{"ph": "X", "name": "a", "ts": )";
  SUBCASE("a leading zero") {
    const InputError error = read_error("zero.json", head + R"(01, "dur": 1}]})");
    CHECK(error.problem() ==
          "not valid JSON: syntax error while parsing object - unexpected number literal; expected '}'");
    CHECK(*error.byte_offset() == head.size() + 1);
  }
  SUBCASE("no digit after the point") {
    const InputError error = read_error("point.json", head + R"(1., "dur": 1}]})");
    CHECK(error.problem() ==
          "not valid JSON: syntax error while parsing value - invalid number; expected digit after '.'; last read: "
          "'1.,'");
    CHECK(*error.byte_offset() == head.size() + 2);
  }
}

TEST_CASE("interned names keep first-seen ids whatever order they recur in") {
  std::vector<std::string> strings = {"left over"};
  trace_reader::StringTable table(strings);
  CHECK(strings.empty());  // ids are positions: the table starts empty
  // a b c, then the same order (every guess right), then orders that break the guess at each step.
  const std::vector<std::string> names = {"a", "b", "c", "a", "b", "c", "a", "c",
                                          "b", "b", "a", "d", "c", "a", "d", "b"};
  std::vector<std::uint32_t> ids;
  for (const std::string& name : names) {
    ids.push_back(table.intern(name));
  }
  CHECK(strings == std::vector<std::string>{"a", "b", "c", "d"});
  for (std::size_t i = 0; i < names.size(); ++i) {
    CAPTURE(i);
    REQUIRE(ids[i] < strings.size());
    CHECK(strings[ids[i]] == names[i]);
  }
}

TEST_CASE("end bytes past 4 GiB come back whole, also after events are removed") {
  // The low 32 bits live in each event; end_byte_wraps says where the high bits step up (no trace that
  // large is made here: the events are written by hand).
  RawTrace trace;
  const std::uint64_t gib4 = std::uint64_t{1} << 32;
  const std::uint64_t ends[] = {100, gib4 - 1, gib4 + 7, 2 * gib4 + 5, 3 * gib4 + 9, 3 * gib4 + 10};
  for (const std::uint64_t end : ends) {
    TraceEvent event;
    event.end_byte_low = static_cast<std::uint32_t>(end);
    trace.events.push_back(event);
  }
  trace.end_byte_wraps = {2, 3, 4};
  for (std::uint32_t i = 0; i < 6; ++i) {
    CHECK(end_byte(trace, i) == ends[i]);
  }
  remove_events(trace, [](std::uint32_t i) { return i == 1 || i == 2 || i == 4; });
  REQUIRE(trace.events.size() == 3);
  CHECK(end_byte(trace, 0) == 100);
  CHECK(end_byte(trace, 1) == 2 * gib4 + 5);
  CHECK(end_byte(trace, 2) == 3 * gib4 + 10);
  CHECK(trace.end_byte_wraps == std::vector<std::uint32_t>{1, 1, 2});
}
