// End-to-end tests of `neuron-gate compare` on the bundled real profiles, run in process.
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

using namespace neuron_gate::testing;
using nlohmann::json;

TEST_SUITE_BEGIN("cli::compare");

namespace {

struct Compared {
  CliResult result;
  json report;
};

Compared compare(const std::string& base, const std::string& head, std::vector<std::string> extra = {}) {
  const auto dir = scratch("compare");
  const std::string json_path = (dir / "report.json").string();
  std::vector<std::string> args{"compare", base, head, "--json", json_path, "--no-git"};
  args.insert(args.end(), extra.begin(), extra.end());
  Compared compared;
  compared.result = run(args);
  if (std::filesystem::exists(json_path)) {
    compared.report = json::parse(read_text(json_path));
  }
  return compared;
}

} // namespace

TEST_CASE("A vs A2 (same code, independent runs) passes") {
  const Compared c = compare(example("A"), example("A2"));
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  CHECK(c.report["outcome"] == "PASS");
  const json latency = find_metric(c.report, "end_to_end", "latency");
  REQUIRE(latency.is_object());
  CHECK(latency["verdict"] == "EQUIVALENT");
  CHECK(latency["gating"] == true);
  CHECK(latency["ratio"].get<double>() == doctest::Approx(1.0).epsilon(0.03));
  CHECK(c.result.out.rfind("## ✅ PASS", 0) == 0);
}

TEST_CASE("A vs Areg (a second pow+mean per step) regresses and names aten::pow and aten::mean") {
  const Compared c = compare(example("A"), example("Areg"));
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 1);
  const json latency = find_metric(c.report, "end_to_end", "latency");
  CHECK(latency["verdict"] == "REGRESSED");
  CHECK(latency["ratio"].get<double>() == doctest::Approx(1.42).epsilon(0.05));
  for (const char* op : {"aten::pow", "aten::mean"}) {
    CAPTURE(op);
    const json metric = find_metric(c.report, "self_cpu", op);
    REQUIRE(metric.is_object());
    CHECK(metric["calls_per_step"]["base"] == 1.0);
    CHECK(metric["calls_per_step"]["head"] == 2.0);
    CHECK(c.result.out.find(std::string("`") + op + "`") != std::string::npos);
  }
  CHECK(c.result.out.find("`aten::pow` 1 → 2") != std::string::npos);
}

TEST_CASE("A vs A_sched (two steps per trace) is not comparable and names the schedule") {
  const Compared c = compare(example("A"), example("A_sched"));
  CHECK(c.result.exit_code == 3);
  CHECK(c.report["outcome"] == "NOT COMPARABLE");
  bool schedule_differs = false;
  for (const auto& row : c.report["conditions"]) {
    if (row["name"] == "schedule") {
      schedule_differs = row["matches"] == false;
      CHECK(row["base"] == "1 step per trace");
      CHECK(row["head"] == "2 steps per trace");
    }
  }
  CHECK(schedule_differs);
  CHECK(c.result.out.find("schedule") != std::string::npos);
  CHECK(c.report["metrics"].empty());
}

TEST_CASE("--allow-mismatch schedule accepts the different schedule") {
  const Compared c = compare(example("A"), example("A_sched"), {"--allow-mismatch", "schedule"});
  CHECK(c.result.exit_code != 3);
  CHECK(c.result.exit_code != 2);
}

TEST_CASE("A vs B (layer_norm instead of separate ops) regresses ~1.6x and reports the replacement") {
  const Compared c = compare(example("A"), example("B"));
  CHECK(c.result.exit_code == 1);
  const json latency = find_metric(c.report, "end_to_end", "latency");
  CHECK(latency["verdict"] == "REGRESSED");
  CHECK(latency["ratio"].get<double>() == doctest::Approx(1.6).epsilon(0.08));
  const json layer_norm = find_metric(c.report, "self_cpu", "aten::layer_norm");
  REQUIRE(layer_norm.is_object());
  CHECK(layer_norm["verdict"] == "STRUCTURAL");
  CHECK(layer_norm["present"]["base"] == false);
  const json pow = find_metric(c.report, "self_cpu", "aten::pow");
  CHECK(pow["present"]["head"] == false);
  CHECK(c.result.out.find("replaced by") != std::string::npos);
  CHECK(c.result.out.find("`aten::layer_norm`") != std::string::npos);
  CHECK(c.result.out.find("disagree") != std::string::npos);
}

