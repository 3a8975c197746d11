// Tests for src/formats/benchmark_formats and src/formats/neuron_summary, on the hand-written fixtures in
// tests/data/formats/ (see its README.md) and on small texts built here.
#include "formats/benchmark_formats.hpp"
#include "formats/neuron_summary.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ng = neuron_gate;

namespace {

const std::string k_formats_data = std::string(NEURON_GATE_TEST_DATA) + "/formats/";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot open " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> names_of(const std::vector<ng::EndToEndMetric>& metrics) {
  std::vector<std::string> names;
  for (const auto& metric : metrics) {
    names.push_back(metric.name);
  }
  return names;
}

const ng::EndToEndMetric& metric_named(const std::vector<ng::EndToEndMetric>& metrics, std::string_view name) {
  for (const auto& metric : metrics) {
    if (metric.name == name) {
      return metric;
    }
  }
  FAIL("no metric " << name);
  return metrics.front();
}

void check_samples(const std::vector<double>& actual, const std::vector<double>& expected) {
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(1e-15));
  }
}

// The InputError a call throws, or nothing when it does not throw one.
template <typename Call>
std::optional<ng::InputError> input_error_of(Call call) {
  try {
    call();
  } catch (const ng::InputError& error) {
    return error;
  }
  return std::nullopt;
}

}  // namespace

TEST_SUITE_BEGIN("profile::benchmark_formats");

TEST_CASE("sniffing tells each tool's JSON from its first bytes") {
  const auto head = [](const std::string& file) { return read_text(k_formats_data + file).substr(0, 512); };
  CHECK(ng::sniff_benchmark_format(head("google-benchmark-repetitions.json")) == ng::BenchmarkFormat::google_benchmark);
  CHECK(ng::sniff_benchmark_format(head("hyperfine-two-commands.json")) == ng::BenchmarkFormat::hyperfine);
  CHECK(ng::sniff_benchmark_format(head("pytest-benchmark-with-data.json")) == ng::BenchmarkFormat::pytest_benchmark);
  CHECK(ng::sniff_benchmark_format(head("pytest-benchmark-without-data.json")) ==
        ng::BenchmarkFormat::pytest_benchmark);
  CHECK(ng::sniff_benchmark_format(head("neuron-summary-nan.json")) == ng::BenchmarkFormat::unknown);
  CHECK(ng::sniff_benchmark_format(R"({"schema": "neuron-gate.e2e/1", "metrics": []})") ==
        ng::BenchmarkFormat::unknown);
  CHECK(ng::sniff_benchmark_format(R"({"traceEvents": [{"name": "benchmarks"}]})") == ng::BenchmarkFormat::unknown);
  CHECK(ng::sniff_benchmark_format("\xEF\xBB\xBF\n  {\"results\": [{\"command\": \"sleep 1\"") ==
        ng::BenchmarkFormat::hyperfine);
  CHECK(ng::benchmark_format_name(ng::BenchmarkFormat::pytest_benchmark) == "pytest-benchmark");
}

TEST_CASE("Google Benchmark: three repetitions give three samples per metric and the aggregates are ignored") {
  const std::string path = k_formats_data + "google-benchmark-repetitions.json";
  const auto metrics = ng::read_benchmark_json(path);
  // The user counter "retries" has no known direction and is not read; its cv aggregate is a bare NaN token,
  // which must not stop the reader.
  CHECK(names_of(metrics) == std::vector<std::string>{"BM_RmsNorm/4096 real_time", "BM_RmsNorm/4096 cpu_time",
                                                      "BM_RmsNorm/4096 items_per_second",
                                                      "BM_RmsNorm/4096 bytes_per_second", "BM_Tokenize real_time",
                                                      "BM_Tokenize cpu_time"});
  for (const auto& metric : metrics) {
    CHECK(metric.samples.size() == 3);
    CHECK(metric.source_path == path);
  }

  SUBCASE("times keep the file's time_unit, lower is better") {
    const auto& real = metric_named(metrics, "BM_RmsNorm/4096 real_time");
    CHECK(real.unit == "us");
    CHECK(real.better == ng::Better::lower);
    check_samples(real.samples, {41.25, 41.5, 42.0});
    check_samples(metric_named(metrics, "BM_RmsNorm/4096 cpu_time").samples, {41.2, 41.4, 41.9});
    const auto& tokenize = metric_named(metrics, "BM_Tokenize real_time");
    CHECK(tokenize.unit == "ns");
    check_samples(tokenize.samples, {612.5, 608.25, 615.0});
    check_samples(metric_named(metrics, "BM_Tokenize cpu_time").samples, {611.0, 607.5, 614.25});
  }
  SUBCASE("rates are per second whatever the time unit, higher is better") {
    const auto& items = metric_named(metrics, "BM_RmsNorm/4096 items_per_second");
    CHECK(items.unit == "items/s");
    CHECK(items.better == ng::Better::higher);
    check_samples(items.samples, {4096 / 41.2e-6, 4096 / 41.4e-6, 4096 / 41.9e-6});
    const auto& bytes = metric_named(metrics, "BM_RmsNorm/4096 bytes_per_second");
    CHECK(bytes.unit == "bytes/s");
    CHECK(bytes.better == ng::Better::higher);
    check_samples(bytes.samples, {16384 / 41.2e-6, 16384 / 41.4e-6, 16384 / 41.9e-6});
  }
}

