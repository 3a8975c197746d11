// End-to-end tests of `neuron-gate compare` on the bundled real profiles and on hand-made TorchNeuron
// layouts (ranks, NEFF/NTFF, run manifest), run in process.
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

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

// TorchNeuron layout (NEURON-FORMATS.md 1.2), made by hand: <side>/<instance>_pid_<pid>/<timestamp>/ with
// trace.json, neff_<hash>_vnc_0.neff and profile_nc_0_session_0.ntff, and <side>/neuron-gate.json.
TEST_SUITE_BEGIN("cli::neuron_layout");

namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A Kineto trace of `steps` ProfilerStep#N windows on pid/tid 7. Each step holds aten::mm then
// aten::add (cpu_op); step i takes mm_us + i * 0.5 and add_us + i * 0.25 µs, so the steps differ a
// little; the step lasts mm + add + 100 µs. `rank` adds distributedInfo.
std::string kineto_trace(int steps, double mm_us, double add_us, std::optional<int> rank = std::nullopt) {
  std::ostringstream t;
  t << std::fixed << std::setprecision(3);
  t << "{\"schemaVersion\": 1, \"deviceProperties\": [], \"record_shapes\": 1, ";
  if (rank) {
    t << "\"distributedInfo\": {\"backend\": \"neuron\", \"rank\": " << *rank << ", \"world_size\": 2}, ";
  }
  t << "\"traceEvents\": [\n";
  double ts = 1000.0;
  for (int i = 0; i < steps; ++i) {
    const double mm = mm_us + i * 0.5;
    const double add = add_us + i * 0.25;
    const double step = mm + add + 100.0;
    t << (i == 0 ? "" : ",\n") << R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" << i + 3
      << R"(", "pid": 7, "tid": 7, "ts": )" << ts << ", \"dur\": " << step << "},\n"
      << R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": )" << ts + 10.0
      << ", \"dur\": " << mm << R"(, "args": {"External id": )" << 2 * i + 1
      << R"(, "Input Dims": [[16, 32], [32, 8]], "Input type": ["float", "float"]}},)" << "\n"
      << R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": )" << ts + 20.0 + mm
      << ", \"dur\": " << add << R"(, "args": {"External id": )" << 2 * i + 2
      << R"(, "Input Dims": [[16, 8], [16, 8], []], "Input type": ["float", "float", "Scalar"]}})";
    ts += step + 50.0;
  }
  t << "\n], \"traceName\": \"trace.json\"}\n";
  return t.str();
}

std::string manifest_json(const std::string& compilation_path = "torch.compile", const std::string& cores = "0") {
  return R"({"schema": "neuron-gate.manifest/1", "model_version": "tiny-mlp@1", "compilation_path": ")" +
         compilation_path + R"(", "versions": {"torch": "2.8.0", "torch_neuronx": "2.8.0.2.10"},)" +
         R"( "instance_type": "trn1.2xlarge", "neuron_config": {"modes": ["DEVICE", "RUNTIME"],)" +
         R"( "capture_enabled_for_nc": ")" + cores + R"(", "max_events_per_nc": 1000000},)" +
         R"( "schedule": {"wait": 1, "warmup": 3, "active": 12, "repeat": 1}})" + "\n";
}

// One rank folder: its pid, the base duration of aten::mm in µs, and distributedInfo.rank if any.
struct RankSpec {
  RankSpec(unsigned pid_, double mm_us_ = 100.0, std::optional<int> distributed_rank_ = std::nullopt)
      : pid(pid_), mm_us(mm_us_), distributed_rank(distributed_rank_) {}
  unsigned pid;
  double mm_us;
  std::optional<int> distributed_rank;  // distributedInfo.rank in the trace
};

