// The route to per-op device time on Trainium after Neuron 2.34 (issue 37 item 6, NEURON-FORMATS.md 5.5):
// `neuron-gate-capture explorer-to-json` turns Explorer's Parquet output into a Kineto trace the gate
// already reads. These run the gate on hand-made files of that layout (tests/data/formats/
// explorer-trace-*.json, README.md there): 8 ProfilerStep windows, aten::mm and aten::add each launching one
// nc_exec_running device event linked by External id. Expected values are the files' own: aten::mm device
// per step 200, 202, 198, 201, 199, 200, 203, 197 µs (median 200) in base and 1.5x that in head (median 300);
// aten::add 80, 81, 79, 80, 82, 78, 80, 80 µs (median 80) on both sides.

#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace neuron_gate::testing;

namespace {

std::string fixture(const std::string& side) {
  return data("formats/explorer-trace-" + side + ".json");
}

Compared compare_files(const std::string& base, const std::string& head) {
  return compare_json(fixture(base), fixture(head), {"--format", "terminal"});
}

}  // namespace

TEST_CASE("inspect of a converted Explorer trace: the per-op device time the file states, and what was assumed") {
  const CliResult r = run({"inspect", fixture("base")});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("| `aten::mm` | 50.0 µs | 200 µs | 1.00 | 8 |") != std::string::npos);
  CHECK(r.out.find("| `aten::add` | 20.0 µs | 80.0 µs | 1.00 | 8 |") != std::string::npos);
  CHECK(r.out.find("Device time: 2.24 ms in 8 steps, 100.0% attributed to an op") != std::string::npos);
  // The conversion's own statement of its assumptions, from the trace's metadata, under Assumptions.
  const auto assumptions = r.out.find("## Assumptions");
  REQUIRE(assumptions != std::string::npos);
  const std::string section = r.out.substr(assumptions);
  CHECK(section.find("explorer-trace-base.json: neuron-explorer Parquet SystemProfileEvents, converted by "
                     "neuron_gate_capture 0.1.0 explorer-to-json; device time: nc_exec_running rows (neuron_hw) as "
                     "kernel events; 16 device events: 16 flow: the op enclosing the launch on its thread; assumed: "
                     "framework rows are trace.json's events as Explorer ingested them") != std::string::npos);
}

TEST_CASE("a trace not converted from Explorer states no conversion") {
  const CliResult r = run({"inspect", example("A")});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("explorer-to-json") == std::string::npos);
}

TEST_CASE("converted Explorer traces: aten::mm device time x1.5 in head fails the gate naming aten::mm") {
  const Compared c = compare_files("base", "head");
  CHECK(c.result.exit_code == 1);
  CHECK(c.report["verdict"] == "regression");
  CHECK(c.result.out.find("❌ REGRESSION: `aten::mm` device +50.0%") == 0);
  const nlohmann::json mm = find_metric(c.report, "device", "aten::mm");
  REQUIRE(mm != nullptr);
  CHECK(mm["verdict"] == "REGRESSED");
  CHECK(mm["gating"] == true);
  CHECK(mm["base"]["median"] == doctest::Approx(200.0));
  CHECK(mm["head"]["median"] == doctest::Approx(300.0));
  CHECK(mm["ratio"] == doctest::Approx(1.5));
  const nlohmann::json add = find_metric(c.report, "device", "aten::add");
  REQUIRE(add != nullptr);
  CHECK(add["verdict"] != "REGRESSED");
  CHECK(add["base"]["median"] == doctest::Approx(80.0));
  CHECK(add["head"]["median"] == doctest::Approx(80.0));
  for (const auto& m : c.report["metrics"]) {  // only aten::mm's device time and the device total it is in
    CAPTURE(m["name"].get<std::string>());
    if (m["verdict"] == "REGRESSED") {
      CHECK(m["class"] == "device");
      CHECK((m["name"] == "aten::mm" || m["name"] == "all ops"));
    }
  }
}

TEST_CASE("converted Explorer traces: the same file on both sides passes") {
  const Compared c = compare_files("base", "base");
  CHECK(c.result.exit_code == 0);
  CHECK(find_metric(c.report, "device", "aten::mm")["verdict"] != "REGRESSED");
}