TEST_CASE("Google Benchmark: entries that cannot be read as repetitions") {
  const std::string context = R"({"context": {"num_cpus": 8}, "benchmarks": [)";
  SUBCASE("a file of aggregates only is an error that says how to keep the repetitions") {
    const std::string text = context + R"({"name": "BM_a_mean", "run_name": "BM_a", "run_type": "aggregate",
      "aggregate_name": "mean", "real_time": 10.0, "cpu_time": 9.0, "time_unit": "ns"}]})";
    CHECK_THROWS_WITH_AS(ng::parse_benchmark_json(text, "agg.json"),
                         "agg.json: only aggregate entries (mean, median, stddev, cv): rerun without "
                         "--benchmark_report_aggregates_only to keep each repetition",
                         ng::InputError);
  }
  SUBCASE("errored repetitions and pre-1.5 aggregates without run_type are skipped") {
    const std::string text = context + R"(
      {"name": "BM_a", "iterations": 10, "real_time": 5.0, "cpu_time": 4.0, "time_unit": "ms"},
      {"name": "BM_a", "error_occurred": true, "error_message": "oom", "iterations": 0, "real_time": 0.0,
       "cpu_time": 0.0, "time_unit": "ms"},
      {"name": "BM_a", "iterations": 10, "real_time": 6.0, "cpu_time": 4.5, "time_unit": "ms"},
      {"name": "BM_a_mean", "iterations": 2, "real_time": 5.5, "cpu_time": 4.25, "time_unit": "ms"}]})";
    const auto metrics = ng::parse_google_benchmark_json(text, "old.json");
    REQUIRE(metrics.size() == 2);
    CHECK(metrics[0].unit == "ms");
    CHECK(metrics[0].samples == std::vector<double>{5.0, 6.0});
    CHECK(metrics[1].samples == std::vector<double>{4.0, 4.5});
  }
  SUBCASE("an unknown time unit is quoted") {
    const std::string text = context + R"({"name": "BM_a", "run_type": "iteration", "real_time": 1.0,
      "cpu_time": 1.0, "time_unit": "min"}]})";
    CHECK_THROWS_WITH_AS(ng::parse_google_benchmark_json(text, "unit.json"),
                         "unit.json: benchmark \"BM_a\": unknown time unit \"min\" (expected ns, us, ms or s)",
                         ng::InputError);
  }
}

TEST_CASE("hyperfine: one metric per command, the per-run times in seconds") {
  const std::string path = k_formats_data + "hyperfine-two-commands.json";
  const auto metrics = ng::read_benchmark_json(path);
  REQUIRE(metrics.size() == 2);
  CHECK(metrics[0].name == "python infer.py --model llama-1b --seq 512");
  CHECK(metrics[0].unit == "s");
  CHECK(metrics[0].better == ng::Better::lower);
  CHECK(metrics[0].source_path == path);
  CHECK(metrics[0].samples == std::vector<double>{2.412345, 2.398761, 2.405532, 2.421007, 2.401298});
  CHECK(metrics[1].name == "python infer.py --model llama-1b --seq 1024");
  CHECK(metrics[1].samples == std::vector<double>{3.901274, 3.887652, 3.912003, 3.895519});
}

TEST_CASE("hyperfine: a result without times is an error naming the command") {
  CHECK_THROWS_WITH_AS(ng::parse_hyperfine_json(R"({"results": [{"command": "sleep 1", "mean": 1.0}]})", "h.json"),
                       "h.json: command \"sleep 1\" has no \"times\" array (per-run times, exported by hyperfine "
                       "1.3 and later)",
                       ng::InputError);
}