// One side in the TorchNeuron layout, one rank folder per spec; returns the capture folder of each rank.
std::vector<fs::path> make_neuron_side(const fs::path& side, const std::vector<RankSpec>& ranks,
                                       const std::string& manifest = manifest_json()) {
  std::vector<fs::path> captures;
  for (const RankSpec& rank : ranks) {
    const fs::path capture = side / ("i-0abc123_pid_" + std::to_string(rank.pid)) / "20261130_120000_000";
    write_text(capture / "trace.json", kineto_trace(12, rank.mm_us, 20.0, rank.distributed_rank));
    write_text(capture / "neff_395760075800974_vnc_0.neff", "NEFF compiled graph bytes");
    write_text(capture / "profile_nc_0_session_0.ntff", "NTFF device trace bytes");
    captures.push_back(capture);
  }
  write_text(side / "neuron-gate.json", manifest);
  return captures;
}

// The conditions row of a JSON report with this name, or null.
json condition(const json& report, const std::string& name) {
  for (const json& row : report["conditions"]) {
    if (row["name"] == name) {
      return row;
    }
  }
  return nullptr;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("TorchNeuron layout: two identical captures are comparable and pass") {
  const fs::path dir = scratch("neuron-identical");
  make_neuron_side(dir / "base", {{4242}});
  make_neuron_side(dir / "head", {{5151}});
  const Compared c = compare((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 0);
  CHECK(c.report["outcome"] == "PASS");
  const json artifacts = condition(c.report, "artifacts");
  REQUIRE(artifacts.is_object());
  CHECK(artifacts["base"] == "complete");
  CHECK(artifacts["matches"] == true);
  CHECK(condition(c.report, "neuron_cores")["base"] == "0");
  CHECK(condition(c.report, "manifest.compilation_path")["head"] == "torch.compile");
  CHECK(condition(c.report, "manifest.neuron_config.capture_enabled_for_nc")["matches"] == true);
  // One rank: no rank label in any metric name or in the report.
  CHECK(find_metric(c.report, "self_cpu", "aten::mm").is_object());
  CHECK(find_metric(c.report, "step_time", "step time").is_object());
  CHECK_FALSE(contains(c.result.out, "[rank"));
  const json mm = find_metric(c.report, "self_cpu", "aten::mm");
  CHECK(mm["base"]["n"] == 12);
  CHECK(mm["base"]["median"].get<double>() == doctest::Approx(102.75));
  CHECK_FALSE(mm.contains("rank"));
}

TEST_CASE("TorchNeuron layout: head without its NEFF is not comparable and names the folder and the NEFF") {
  const fs::path dir = scratch("neuron-missing-neff");
  make_neuron_side(dir / "base", {{4242}});
  const fs::path head_capture = make_neuron_side(dir / "head", {{5151}}).front();
  fs::remove(head_capture / "neff_395760075800974_vnc_0.neff");
  const Compared c = compare((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 3);
  CHECK(c.report["outcome"] == "NOT COMPARABLE");
  const json artifacts = condition(c.report, "artifacts");
  REQUIRE(artifacts.is_object());
  CHECK(artifacts["matches"] == false);
  const std::string head = artifacts["head"];
  CHECK(contains(head, "i-0abc123_pid_5151/20261130_120000_000: no NEFF beside the NTFFs of session 0"));
  CHECK(contains(head, "profile_nc_0_session_0.ntff"));
  CHECK(contains(head, "NEFF cache"));
  // The NEFF the base has is named, so the user knows which file to look for, and what to do.
  const std::string note = artifacts["note"];
  CHECK(note == "head lacks NEFFs (the other side has neff_395760075800974_vnc_0.neff): copy them from the NEFF "
                "cache (e.g. /tmp/neff_cache) into the capture folder, or capture with NeuronConfig(neff_cache_dir=...)");
  CHECK(contains(c.result.out, "neff_395760075800974_vnc_0.neff"));
}

TEST_CASE("TorchNeuron layout: a 0-byte NTFF is not comparable and is named") {
  const fs::path dir = scratch("neuron-empty-ntff");
  make_neuron_side(dir / "base", {{4242}});
  const fs::path head_capture = make_neuron_side(dir / "head", {{5151}}).front();
  write_text(head_capture / "profile_nc_0_session_0.ntff", "");
  const Compared c = compare((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 3);
  const std::string head = condition(c.report, "artifacts")["head"];
  CHECK(head == "1 problem: i-0abc123_pid_5151/20261130_120000_000/profile_nc_0_session_0.ntff: 0-byte NTFF: "
                "nothing ran while capturing");
  CHECK(condition(c.report, "artifacts")["note"] ==
        "an incomplete capture is not the same measurement: capture again, or accept the difference with "
        "--allow-mismatch artifacts");
  CHECK(contains(c.result.out, "profile_nc_0_session_0.ntff: 0-byte NTFF"));
}

TEST_CASE("TorchNeuron layout: different capture_enabled_for_nc in the manifests is not comparable") {
  const fs::path dir = scratch("neuron-cores");
  make_neuron_side(dir / "base", {{4242}}, manifest_json("torch.compile", "0"));
  make_neuron_side(dir / "head", {{5151}}, manifest_json("torch.compile", "0,1"));
  const Compared c = compare((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 3);
  const json row = condition(c.report, "manifest.neuron_config.capture_enabled_for_nc");
  REQUIRE(row.is_object());
  CHECK(row["base"] == "0");
  CHECK(row["head"] == "0,1");
  CHECK(row["matches"] == false);
  CHECK(row["note"] == "the run manifests (neuron-gate.json) say the runs were made differently: profile both sides "
                       "the same way, or accept the difference with --allow-mismatch "
                       "manifest.neuron_config.capture_enabled_for_nc");
  CHECK(contains(c.result.out, "manifest.neuron_config.capture_enabled_for_nc"));
}

TEST_CASE("TorchNeuron layout: profiles that differ only in compilation_path are not comparable unless accepted") {
  const fs::path dir = scratch("neuron-compilation-path");
  make_neuron_side(dir / "base", {{4242}}, manifest_json("eager"));
  make_neuron_side(dir / "head", {{5151}}, manifest_json("torch.compile"));
  const Compared refused = compare((dir / "base").string(), (dir / "head").string());
  CHECK(refused.result.exit_code == 3);
  std::vector<std::string> differing;
  for (const json& row : refused.report["conditions"]) {
    if (row["matches"] == false) {
      differing.push_back(row["name"]);
    }
  }
  CHECK(differing == std::vector<std::string>{"manifest.compilation_path"});
  CHECK(contains(refused.result.out, "manifest.compilation_path (base: eager; head: torch.compile)"));

  const Compared accepted = compare((dir / "base").string(), (dir / "head").string(),
                                    {"--allow-mismatch", "manifest.compilation_path"});
  CAPTURE(accepted.result.err);
  CHECK(accepted.result.exit_code == 0);
  const json row = condition(accepted.report, "manifest.compilation_path");
  CHECK(row["accepted"] == true);
  bool listed = false;
  for (const json& line : accepted.report["open_hypotheses"]) {
    listed = listed || contains(line.get<std::string>(),
                                "Accepted difference in `manifest.compilation_path` (base: eager; head: torch.compile)");
  }
  CHECK(listed);
  const std::string markdown = accepted.result.out;
  const auto hypotheses = markdown.find("### Open hypotheses");
  REQUIRE(hypotheses != std::string::npos);
  CHECK(markdown.find("Accepted difference in `manifest.compilation_path`", hypotheses) != std::string::npos);
}

TEST_CASE("TorchNeuron layout: two ranks per side are compared rank to rank and the regressed rank is named") {
  const fs::path dir = scratch("neuron-ranks");
  // Ranks from the folders' pid order: pid 4242 is rank 0, pid 4243 rank 1; head's rank 1 is 1.5x slower in aten::mm.
  make_neuron_side(dir / "base", {{4242, 100.0}, {4243, 100.0}});
  make_neuron_side(dir / "head", {{5151, 100.0}, {5152, 150.0}});
  const Compared c = compare((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 1);
  CHECK(condition(c.report, "ranks")["base"] == "2 (ranks 0, 1)");
  CHECK(condition(c.report, "ranks")["matches"] == true);
  const json rank1 = find_metric(c.report, "self_cpu", "aten::mm [rank 1]");
  const json rank0 = find_metric(c.report, "self_cpu", "aten::mm [rank 0]");
  REQUIRE(rank1.is_object());
  REQUIRE(rank0.is_object());
  CHECK(rank1["verdict"] == "REGRESSED");
  CHECK(rank1["rank"] == 1);
  CHECK(rank0["rank"] == 0);
  CHECK(rank1["base"]["n"] == 12);  // one rank's steps, not both ranks pooled
  CHECK(rank1["head"]["median"].get<double>() == doctest::Approx(152.75));
  CHECK(rank0["verdict"] != "REGRESSED");
  CHECK(rank0["head"]["median"].get<double>() == doctest::Approx(102.75));
  // Family: every op metric of every rank (aten::mm and aten::add, self CPU, 2 ranks).
  CHECK(rank1["family_size"] == 4);
  CHECK(find_metric(c.report, "self_cpu", "aten::mm").is_null());
  CHECK(find_metric(c.report, "step_time", "step time [rank 1]")["head"]["n"] == 12);
  bool named = false;
  for (const json& line : c.report["interpretations"]) {
    const std::string text = line;
    if (contains(text, "REGRESSED")) {
      CHECK(contains(text, "aten::mm [rank 1]"));
      CHECK_FALSE(contains(text, "rank 0"));
      named = true;
    }
  }
  CHECK(named);
  CHECK(contains(c.result.out, "`aten::mm [rank 1]`"));
}

TEST_CASE("TorchNeuron layout: distributedInfo.rank decides the rank over the folder order") {
  const fs::path dir = scratch("neuron-ranks-metadata");
  // Head's pid order is the reverse of its ranks: the slow trace (pid 5151) says rank 1.
  make_neuron_side(dir / "base", {{4242, 100.0, 0}, {4243, 100.0, 1}});
  make_neuron_side(dir / "head", {{5151, 150.0, 1}, {5152, 100.0, 0}});
  const Compared c = compare((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 1);
  CHECK(find_metric(c.report, "self_cpu", "aten::mm [rank 1]")["verdict"] == "REGRESSED");
  CHECK(find_metric(c.report, "self_cpu", "aten::mm [rank 0]")["verdict"] != "REGRESSED");
}

TEST_CASE("TorchNeuron layout: a different number of ranks is not comparable") {
  const fs::path dir = scratch("neuron-rank-count");
  make_neuron_side(dir / "base", {{4242}, {4243}});
  make_neuron_side(dir / "head", {{5151}});
  const Compared c = compare((dir / "base").string(), (dir / "head").string());
  CHECK(c.result.exit_code == 3);
  const json row = condition(c.report, "ranks");
  REQUIRE(row.is_object());
  CHECK(row["base"] == "2 (ranks 0, 1)");
  CHECK(row["head"] == "1 (rank 0)");
  CHECK(contains(c.result.out, "rank to rank"));
}

TEST_CASE("inspect on a TorchNeuron layout lists ranks, captures and the assumptions made") {
  const fs::path dir = scratch("neuron-inspect");
  make_neuron_side(dir / "side", {{4242}, {4243}});
  const CliResult r = run({"inspect", (dir / "side").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "## Ranks"));
  CHECK(contains(r.out, "i-0abc123_pid_4243/20261130_120000_000/trace.json`: rank 1 (from rank folder)"));
  CHECK(contains(r.out, "## Neuron captures"));
  CHECK(contains(r.out, "- `i-0abc123_pid_4242/20261130_120000_000` (process 4242 on i-0abc123): 1 NEFF, 1 NTFF, "
                        "1 framework trace, complete"));
  const auto assumptions = r.out.find("## Assumptions");
  REQUIRE(assumptions != std::string::npos);
  const std::string tail = r.out.substr(assumptions);
  CHECK(contains(tail, "timestamp format (probably YYYYMMDD_HHMMSS_mmm) is undocumented"));
  CHECK(contains(tail, "pairing by folder and NeuronCore is unverified"));
  CHECK(contains(tail, "in order of instance id and pid"));
}

TEST_SUITE_END();
