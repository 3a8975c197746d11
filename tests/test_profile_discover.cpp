// Tests for discovery by content (src/formats/discover) and for read_side() on benchmark-tool and Neuron
// summary files: kinds from the fixtures in tests/data/formats/, merge rules, units, warnings, versions.
#include "formats/discover.hpp"
#include "profile/read_side.hpp"

#include "test_files.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ng = neuron_gate;
namespace fs = std::filesystem;

using neuron_gate::testing::scratch;

namespace {

const std::string k_formats = std::string(NEURON_GATE_TEST_DATA) + "/formats/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ng::FileKind kind_of_fixture(const std::string& name) {
  return ng::classify_file_head(name, slurp(k_formats + name)).kind;
}

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

const ng::EndToEndMetric* metric_named(const ng::SideSamples& side, const std::string& name) {
  for (const ng::EndToEndMetric& metric : side.end_to_end) {
    if (metric.name == name) {
      return &metric;
    }
  }
  return nullptr;
}

}  // namespace

TEST_SUITE_BEGIN("profile::discover");

TEST_CASE("the format fixtures are recognised by content") {
  CHECK(kind_of_fixture("google-benchmark-repetitions.json") == ng::FileKind::google_benchmark);
  CHECK(kind_of_fixture("hyperfine-two-commands.json") == ng::FileKind::hyperfine);
  CHECK(kind_of_fixture("pytest-benchmark-with-data.json") == ng::FileKind::pytest_benchmark);
  CHECK(kind_of_fixture("pytest-benchmark-without-data.json") == ng::FileKind::pytest_benchmark);
  CHECK(kind_of_fixture("neuron-summary-nan.json") == ng::FileKind::neuron_summary_json);
  CHECK(kind_of_fixture("neuron-profile-legacy.json") == ng::FileKind::neuron_summary_json);
  CHECK(kind_of_fixture("neuron-summary-per-ntff.json") == ng::FileKind::neuron_summary_json);
  CHECK(kind_of_fixture("neuron-summary-malformed.json") == ng::FileKind::neuron_summary_json);
  CHECK(kind_of_fixture("neuron-summary.txt") == ng::FileKind::neuron_summary_text);
  CHECK(std::string(ng::file_kind_name(ng::FileKind::google_benchmark)) == "Google Benchmark JSON");
  CHECK(std::string(ng::file_kind_name(ng::FileKind::neuron_summary_text)) == "Neuron summary text");
}

TEST_CASE("names do not decide: a Kineto trace named foo.txt is a trace, JSON named .txt is JSON") {
  CHECK(ng::classify_file_head("foo.txt", "{\"schemaVersion\": 1, \"traceEvents\": [").kind == ng::FileKind::trace);
  CHECK(ng::classify_file_head("notes.txt", "\xEF\xBB\xBF  [{\"name\": \"aten::mm\", \"ph\": \"X\"").kind ==
        ng::FileKind::trace);
  CHECK(ng::classify_file_head("bench.log", slurp(k_formats + "hyperfine-two-commands.json")).kind ==
        ng::FileKind::hyperfine);
  CHECK(ng::classify_file_head("trace.json", "{\"schema\": \"neuron-gate.e2e/1\", \"metrics\": []}").kind ==
        ng::FileKind::end_to_end);
}

TEST_CASE("unknown JSON and text are ignored with a reason that names what was seen") {
  const ng::DiscoveredFile json = ng::classify_file_head("config.json", "{\"model\": {\"layers\": 4}, \"lr\": 0.1}");
  CHECK(json.kind == ng::FileKind::ignored);
  CHECK(json.ignored_reason == "JSON that neuron-gate does not read: top-level keys \"model\", \"lr\" (not a trace, "
                               "e2e.json, manifest, benchmark-tool or Neuron summary JSON)");
  CHECK(
      ng::classify_file_head("many.json", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7}").ignored_reason ==
      "JSON that neuron-gate does not read: top-level keys \"a\", \"b\", \"c\", \"d\", \"e\", \"f\", … (not a trace, "
      "e2e.json, manifest, benchmark-tool or Neuron summary JSON)");
  CHECK(ng::classify_file_head("empty-object.json", "{}").ignored_reason ==
        "JSON that neuron-gate does not read: no top-level keys (not a trace, e2e.json, manifest, benchmark-tool or "
        "Neuron summary JSON)");
  const ng::DiscoveredFile text = ng::classify_file_head("README", "hello world\n");
  CHECK(text.kind == ng::FileKind::ignored);
  CHECK(text.ignored_reason == "text that is neither JSON, a key_averages table nor a Neuron summary-text");
  CHECK(ng::classify_file_head("empty.json", " \n").ignored_reason == "empty file");
  // "results" without "command" is not hyperfine; "total_time" alone is not a Neuron summary.
  CHECK(ng::classify_file_head("r.json", "{\"results\": [{\"score\": 1}]}").kind == ng::FileKind::ignored);
  CHECK(ng::classify_file_head("t.json", "{\"total_time\": 3}").kind == ng::FileKind::ignored);
}