TEST_CASE("pytest-benchmark saved with --benchmark-save-data: stats.data are the samples") {
  const std::string path = k_formats_data + "pytest-benchmark-with-data.json";
  const auto metrics = ng::read_benchmark_json(path);
  REQUIRE(metrics.size() == 2);
  CHECK(metrics[0].name == "tests/perf/test_forward.py::test_forward[bf16]");
  CHECK(metrics[0].unit == "s");
  CHECK(metrics[0].better == ng::Better::lower);
  CHECK(metrics[0].samples == std::vector<double>{0.018234, 0.018012, 0.018455, 0.017998, 0.018101});
  CHECK(metrics[1].name == "tests/perf/test_forward.py::test_forward[fp32]");
  CHECK(metrics[1].samples == std::vector<double>{0.031876, 0.032104, 0.031755, 0.03199, 0.032231});
}

TEST_CASE("pytest-benchmark without stats.data is an error saying to use --benchmark-save-data") {
  const std::string path = k_formats_data + "pytest-benchmark-without-data.json";
  CHECK_THROWS_WITH_AS(ng::read_benchmark_json(path),
                       (path + ": benchmark \"tests/perf/test_forward.py::test_forward[bf16]\" has no \"stats.data\" "
                               "(per-round times): rerun pytest with --benchmark-save-data")
                           .c_str(),
                       ng::InputError);
}

TEST_CASE("benchmark files: malformed JSON names the file and the byte offset in the original text") {
  // A NaN token before the fault grows by one byte when nulled; the offset must still be the file's.
  const std::string text = "{\"results\": [{\"command\": \"a\", \"x\": NaN, \"times\": [1.0,, 2.0]}]}";
  const auto error = input_error_of([&] { ng::parse_hyperfine_json(text, "bad.json"); });
  REQUIRE(error);
  CHECK(error->path() == "bad.json");
  REQUIRE(error->byte_offset());
  CHECK(*error->byte_offset() == text.find(",,") + 1);
  CHECK(std::string(error->what())
            .rfind("bad.json:byte " + std::to_string(text.find(",,") + 1) +
                       ": not valid JSON: syntax error while parsing value",
                   0) == 0);
  CHECK_THROWS_WITH_AS(ng::parse_hyperfine_json("{\"results\": [1e999]}", "big.json"),
                       "big.json:byte 13: not valid JSON: number overflow parsing '1e999'", ng::InputError);
  CHECK_THROWS_WITH_AS(ng::parse_hyperfine_json("{\"results\": [", "cut.json"),
                       "cut.json:byte 13: not valid JSON: syntax error while parsing value - unexpected end of input; "
                       "expected '[', '{', or a literal",
                       ng::InputError);
  CHECK_THROWS_WITH_AS(ng::parse_benchmark_json(R"({"traceEvents": []})", "trace.json"),
                       "trace.json: not a benchmark file: expected Google Benchmark, hyperfine or pytest-benchmark "
                       "JSON",
                       ng::InputError);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::neuron_summary");

TEST_CASE("bare non-finite tokens become null outside strings, and offsets map back") {
  const std::string text =
      R"({"a": NaN, "b": -Infinity, "c": "NaN and Infinity", "d": [inf,-nan], "e": null, "nanx": 1})";
  const ng::NulledJson nulled = ng::null_non_finite_tokens(text);
  CHECK(nulled.text ==
        R"({"a": null, "b": null     , "c": "NaN and Infinity", "d": [null,null], "e": null, "nanx": 1})");
  CHECK(nulled.replaced == 4);
  CHECK(nulled.grown_at.size() == 2);
  // The "e" key: two 3-byte tokens ("NaN", "inf") before it, so it sits two bytes later in the nulled text.
  CHECK(ng::original_byte_offset(nulled, nulled.text.find("\"e\"")) == text.find("\"e\""));
  CHECK(ng::original_byte_offset(nulled, nulled.text.find("\"b\"")) == text.find("\"b\""));
  CHECK(ng::original_byte_offset(nulled, 0) == 0);
  const std::string escaped = R"(["say \"NaN\"", NaN])";
  CHECK(ng::null_non_finite_tokens(escaped).text == R"(["say \"NaN\"", null])");
}

