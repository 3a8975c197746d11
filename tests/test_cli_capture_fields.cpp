// What the capture helper writes beside latency (issue 37 item 4): thread_cpu_time with "gates": false in
// e2e.json (an end-to-end metric that explains, in a family of its own), and the manifest's intra_op_threads,
// grad_mode, timing.bursts and timing.gate, compared as conditions.
#include "cli_helpers.hpp"
#include "formats/e2e_json.hpp"
#include "formats/manifest.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;
namespace ng = neuron_gate;

TEST_SUITE_BEGIN("cli::capture_fields");

namespace {

// 6 runs of 8 samples around `median` ms (a spread of +-3.5%, the same in every run).
std::string runs_of(double median) {
  std::ostringstream text;
  text << "[";
  for (int run = 0; run < 6; ++run) {
    text << (run ? ", [" : "[");
    for (int i = 0; i < 8; ++i) {
      text << (i ? ", " : "") << median * (1.0 + 0.01 * (i - 3.5) + 0.002 * run);
    }
    text << "]";
  }
  return text.str() + "]";
}

// e2e.json: latency and thread_cpu_time (ms, 6 runs each); `explains` names the metric written with
// "gates": false.
std::string e2e(double latency_ms, double cpu_ms, const std::string& explains) {
  const auto entry = [&](const std::string& name, double median) {
    return R"({"name": ")" + name + R"(", "unit": "ms", "better": "lower", )" +
           (explains == name ? R"("gates": false, )" : "") + R"("runs": )" + runs_of(median) + "}";
  };
  return R"({"schema": "neuron-gate.e2e/1", "metrics": [)" + entry("latency", latency_ms) + ", " +
         entry("thread_cpu_time", cpu_ms) + "]}\n";
}

std::string manifest(int threads, const std::string& grad_mode) {
  return R"({"schema": "neuron-gate.manifest/1", "device": "cpu", "intra_op_threads": )" + std::to_string(threads) +
         R"(, "grad_mode": ")" + grad_mode +
         R"(", "timing": {"warmup": 10, "repetitions": 48, "calls_per_sample": 1, "interleaved": false, )"
         R"("bursts": 4, "gate": "latency"}})"
         "\n";
}

std::string side(const fs::path& dir, const std::string& e2e_text, const std::string& manifest_text) {
  write_file(dir / "e2e.json", e2e_text);
  write_file(dir / "neuron-gate.json", manifest_text);
  return dir.string();
}

// compare_json with the Markdown report on stdout.
Compared compare(const std::string& base, const std::string& head, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"--format", "markdown"});
  return compare_json(base, head, extra);
}

}  // namespace

TEST_CASE("e2e.json: \"gates\" false marks a metric that explains, absent it gates, anything else is an error") {
  const std::vector<ng::EndToEndMetric> metrics = ng::parse_e2e_json(e2e(10.0, 8.0, "thread_cpu_time"), "e2e.json");
  REQUIRE(metrics.size() == 2);
  CHECK(metrics[0].name == "latency");
  CHECK(metrics[0].gates);
  CHECK(metrics[1].name == "thread_cpu_time");
  CHECK_FALSE(metrics[1].gates);
  CHECK(metrics[1].runs == 6);
  const std::string bad = R"({"schema": "neuron-gate.e2e/1", "metrics": [{"name": "latency", "unit": "ms", )"
                          R"("gates": "no", "samples": [1, 2]}]})";
  try {
    ng::parse_e2e_json(bad, "side/run-01/e2e.json");
    FAIL("a string \"gates\" was accepted");
  } catch (const ng::InputError& error) {
    const std::string message = error.what();
    CHECK(message.find("side/run-01/e2e.json") != std::string::npos);
    CHECK(message.find("\"gates\" must be true or false, not \"no\"") != std::string::npos);
  }
}

TEST_CASE("manifest: intra_op_threads, grad_mode, timing.bursts and timing.gate become fields, bad values name the "
          "file") {
  const ng::RunManifest m = ng::parse_manifest(manifest(4, "inference_mode"), "base/neuron-gate.json");
  CHECK(m.fields.at("intra_op_threads") == "4");
  CHECK(m.fields.at("grad_mode") == "inference_mode");
  CHECK(m.fields.at("timing.bursts") == "4");
  CHECK(m.fields.at("timing.gate") == "latency");
  const std::vector<std::pair<std::string, std::string>> bad{
      {manifest(0, "enabled"), "\"intra_op_threads\" must be a positive integer, not 0"},
      {manifest(2, "off"), "\"grad_mode\" must be \"enabled\", \"no_grad\" or \"inference_mode\", not \"off\""},
      {R"({"schema": "neuron-gate.manifest/1", "intra_op_threads": "4"})",
       "\"intra_op_threads\" must be a non-negative integer, not \"4\""},
      {R"({"schema": "neuron-gate.manifest/1", "timing": {"gate": ""}})", "\"timing.gate\" must name"},
      {R"({"schema": "neuron-gate.manifest/1", "timing": {"burst": 3}})", "did you mean \"bursts\""},
  };
  for (const auto& one : bad) {
    const std::string text = one.first, expected = one.second;
    CAPTURE(text);
    try {
      ng::parse_manifest(text, "head/neuron-gate.json");
      FAIL("accepted");
    } catch (const ng::InputError& error) {
      const std::string message = error.what();
      CHECK(message.find("head/neuron-gate.json") != std::string::npos);
      CHECK(message.find(expected) != std::string::npos);
    }
  }
}