TEST_CASE("A vs C (scripted, ~2% slower) passes and still reports the per-op changes") {
  const Compared c = compare(example("A"), example("C"));
  CHECK(c.result.exit_code == 0);
  const json latency = find_metric(c.report, "end_to_end", "latency");
  CHECK(latency["verdict"] == "EQUIVALENT");
  CHECK(latency["ratio"].get<double>() == doctest::Approx(1.02).epsilon(0.02));
  const json forward = find_metric(c.report, "self_cpu", "forward");
  REQUIRE(forward.is_object());
  CHECK(forward["verdict"] == "STRUCTURAL");
  const json add = find_metric(c.report, "self_cpu", "aten::add");
  REQUIRE(add.is_object());
  CHECK(add["head"]["median"].get<double>() > add["base"]["median"].get<double>());
  CHECK(c.result.out.find("`forward`") != std::string::npos);
}

TEST_CASE("K1 -> K2 (ResNet50 captured twice, no end-to-end file) passes and says what it could not decide") {
  const Compared c = compare(data("corpus/K1"), data("corpus/K2"));
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  REQUIRE(c.report.is_object());
  CHECK(c.report["gating_classes"] == json::array({"device", "self_cpu"}));
  const std::size_t insufficient = c.report["counts"].value("INSUFFICIENT", 0);
  CHECK(insufficient > 0);
  const std::string first_line = c.result.out.substr(0, c.result.out.find('\n'));
  CHECK(first_line.find(std::to_string(insufficient) + " insufficient") != std::string::npos);
  CHECK(c.result.out.find("INSUFFICIENT") != std::string::npos);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("cli::bad_inputs");

TEST_CASE("every file in bad-inputs gets the outcome expected.json states") {
  const json expected = json::parse(read_text(data("bad-inputs/expected.json")));
  for (const auto& item : expected["cases"].items()) {
    const std::string file = item.key();
    const json& outcome = item.value();
    CAPTURE(file);
    const std::string path = data("bad-inputs/" + file);
    const Compared c = compare(path, path);
    CHECK(c.result.exit_code == outcome["exit"].get<int>());
    const std::string said = c.result.out + c.result.err;
    const json says = outcome.value("says", json::array());
    const json reads = outcome.value("reads", json::object());
    for (const auto& word : says) {
      CAPTURE(word);
      CHECK(said.find(word.get<std::string>()) != std::string::npos);
    }
    for (const auto& read : reads.items()) {
      const std::string op = read.key();
      const json& self_us = read.value();
      CAPTURE(op);
      const json metric = find_metric(c.report, "self_cpu", op);
      REQUIRE(metric.is_object());
      CHECK(metric["base"]["median"].get<double>() == doctest::Approx(self_us.get<double>()));
    }
  }
}

TEST_CASE("a missing profile is an input error naming it") {
  const CliResult r = run({"compare", "/nonexistent/base", example("A")});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "neuron-gate: error: /nonexistent/base: no such file or directory\n");
}

TEST_CASE("a report is never written over an input file") {
  const auto dir = scratch("overwrite");
  const std::string e2e = (dir / "e2e.json").string();
  std::filesystem::copy_file(example("A") + "/e2e.json", e2e);
  const std::string before = read_text(e2e);
  const CliResult r = run({"compare", dir.string(), dir.string(), "--json", e2e});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("refusing to write a report over an input file") != std::string::npos);
  CHECK(read_text(e2e) == before);
}

TEST_CASE("an unknown rules key is an error naming it, with a suggestion") {
  const auto dir = scratch("rules");
  const std::string rules = (dir / "rules.json").string();
  std::ofstream(rules) << "{ // comment\n \"alpha\": 0.05, \"treshold\": 0.1 }";
  const CliResult r = run({"compare", example("A"), example("A2"), "--rules", rules});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "neuron-gate: error: " + rules + ": unknown key \"treshold\"\n");
}

TEST_CASE("usage errors exit 2 and --help exits 0") {
  CHECK(run({"compare", example("A")}).exit_code == 2);
  CHECK(run({"frobnicate"}).exit_code == 2);
  CHECK(run({"--help"}).exit_code == 0);
  CHECK(run({"--version"}).exit_code == 0);
  const CliResult r = run({"compare", example("A"), example("A2"), "--allow-mismatch", "shedule"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean \"schedule\"?") != std::string::npos);
}

TEST_SUITE_END();