TEST_CASE("summary-json with bare NaN tokens: NaN has no value, the other times are read") {
  const std::string path = k_formats_data + "neuron-summary-nan.json";
  const auto summaries = ng::read_neuron_summary_json(path);
  REQUIRE(summaries.size() == 1);
  const ng::NeuronSummary& summary = summaries[0];
  CHECK(summary.path == path);
  CHECK(summary.version == "unknown");
  CHECK(summary.total_time_s == 0.017342);
  CHECK(summary.total_active_time_s == 0.015876);
  // vector is NaN and gpsimd -NaN: no value, never 0.
  CHECK(summary.engine_active_time_s ==
        std::map<std::string, double>{{"scalar", 0.003127}, {"sync", 0.000412}, {"tensor", 0.009812}});
  CHECK(summary.assumptions ==
        std::vector<std::string>{"a top-level object holding the metric keys",
                                 "times are in seconds; *_percent keys are not read (0-1 or 0-100 is unverified)",
                                 "5 bare NaN/Infinity token(s) in the file were read as no value"});
}

TEST_CASE("legacy neuron-profile JSON: the keys of summary[0]") {
  const std::string path = k_formats_data + "neuron-profile-legacy.json";
  const auto summaries = ng::read_neuron_summary_json(path);
  REQUIRE(summaries.size() == 1);
  const ng::NeuronSummary& summary = summaries[0];
  CHECK(summary.total_time_s == 0.021);
  CHECK(summary.total_active_time_s == 0.0187);
  CHECK(summary.engine_active_time_s ==
        std::map<std::string, double>{
            {"gpsimd", 0.0006}, {"scalar", 0.0027}, {"sync", 0.0009}, {"tensor", 0.0113}, {"vector", 0.0042}});
  CHECK(summary.version == "unknown");
  REQUIRE_FALSE(summary.assumptions.empty());
  CHECK(summary.assumptions[0] ==
        "a top-level object whose \"summary\" is an array (legacy neuron-profile JSON): entry 0 of 1");
}

TEST_CASE("summary-json as an array of per-NTFF objects: one summary each, the version from metadata") {
  const auto summaries = ng::read_neuron_summary_json(k_formats_data + "neuron-summary-per-ntff.json");
  REQUIRE(summaries.size() == 2);
  CHECK(summaries[0].version == "explorer_version 2.21.0, profile_schema_version 1.2.0");
  CHECK(summaries[0].assumptions[0] == "a top-level array taken as one object per NTFF: element 0 of 2 holding the "
                                       "metric keys");
  CHECK(summaries[1].total_time_s == 0.017506);
  CHECK(summaries[1].engine_active_time_s.at("gpsimd") == 0.000741);

  const auto metrics = ng::neuron_summary_metrics(summaries);
  CHECK(names_of(metrics) ==
        std::vector<std::string>{"device total_time", "device total_active_time", "device gpsimd_engine_active_time",
                                 "device scalar_engine_active_time", "device sync_engine_active_time",
                                 "device tensor_engine_active_time", "device vector_engine_active_time"});
  const auto& total = metrics[0];
  CHECK(total.unit == "s");
  CHECK(total.better == ng::Better::lower);
  CHECK(total.samples == std::vector<double>{0.017342, 0.017506});
  CHECK(total.source_path == k_formats_data + "neuron-summary-per-ntff.json");
}

TEST_CASE("summary metrics leave out a measure without a value") {
  const auto metrics =
      ng::neuron_summary_metrics(ng::read_neuron_summary_json(k_formats_data + "neuron-summary-nan.json"));
  CHECK(names_of(metrics) ==
        std::vector<std::string>{"device total_time", "device total_active_time", "device scalar_engine_active_time",
                                 "device sync_engine_active_time", "device tensor_engine_active_time"});
  CHECK(metrics[0].samples == std::vector<double>{0.017342});
  CHECK(ng::neuron_summary_metrics({}).empty());
}

TEST_CASE("summary-json: malformed JSON names the file and the byte offset in the file") {
  // The fault (a missing comma) comes after a bare NaN, which the reader replaces by the longer null.
  const std::string path = k_formats_data + "neuron-summary-malformed.json";
  const auto error = input_error_of([&] { ng::read_neuron_summary_json(path); });
  REQUIRE(error);
  CHECK(std::string(error->what()) ==
        path + ":byte 102: not valid JSON: syntax error while parsing object - unexpected string literal; "
               "expected '}'");
  CHECK(error->byte_offset() == 102);
  CHECK(read_text(path).substr(102, 5) == "\"sync");
}