TEST_CASE("compare: thread_cpu_time marked \"gates\": false explains — REGRESSED, not gating, own family") {
  const fs::path dir = scratch("capture-fields-explains");
  const std::string base = side(dir / "base", e2e(10.0, 8.0, "thread_cpu_time"), manifest(1, "enabled"));
  const std::string head = side(dir / "head", e2e(10.0, 10.4, "thread_cpu_time"), manifest(1, "enabled"));
  const Compared c = compare(base, head);
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  const json cpu = find_metric(c.report, "end_to_end", "thread_cpu_time");
  REQUIRE(cpu.is_object());
  CHECK(cpu["verdict"] == "REGRESSED");
  CHECK(cpu["gating"] == false);
  CHECK(cpu["family"] == "end-to-end (explains)");
  CHECK(cpu["ratio"].get<double>() == doctest::Approx(1.3).epsilon(0.01));
  const json latency = find_metric(c.report, "end_to_end", "latency");
  CHECK(latency["gating"] == true);
  CHECK(latency["family"] == "end-to-end");
  CHECK(latency["verdict"] == "EQUIVALENT");
  CHECK(c.result.out.find("End-to-end, explains (not gating): `thread_cpu_time` REGRESSED") != std::string::npos);
  CHECK(c.result.out.find("Neuron device summary") == std::string::npos);
}

TEST_CASE("a digest keeps \"gates\": false — compare on digests judges thread_cpu_time as the profiles do") {
  const fs::path dir = scratch("capture-fields-digest");
  const std::string base = side(dir / "base", e2e(10.0, 8.0, "thread_cpu_time"), manifest(1, "enabled"));
  const std::string head = side(dir / "head", e2e(10.0, 10.4, "thread_cpu_time"), manifest(1, "enabled"));
  for (const std::string name : {"base", "head"}) {
    const CliResult r = run({"digest", (dir / name).string(), "-o", (dir / (name + ".ngdigest")).string(), "--no-git"});
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
  }
  const Compared c = compare((dir / "base.ngdigest").string(), (dir / "head.ngdigest").string());
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  const json cpu = find_metric(c.report, "end_to_end", "thread_cpu_time");
  REQUIRE(cpu.is_object());
  CHECK(cpu["family"] == "end-to-end (explains)");
  CHECK(cpu["gating"] == false);
  CHECK(cpu["verdict"] == "REGRESSED");
}

TEST_CASE("compare: the metric e2e.json leaves gating decides — thread_cpu_time gating 1.3x fails, latency explains") {
  const fs::path dir = scratch("capture-fields-cpu-gates");
  // Latency explains and is unchanged; thread CPU time gates and is 30% worse: a regression.
  const std::string base = side(dir / "base", e2e(10.0, 8.0, "latency"), manifest(1, "enabled"));
  const std::string head = side(dir / "head", e2e(10.0, 10.4, "latency"), manifest(1, "enabled"));
  const Compared c = compare(base, head);
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 1);
  CHECK(find_metric(c.report, "end_to_end", "thread_cpu_time")["gating"] == true);
  CHECK(find_metric(c.report, "end_to_end", "latency")["family"] == "end-to-end (explains)");
  // "gates": false on one side only is not enough (fail closed): a side cannot silence a metric the other
  // gates on, whichever side it is.
  const std::string head2 = side(dir / "head2", e2e(13.0, 8.0, "none"), manifest(1, "enabled"));
  const Compared c2 = compare(base, head2);
  CAPTURE(c2.result.err);
  CHECK(c2.result.exit_code == 1);
  CHECK(find_metric(c2.report, "end_to_end", "latency")["gating"] == true);
  CHECK(find_metric(c2.report, "end_to_end", "latency")["verdict"] == "REGRESSED");
  const std::string base2 = side(dir / "base2", e2e(10.0, 8.0, "none"), manifest(1, "enabled"));
  const std::string head3 = side(dir / "head3", e2e(13.0, 8.0, "latency"), manifest(1, "enabled"));
  CHECK(compare(base2, head3).result.exit_code == 1);
  // Runs of one side that mark a metric differently are an input error naming the file.
  const fs::path mixed = dir / "mixed";
  write_file(mixed / "run-01" / "e2e.json", e2e(10.0, 8.0, "thread_cpu_time"));
  write_file(mixed / "run-02" / "e2e.json", e2e(10.0, 8.0, "none"));
  const Compared m = compare(base, mixed.string());
  CHECK(m.result.exit_code == 2);
  CHECK(m.result.err.find("\"thread_cpu_time\" has \"gates\": true here but false in") != std::string::npos);
}

TEST_CASE("compare: other intra-op threads or grad mode make the sides not comparable unless allowed") {
  const fs::path dir = scratch("capture-fields-conditions");
  const std::string base = side(dir / "base", e2e(10.0, 8.0, "thread_cpu_time"), manifest(1, "enabled"));
  const std::string threads = side(dir / "threads", e2e(10.0, 8.0, "thread_cpu_time"), manifest(2, "enabled"));
  const std::string grad = side(dir / "grad", e2e(10.0, 8.0, "thread_cpu_time"), manifest(1, "no_grad"));
  const Compared t = compare(base, threads);
  CAPTURE(t.result.err);
  CHECK(t.result.exit_code == 3);
  const json row = condition(t.report, "manifest.intra_op_threads");
  REQUIRE(row.is_object());
  CHECK(row["matches"] == false);
  CHECK(row["base"] == "1");
  CHECK(row["head"] == "2");
  CHECK(condition(t.report, "manifest.grad_mode")["matches"] == true);
  const Compared g = compare(base, grad);
  CHECK(g.result.exit_code == 3);
  CHECK(condition(g.report, "manifest.grad_mode")["head"] == "no_grad");
  const Compared allowed = compare(base, threads, {"--allow-mismatch", "manifest.intra_op_threads"});
  CAPTURE(allowed.result.err);
  CHECK(allowed.result.exit_code == 0);
}

TEST_SUITE_END();