TEST_CASE("top-level JSON keys: nested keys, strings holding braces, escapes and a cut-off head") {
  CHECK(ng::top_level_json_keys("{\"a\": {\"x\": 1}, \"b\": \"}{,\\\"\", \"c\": [1, {\"y\": 2}], \"d\"", 10) ==
        std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(ng::top_level_json_keys("  {\"a\": 1, \"b\": 2, \"c\": 3}", 2) == std::vector<std::string>{"a", "b"});
  CHECK(ng::top_level_json_keys("{\"a\": \"cut off", 10) == std::vector<std::string>{"a"});
  CHECK(ng::top_level_json_keys("[{\"a\": 1}]", 10).empty());
  CHECK(ng::top_level_json_keys("", 10).empty());
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::read_side_formats");

TEST_CASE("read_side: Google Benchmark and hyperfine files give one metric per benchmark or command") {
  const fs::path dir = scratch("bench");
  fs::copy_file(k_formats + "google-benchmark-repetitions.json", dir / "bench.json");
  fs::create_directories(dir / "cli");
  fs::copy_file(k_formats + "hyperfine-two-commands.json", dir / "cli" / "timings.json");
  const ng::SideSamples side = ng::read_side("base", ng::discover_profile(dir.string()), {});
  const ng::EndToEndMetric* real = metric_named(side, "BM_RmsNorm/4096 real_time");
  REQUIRE(real != nullptr);
  CHECK(real->unit == "us");
  CHECK(real->samples.size() == 3);
  CHECK(real->samples[0] == 41.25);
  const ng::EndToEndMetric* seq512 = metric_named(side, "python infer.py --model llama-1b --seq 512");
  REQUIRE(seq512 != nullptr);
  CHECK(seq512->unit == "s");
  CHECK(seq512->samples == std::vector<double>{2.412345, 2.398761, 2.405532, 2.421007, 2.401298});
  const ng::EndToEndMetric* seq1024 = metric_named(side, "python infer.py --model llama-1b --seq 1024");
  REQUIRE(seq1024 != nullptr);
  CHECK(seq1024->samples.size() == 4);
  CHECK(side.file_details.at("cli/timings.json") == "2 metrics");
  for (const ng::EndToEndMetric& metric : side.end_to_end) {
    CHECK(metric.origin == ng::EndToEndOrigin::application);
  }
}

TEST_CASE("read_side: one name with another unit in a second file is an error naming both files") {
  const fs::path dir = scratch("conflict");
  put(dir / "a-hyperfine.json", "{\"results\": [{\"command\": \"latency\", \"times\": [0.012, 0.013]}]}");
  put(dir / "b-e2e.json", "{\"schema\": \"neuron-gate.e2e/1\", \"metrics\": [{\"name\": \"latency\", \"unit\": "
                          "\"ms\", \"better\": \"lower\", \"samples\": [12.0]}]}");
  const ng::ProfileInventory inventory = ng::discover_profile(dir.string());
  REQUIRE(inventory.files.size() == 2);
  CHECK(inventory.files[0].kind == ng::FileKind::hyperfine);
  CHECK(inventory.files[1].kind == ng::FileKind::end_to_end);
  try {
    ng::read_side("head", inventory, {});
    FAIL("expected an InputError");
  } catch (const ng::InputError& error) {
    CHECK(error.path() == (dir / "b-e2e.json").string());
    CHECK(error.problem() == "metric \"latency\" is \"ms\", lower is better here but \"s\", lower is better in " +
                                 (dir / "a-hyperfine.json").string());
  }
}

TEST_CASE("read_side: pytest-benchmark saved without --benchmark-save-data is an input error saying so") {
  const fs::path dir = scratch("pytest");
  fs::copy_file(k_formats + "pytest-benchmark-without-data.json", dir / "0001_bench.json");
  try {
    ng::read_side("base", ng::discover_profile(dir.string()), {});
    FAIL("expected an InputError");
  } catch (const ng::InputError& error) {
    CHECK(error.path() == (dir / "0001_bench.json").string());
    CHECK(std::string(error.what()).find("--benchmark-save-data") != std::string::npos);
  }
}

TEST_CASE("read_side: Neuron summaries give device metrics in ms, versions and NaN warnings") {
  const fs::path dir = scratch("neuron");
  fs::copy_file(k_formats + "neuron-summary-nan.json", dir / "exec-1.json");
  fs::copy_file(k_formats + "neuron-summary-per-ntff.json", dir / "exec-2.json");
  fs::copy_file(k_formats + "neuron-summary.txt", dir / "exec-3.txt");
  const ng::SideSamples side = ng::read_side("base", ng::discover_profile(dir.string()), {});
  const ng::EndToEndMetric* total = metric_named(side, "device total_time");
  REQUIRE(total != nullptr);
  CHECK(total->unit == "ms");
  CHECK(total->better == ng::Better::lower);
  CHECK(total->origin == ng::EndToEndOrigin::device_summary);
  REQUIRE(total->samples.size() == 4);  // 1 + 2 (one per NTFF) + 1
  CHECK(total->samples[0] == doctest::Approx(17.342));
  CHECK(total->samples[1] == doctest::Approx(17.342));
  CHECK(total->samples[2] == doctest::Approx(17.506));
  CHECK(total->samples[3] == doctest::Approx(17.0));
  const ng::EndToEndMetric* vector = metric_named(side, "device vector_engine_active_time");
  REQUIRE(vector != nullptr);
  CHECK(vector->samples.size() == 2);  // NaN in exec-1.json and exec-3.txt: skipped, never 0 or NaN
  CHECK(vector->samples[0] == doctest::Approx(4.551));
  CHECK(side.file_details.at("exec-2.json") == "explorer_version 2.21.0, profile_schema_version 1.2.0; 2 executions");
  CHECK(side.file_details.at("exec-1.json") == "unknown; 1 execution");
  REQUIRE(side.read_warnings.size() == 3);
  CHECK(side.read_warnings[0] == "exec-1.json: no value (NaN, Infinity or null) for `gpsimd_engine_active_time`, "
                                 "`vector_engine_active_time`: skipped, not counted as 0");
  CHECK(side.read_warnings[1].rfind("exec-2.json: 2 summaries in one file (one per NTFF)", 0) == 0);
  CHECK(side.read_warnings[2] == "exec-3.txt: no value (NaN, Infinity or null) for `vector_engine_active_time`: "
                                 "skipped, not counted as 0");
}

TEST_SUITE_END();