TEST_CASE("summary-json: shapes that hold no summary, and bad times") {
  CHECK_THROWS_WITH_AS(ng::parse_neuron_summary_json(R"({"traceEvents": []})", "x.json"),
                       "x.json: no Neuron summary found: expected \"total_time\" in the top-level object, in its "
                       "\"summary\" object or array, or in each element of a top-level array",
                       ng::InputError);
  CHECK_THROWS_WITH_AS(ng::parse_neuron_summary_json(R"([{"total_time": 1.0}, {"nc_idx": 1}])", "x.json"),
                       "x.json: element 1 of the top-level array has no \"total_time\"", ng::InputError);
  CHECK_THROWS_WITH_AS(ng::parse_neuron_summary_json(R"({"total_time": -0.5})", "x.json"),
                       "x.json: \"total_time\" is a negative time: -0.5", ng::InputError);
  CHECK_THROWS_WITH_AS(ng::parse_neuron_summary_json(R"({"total_time": "fast"})", "x.json"),
                       "x.json: \"total_time\" is not a number of seconds: \"fast\"", ng::InputError);
  const auto summaries = ng::parse_neuron_summary_json(R"({"summary": {"total_time": "0.25"}})", "x.json");
  REQUIRE(summaries.size() == 1);
  CHECK(summaries[0].total_time_s == 0.25);
  CHECK(summaries[0].assumptions[0] == "a top-level object whose \"summary\" is an object");
  CHECK(summaries[0].assumptions[1] == "some times were strings and were read as numbers");
}

TEST_CASE("summary-text: key value lines in seconds, nan has no value") {
  const std::string path = k_formats_data + "neuron-summary.txt";
  const auto summaries = ng::read_neuron_summary_text(path);
  REQUIRE(summaries.size() == 1);
  const ng::NeuronSummary& summary = summaries[0];
  CHECK(summary.total_time_s == 0.017);
  CHECK(summary.total_active_time_s == 0.015876);
  CHECK(summary.engine_active_time_s ==
        std::map<std::string, double>{
            {"gpsimd", 0.000733}, {"scalar", 0.003127}, {"sync", 0.000412}, {"tensor", 0.009812}});
  CHECK(summary.version == "unknown");
  CHECK(summary.assumptions[0] == "summary-text: one `key value` per line");

  const std::string two = "total_time 0.5\nexplorer_version 2.21.0\ntotal_time 0.75\n";
  const auto executions = ng::parse_neuron_summary_text(two, "two.txt");
  REQUIRE(executions.size() == 2);
  CHECK(executions[1].total_time_s == 0.75);
  CHECK(executions[1].version == "explorer_version 2.21.0");

  const std::string bad = "nc_idx 1\ntotal_time 0.0x7\n";
  CHECK_THROWS_WITH_AS(ng::parse_neuron_summary_text(bad, "bad.txt"),
                       "bad.txt:byte 20: \"total_time\" is not a number of seconds: \"0.0x7\"", ng::InputError);
  CHECK_THROWS_WITH_AS(ng::parse_neuron_summary_text("nc_idx 1\n", "none.txt"),
                       "none.txt: no \"total_time\" line: not a neuron-explorer summary-text file", ng::InputError);
}

TEST_CASE("sniffing tells Neuron summaries by content") {
  for (const char* file : {"neuron-summary-nan.json", "neuron-profile-legacy.json", "neuron-summary-per-ntff.json",
                           "neuron-summary-malformed.json"}) {
    CAPTURE(file);
    CHECK(ng::looks_like_neuron_summary_json(read_text(k_formats_data + file)));
  }
  CHECK(ng::looks_like_neuron_summary_json(R"({"total_time": 1.0, "tensor_engine_active_time": 0.5})"));
  CHECK_FALSE(ng::looks_like_neuron_summary_json(R"({"total_time": 1.0})"));
  CHECK_FALSE(ng::looks_like_neuron_summary_json(read_text(k_formats_data + "google-benchmark-repetitions.json")));
  CHECK_FALSE(ng::looks_like_neuron_summary_json("total_time 0.017\ntotal_active_time 0.015\n"));

  CHECK(ng::looks_like_neuron_summary_text(read_text(k_formats_data + "neuron-summary.txt")));
  CHECK(ng::looks_like_neuron_summary_text("nc_idx 1\nnd_idx 2\ntotal_time 0.017"));
  CHECK_FALSE(ng::looks_like_neuron_summary_text("Name    Self CPU %\ntotal_time 0.017\n"));
  CHECK_FALSE(ng::looks_like_neuron_summary_text(read_text(k_formats_data + "neuron-summary-nan.json")));
  CHECK_FALSE(ng::looks_like_neuron_summary_text(""));
}

TEST_SUITE_END();
