// End-to-end tests of `neuron-gate compare` on the bundled real profiles and on hand-made TorchNeuron
// layouts (ranks, NEFF/NTFF, run manifest), run in process.
#include "cli_helpers.hpp"
#include "compare/rule_set.hpp"
#include "util/sha256.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

using namespace neuron_gate::testing;
using nlohmann::json;

TEST_SUITE_BEGIN("cli::compare");

TEST_CASE("A vs A2 (same code, independent runs) passes") {
  const Compared c = compare_json(example("A"), example("A2"));
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
  const Compared c = compare_json(example("A"), example("Areg"));
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
  const Compared c = compare_json(example("A"), example("A_sched"));
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
  const Compared c = compare_json(example("A"), example("A_sched"), {"--allow-mismatch", "schedule"});
  CHECK(c.result.exit_code != 3);
  CHECK(c.result.exit_code != 2);
}

TEST_CASE("A vs B (layer_norm instead of separate ops) regresses ~1.47x and reports the replacement") {
  const Compared c = compare_json(example("A"), example("B"));
  CHECK(c.result.exit_code == 1);
  const json latency = find_metric(c.report, "end_to_end", "latency");
  CHECK(latency["verdict"] == "REGRESSED");
  CHECK(latency["ratio"].get<double>() == doctest::Approx(1.47).epsilon(0.03));
  const json layer_norm = find_metric(c.report, "self_cpu", "aten::layer_norm");
  REQUIRE(layer_norm.is_object());
  CHECK(layer_norm["verdict"] == "STRUCTURAL");
  CHECK(layer_norm["present"]["base"] == false);
  const json pow = find_metric(c.report, "self_cpu", "aten::pow");
  CHECK(pow["present"]["head"] == false);
  // The replacement read together (replacement_groups.hpp): the ops that left, the ones that appeared
  // and their summed self CPU time per step (not gating here: the end-to-end latency decides).
  const auto says = [&](const std::string& part) { return c.result.out.find(part) != std::string::npos; };
  CHECK(says("- Replacement (self CPU), read together: 13 ops no longer run (`aten::_to_copy`, "));
  CHECK(says("3 new ops run (`aten::layer_norm`, `aten::native_layer_norm`, `aten::view`; largest "
             "`aten::native_layer_norm`)"));
  CHECK(says("Their summed self CPU time per step: 20.0 µs → 21.0 µs, +5.0% (90% CI -9.2…+16.8%)"));
  const json group = find_metric(c.report, "self_cpu", "replaced ops");
  CHECK(group["scope"] == "replacement group");
  CHECK(group["gating"] == false);
  CHECK(group["replaced"]["appeared"] == json::array({"aten::layer_norm", "aten::native_layer_norm", "aten::view"}));
  CHECK(group["replaced"]["calls_changed"] == json::array({"aten::empty"}));
  CHECK(group["replaced"]["gone"].size() == 13);
  CHECK(c.result.out.find("`aten::layer_norm`") != std::string::npos);
  CHECK(c.result.out.find("disagree") != std::string::npos);
}

TEST_CASE("A vs C (scripted, latency within ±1%) passes and still reports the per-op changes") {
  const Compared c = compare_json(example("A"), example("C"));
  CHECK(c.result.exit_code == 0);
  const json latency = find_metric(c.report, "end_to_end", "latency");
  CHECK(latency["verdict"] == "EQUIVALENT");
  CHECK(latency["ratio"].get<double>() == doctest::Approx(1.0).epsilon(0.01));
  const json forward = find_metric(c.report, "self_cpu", "forward");
  REQUIRE(forward.is_object());
  CHECK(forward["verdict"] == "STRUCTURAL");
  const json add = find_metric(c.report, "self_cpu", "aten::add");
  REQUIRE(add.is_object());
  CHECK(add["head"]["median"].get<double>() > add["base"]["median"].get<double>());
  CHECK(c.result.out.find("`forward`") != std::string::npos);
}

TEST_CASE("K1 -> K2 (ResNet50 captured twice, no end-to-end file) passes and says what it could not decide") {
  const Compared c = compare_json(data("corpus/K1"), data("corpus/K2"));
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  REQUIRE(c.report.is_object());
  CHECK(c.report["gating_classes"] == json::array({"device", "self_cpu"}));
  const std::size_t insufficient = c.report["counts"].value("INSUFFICIENT", std::size_t{0});
  CHECK(insufficient > 0);
  // The counts are in the context line under the headline (issue 16 item 1).
  const std::string top = c.result.out.substr(0, c.result.out.find("\n\n|"));
  CHECK(top.find(" · " + std::to_string(insufficient) + " insufficient") != std::string::npos);
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
    const Compared c = compare_json(path, path);
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
      << R"(, "Input Dims": [[16, 32], [32, 8]], "Input type": ["float", "float"]}},)"
      << "\n"
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

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("TorchNeuron layout: two identical captures are comparable and pass") {
  const fs::path dir = scratch("neuron-identical");
  const fs::path base_capture = make_neuron_side(dir / "base", {{4242}}).front();
  const fs::path head_capture = make_neuron_side(dir / "head", {{5151}}).front();
  // Issue 37 item 3: device activity was captured (the manifest's neuron_config, NTFF files) but the
  // trace.json holds CPU events only, as TorchNeuron writes it: the device's time is unknown, never a pass.
  const Compared unknown = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(unknown.result.out);
  CHECK(unknown.result.exit_code == 0);
  CHECK(unknown.report["outcome"] == "NO DECISION");
  CHECK(contains(unknown.result.out,
                 "## ⚠️ NO DECISION · device time missing on base and head: device activity was "
                 "captured (`manifest neuron_config`) but the profiles hold no device time"));
  // With the device's own numbers beside each trace (neuron-explorer summary-json), the same capture passes.
  for (const fs::path& capture : {base_capture, head_capture}) {
    write_text(capture / "summary.json", R"({"total_time": 0.0123, "total_active_time": 0.0111})");
  }
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
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

// The device's own numbers beside a capture: neuron-explorer summary-json of one execution (seconds).
void add_device_summary(const fs::path& capture) {
  write_text(capture / "summary.json", R"({"total_time": 0.0123, "total_active_time": 0.0111})");
}

TEST_CASE("TorchNeuron layout: every sign of captured device activity without device time is NO DECISION") {
  // Issue 37 item 3: the manifest's profiler activities, its neuron_config, NTFF files; a CPU-only manifest
  // without NTFF files is no such sign and passes.
  const std::string activities = R"({"schema": "neuron-gate.manifest/1", "profiler": {"activities": )";
  const struct {
    std::string manifest;
    bool ntff;
    std::string sign;  // "" = no sign: PASS
  } cases[] = {
      {activities + R"(["ProfilerActivity.CPU", "ProfilerActivity.PrivateUse1"]}})", false,
       "manifest profiler.activities CPU,PrivateUse1"},
      {R"({"schema": "neuron-gate.manifest/1"})", true, "1 NTFF file"},
      {activities + R"(["CPU"]}})", false, ""},
  };
  for (const auto& one : cases) {
    const fs::path dir = scratch("neuron-capture-sign");
    for (const char* side : {"base", "head"}) {
      const fs::path capture = make_neuron_side(dir / side, {{4242}}, one.manifest).front();
      if (!one.ntff) {
        fs::remove(capture / "profile_nc_0_session_0.ntff");
      }
    }
    const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
    CAPTURE(one.sign);
    CAPTURE(c.result.out);
    CHECK(c.result.exit_code == 0);
    if (one.sign.empty()) {
      CHECK(c.report["outcome"] == "PASS");
    } else {
      CHECK(c.report["outcome"] == "NO DECISION");
      CHECK(contains(c.result.out, "device activity was captured (`" + one.sign +
                                       "`) but the profiles hold no "
                                       "device time"));
      CHECK(contains(run({"inspect", (dir / "base").string()}).out,
                     "- device activity captured: " + one.sign + " (but no device time"));
    }
  }
}

TEST_CASE("TorchNeuron layout: NeuronCores selected but not traced are a condition") {
  const fs::path dir = scratch("neuron-core-selection");
  for (const char* side : {"base", "head"}) {
    add_device_summary(make_neuron_side(dir / side, {{4242}}, manifest_json("torch.compile", "1")).front());
  }
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 3);  // the manifest selects NeuronCore 1, the NTFF is core 0's
  const json row = condition(c.report, "neuron_core_selection");
  REQUIRE(row.is_object());
  CHECK(row["base"] == "selected 1, traced 0");
  CHECK(row["matches"] == false);
  CHECK(contains(row["note"].get<std::string>(), "capture_enabled_for_nc"));
  // Selected cores that wrote nothing are idle, not a fault.
  const fs::path wide = scratch("neuron-core-selection-wide");
  for (const char* side : {"base", "head"}) {
    add_device_summary(make_neuron_side(wide / side, {{4242}}, manifest_json("torch.compile", "0-3")).front());
  }
  const Compared w = compare_json((wide / "base").string(), (wide / "head").string());
  CHECK(w.result.exit_code == 0);
  CHECK(condition(w.report, "neuron_core_selection")["base"] == "NeuronCores 0 of 0-3 selected");
  CHECK(condition(w.report, "neuron_core_selection")["matches"] == true);
}

TEST_CASE("TorchNeuron layout: a recompiled executable is stated in the conditions, not refused") {
  const fs::path dir = scratch("neuron-recompiled");
  add_device_summary(make_neuron_side(dir / "base", {{4242}}).front());
  const fs::path head = make_neuron_side(dir / "head", {{5151}}).front();
  add_device_summary(head);
  fs::rename(head / "neff_395760075800974_vnc_0.neff", head / "neff_111_vnc_0.neff");
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 0);
  CHECK(c.report["outcome"] == "PASS");
  const json row = condition(c.report, "neff_hashes");
  REQUIRE(row.is_object());
  CHECK(row["base"] == "395760075800974");
  CHECK(row["head"] == "111");
  CHECK(row["matches"] == true);
  CHECK(row["note"].get<std::string>().rfind("compiled executable changed", 0) == 0);
  CHECK(contains(c.result.out, "`neff_hashes` changed (compiled executable changed; not a condition)"));
}

TEST_CASE("TorchNeuron layout: head without its NEFF is not comparable and names the folder and the NEFF") {
  const fs::path dir = scratch("neuron-missing-neff");
  make_neuron_side(dir / "base", {{4242}});
  const fs::path head_capture = make_neuron_side(dir / "head", {{5151}}).front();
  fs::remove(head_capture / "neff_395760075800974_vnc_0.neff");
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
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
  CHECK(note ==
        "head lacks NEFFs (the other side has neff_395760075800974_vnc_0.neff): copy them from the NEFF "
        "cache (e.g. /tmp/neff_cache) into the capture folder, or capture with NeuronConfig(neff_cache_dir=...)");
  CHECK(contains(c.result.out, "neff_395760075800974_vnc_0.neff"));
}

TEST_CASE("TorchNeuron layout: a 0-byte NTFF is not comparable and is named") {
  const fs::path dir = scratch("neuron-empty-ntff");
  make_neuron_side(dir / "base", {{4242}});
  const fs::path head_capture = make_neuron_side(dir / "head", {{5151}}).front();
  write_text(head_capture / "profile_nc_0_session_0.ntff", "");
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
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
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
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
  const Compared refused = compare_json((dir / "base").string(), (dir / "head").string());
  CHECK(refused.result.exit_code == 3);
  std::vector<std::string> differing;
  for (const json& row : refused.report["conditions"]) {
    if (row["matches"] == false) {
      differing.push_back(row["name"]);
    }
  }
  CHECK(differing == std::vector<std::string>{"manifest.compilation_path"});
  CHECK(contains(refused.result.out, "`manifest.compilation_path` (base: eager; head: torch.compile)"));

  const Compared accepted =
      compare_json((dir / "base").string(), (dir / "head").string(), {"--allow-mismatch", "manifest.compilation_path"});
  CAPTURE(accepted.result.err);
  CHECK(accepted.result.exit_code == 0);
  const json row = condition(accepted.report, "manifest.compilation_path");
  CHECK(row["accepted"] == true);
  bool listed = false;
  for (const json& line : accepted.report["open_hypotheses"]) {
    listed =
        listed || contains(line.get<std::string>(),
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
  // Ranks from distributedInfo.rank (process folders say none); head's rank 1 is 1.5x slower in aten::mm.
  make_neuron_side(dir / "base", {{4242, 100.0, 0}, {4243, 100.0, 1}});
  make_neuron_side(dir / "head", {{5151, 100.0, 0}, {5152, 150.0, 1}});
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CAPTURE(c.result.out);
  // One capture (process) per rank and side: self CPU +50% is not established across runs and lies beyond
  // (1.05)(1.10), so NO DECISION names the rank and asks for runs (docs/decision-rule.md).
  CHECK(c.result.exit_code == 0);
  CHECK(c.report["outcome"] == "NO DECISION");
  CHECK(contains(c.result.out, "NO DECISION · `aten::mm [rank 1]` (self CPU) +48.7%"));
  CHECK(contains(c.result.out, "capture at least 3 runs per side"));
  CHECK(condition(c.report, "ranks")["base"] == "2 (ranks 0, 1)");
  CHECK(condition(c.report, "ranks")["matches"] == true);
  const json rank1 = find_metric(c.report, "self_cpu", "aten::mm [rank 1]");
  const json rank0 = find_metric(c.report, "self_cpu", "aten::mm [rank 0]");
  REQUIRE(rank1.is_object());
  REQUIRE(rank0.is_object());
  CHECK(rank1["verdict"] == "INCONCLUSIVE");
  CHECK(rank1["rank"] == 1);
  CHECK(rank0["rank"] == 0);
  CHECK(rank1["base"]["n"] == 12);  // one rank's steps, not both ranks pooled
  CHECK(rank1["head"]["median"].get<double>() == doctest::Approx(152.75));
  CHECK(rank0["verdict"] == "INCONCLUSIVE");
  CHECK(rank0["head"]["median"].get<double>() == doctest::Approx(102.75));
  // Family: every op metric of every rank (aten::mm and aten::add, self CPU, 2 ranks) and each rank's
  // self CPU total (`all ops [rank N]`), which changes on rank 1 only (+40%).
  CHECK(rank1["family_size"] == 6);
  CHECK(find_metric(c.report, "self_cpu", "all ops [rank 1]")["ratio"].get<double>() > 1.3);
  CHECK(find_metric(c.report, "self_cpu", "all ops [rank 0]")["ratio"].get<double>() < 1.05);
  CHECK(find_metric(c.report, "self_cpu", "aten::mm").is_null());
  CHECK(find_metric(c.report, "step_time", "step time [rank 1]")["head"]["n"] == 12);
}

TEST_CASE("TorchNeuron layout: distributedInfo.rank decides the rank over the folder order") {
  const fs::path dir = scratch("neuron-ranks-metadata");
  // Head's pid order is the reverse of its ranks: the slow trace (pid 5151) says rank 1.
  make_neuron_side(dir / "base", {{4242, 100.0, 0}, {4243, 100.0, 1}});
  make_neuron_side(dir / "head", {{5151, 150.0, 1}, {5152, 100.0, 0}});
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.out);
  CHECK(c.result.exit_code == 0);  // one process per rank: NO DECISION (see above), naming rank 1
  CHECK(contains(c.result.out, "NO DECISION · `aten::mm [rank 1]` (self CPU) +48.7%"));
  CHECK(find_metric(c.report, "self_cpu", "aten::mm [rank 0]")["ratio"].get<double>() < 1.05);
}

TEST_CASE("TorchNeuron layout: a different number of ranks is not comparable") {
  const fs::path dir = scratch("neuron-rank-count");
  make_neuron_side(dir / "base", {{4242, 100.0, 0}, {4243, 100.0, 1}});
  make_neuron_side(dir / "head", {{5151, 100.0, 0}});
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CHECK(c.result.exit_code == 3);
  const json row = condition(c.report, "ranks");
  REQUIRE(row.is_object());
  CHECK(row["base"] == "2 (ranks 0, 1)");
  CHECK(row["head"] == "1 (rank 0)");
  CHECK(contains(c.result.out, "rank to rank"));
}

// Issue 38 item 7: no device column of 0 µs on CPU-only profiles; a side with device time keeps it.
TEST_CASE("inspect's op table has a device column only where the profile holds device time") {
  const CliResult cpu_only = run({"inspect", data("profiles/traces-only/A")});
  CHECK(cpu_only.exit_code == 0);
  CHECK(cpu_only.out.find("| op | self CPU | calls | steps with the op |") != std::string::npos);
  CHECK(cpu_only.out.find("| device |") == std::string::npos);
  const CliResult with_device = run({"inspect", data("bad/screen/base")});
  CHECK(with_device.out.find("| op | self CPU | device | calls | steps with the op |") != std::string::npos);
  CHECK(with_device.out.find("| `aten::mm` | ") != std::string::npos);
}

TEST_CASE("inspect on a TorchNeuron layout lists ranks, captures and the assumptions made") {
  const fs::path dir = scratch("neuron-inspect");
  make_neuron_side(dir / "side", {{4242, 100.0, 0}, {4243, 100.0, 1}});
  const CliResult r = run({"inspect", (dir / "side").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "## Ranks"));
  CHECK(contains(r.out, "i-0abc123_pid_4243/20261130_120000_000/trace.json`: rank 1 (from distributedInfo.rank)"));
  CHECK(contains(r.out, "## Neuron captures"));
  CHECK(contains(r.out, "- `i-0abc123_pid_4242/20261130_120000_000` (process 4242 on i-0abc123): 1 NEFF, 1 NTFF, "
                        "1 framework trace, complete"));
  const auto assumptions = r.out.find("## Assumptions");
  REQUIRE(assumptions != std::string::npos);
  const std::string tail = r.out.substr(assumptions);
  CHECK(contains(tail, "timestamp format (probably YYYYMMDD_HHMMSS_mmm) is undocumented"));
  CHECK(contains(tail, "pairing by folder and NeuronCore is unverified"));
  CHECK_FALSE(contains(tail, "in order of instance id and pid"));  // process folders no longer number ranks
}

TEST_CASE("TorchNeuron layout: process folders without rank marks are runs of one rank") {
  const fs::path dir = scratch("neuron-runs");
  make_neuron_side(dir / "side", {{4242}, {4250}, {4258}});
  const CliResult r = run({"inspect", (dir / "side").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "\n- ranks: 1\n"));
  CHECK(contains(r.out, "\n- runs: 3\n"));
  CHECK_FALSE(contains(r.out, "## Ranks"));
}

// Real traces (tests/data/corpus, see SOURCES.md) copied into process folders: K1 (ResNet50, no rank mark in
// it) and H12 (AlexNet, distributedInfo.rank 0).
TEST_CASE("TorchNeuron layout: several ranks in process folders with no rank mark are an input error") {
  const fs::path dir = scratch("neuron-unmarked-ranks");
  const fs::path k1 = data("corpus/K1/worker0.1623143089861.pt.trace.json.gz");
  for (const char* pid : {"4242", "4243"}) {
    const fs::path capture = dir / "side" / (std::string("i-0abc123_pid_") + pid) / "20261130_120000_000";
    fs::create_directories(capture);
    fs::copy_file(k1, capture / "trace.json.gz");
  }
  write_text(dir / "side" / "neuron-gate.json", R"({"schema": "neuron-gate.manifest/1", "world_size": 2})");
  const CliResult r = run({"inspect", (dir / "side").string()});
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "i-0abc123_pid_4242/20261130_120000_000/trace.json.gz"));
  CHECK(contains(r.err, "the process folder "));
  CHECK(contains(r.err, "i-0abc123_pid_4242 holds a trace that states no rank, but the world size is 2: ranks are "
                        "never pooled, so mark its rank"));
  // The manifest's world_size of 1 (or none): the two folders are two runs of one rank.
  write_text(dir / "side" / "neuron-gate.json", R"({"schema": "neuron-gate.manifest/1", "world_size": 1})");
  const CliResult one = run({"inspect", (dir / "side").string()});
  CAPTURE(one.err);
  CHECK(one.exit_code == 0);
  CHECK(contains(one.out, "\n- runs: 2\n"));
  // The manifest's rank is a mark: rank 3 for every trace of the side.
  write_text(dir / "side" / "neuron-gate.json", R"({"schema": "neuron-gate.manifest/1", "rank": 3})");
  const CliResult marked = run({"inspect", (dir / "side").string()});
  CHECK(marked.exit_code == 0);
  CHECK(contains(marked.out, "trace.json.gz`: rank 3 (from manifest)"));
}

TEST_CASE("TorchNeuron layout: a file name saying rank_1 over distributedInfo.rank 0 is an input error") {
  const fs::path dir = scratch("neuron-conflicting-ranks");
  const fs::path capture = dir / "side" / "i-0abc123_pid_4242" / "20261130_120000_000";
  fs::create_directories(capture);
  fs::copy_file(data("corpus/H12-alexnet.json.gz"), capture / "neuron_framework_trace_rank_1.json.gz");
  const CliResult r = run({"inspect", (dir / "side").string()});
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "neuron_framework_trace_rank_1.json.gz"));
  CHECK(contains(r.err, "conflicting rank marks: distributedInfo.rank says rank 0, file name says rank 1"));
}

TEST_SUITE_END();

// End-to-end files other than e2e.json, and discovery by content, on small profiles written here.
TEST_SUITE_BEGIN("cli::input_formats");

namespace {

void write_input(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

bool has_text(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A file of the JSON report's provenance with this kind and detail.
bool has_file(const json& report, const std::string& kind, const std::string& detail) {
  for (const json& file : report["provenance"]["files"]) {
    if (file["kind"] == kind && file["detail"].is_string() && file["detail"] == detail) {
      return true;
    }
  }
  return false;
}

// A small deterministic spread around 1: 1 + ((i * 7) % 10 - 4.5) * 0.002, i.e. within ±1%.
double jitter(int i) {
  return 1.0 + (static_cast<double>((i * 7) % 10) - 4.5) * 0.002;
}

// Google Benchmark JSON of one benchmark with `repetitions` per-repetition entries (real_time ~ `real_us`),
// then the mean aggregate, which the reader ignores.
std::string google_benchmark_json(const std::string& name, int repetitions, double real_us) {
  std::ostringstream t;
  t << std::setprecision(10);
  t << "{\"context\": {\"date\": \"2026-01-01T00:00:00+00:00\", \"num_cpus\": 8, \"library_version\": \"v1.8.3\"},\n"
       " \"benchmarks\": [\n";
  for (int i = 0; i < repetitions; ++i) {
    t << "  {\"name\": \"" << name << "\", \"run_name\": \"" << name << "\", \"run_type\": \"iteration\", "
      << "\"repetitions\": " << repetitions << ", \"repetition_index\": " << i << ", \"iterations\": 1000, "
      << "\"real_time\": " << real_us * jitter(i) << ", \"cpu_time\": " << real_us * jitter(i + 3)
      << ", \"time_unit\": \"us\"},\n";
  }
  t << "  {\"name\": \"" << name << "_mean\", \"run_name\": \"" << name << "\", \"run_type\": \"aggregate\", "
    << "\"aggregate_name\": \"mean\", \"real_time\": " << real_us << ", \"cpu_time\": " << real_us
    << ", \"time_unit\": \"us\"}\n ]}\n";
  return t.str();
}

// hyperfine JSON with one entry per command, `runs` times each (seconds ~ `seconds`).
std::string hyperfine_json(const std::vector<std::string>& commands, int runs, double seconds) {
  std::ostringstream t;
  t << std::setprecision(10) << "{\"results\": [";
  for (std::size_t c = 0; c < commands.size(); ++c) {
    t << (c == 0 ? "" : ",") << "\n {\"command\": \"" << commands[c] << "\", \"mean\": " << seconds << ", \"times\": [";
    for (int i = 0; i < runs; ++i) {
      t << (i == 0 ? "" : ", ") << seconds * jitter(i + static_cast<int>(c));
    }
    t << "]}";
  }
  t << "\n]}\n";
  return t.str();
}

// neuron-explorer summary-json of one execution (times in seconds; a value may be the bare token NaN).
std::string neuron_summary_json(const std::string& total_time, const std::string& total_active_time,
                                double tensor_active) {
  std::ostringstream t;
  t << std::setprecision(10);
  t << "{\"metadata\": {\"explorer_version\": \"2.21.0\", \"profile_schema_version\": \"1.2.0\"},\n"
    << " \"total_time\": " << total_time << ", \"total_active_time\": " << total_active_time
    << ", \"tensor_engine_active_time\": " << tensor_active << ", \"tensor_engine_active_time_percent\": 0.56}\n";
  return t.str();
}

std::string seconds_text(double value) {
  std::ostringstream t;
  t << std::setprecision(10) << value;
  return t.str();
}

// `count` summary files under `dir`: total_time ~ total_s, total_active_time 90% of it, tensor 55%.
void write_neuron_side(const std::filesystem::path& dir, int count, double total_s) {
  for (int i = 0; i < count; ++i) {
    const double total = total_s * jitter(i);
    write_input(dir / ("exec-" + std::to_string(i) + ".json"),
                neuron_summary_json(seconds_text(total), seconds_text(total * 0.9), total * 0.55));
  }
}

}  // namespace

TEST_CASE("Google Benchmark with repetitions: head 20% slower regresses and names the benchmark") {
  const std::filesystem::path dir = scratch("gbench");
  write_input(dir / "base" / "bench.json", google_benchmark_json("BM_Infer/512", 10, 250.0));
  write_input(dir / "head" / "bench.json", google_benchmark_json("BM_Infer/512", 10, 300.0));
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 1);
  CHECK(c.report["outcome"] == "REGRESSION");
  CHECK(c.report["gating_classes"] == json::array({"end_to_end"}));
  const json real = find_metric(c.report, "end_to_end", "BM_Infer/512 real_time");
  REQUIRE(real.is_object());
  CHECK(real["verdict"] == "REGRESSED");
  CHECK(real["gating"] == true);
  CHECK(real["unit"] == "us");
  CHECK(real["base"]["n"] == 10);
  CHECK(real["head"]["n"] == 10);
  CHECK(real["base"]["median"].get<double>() == doctest::Approx(250.0).epsilon(0.01));
  CHECK(real["ratio"].get<double>() == doctest::Approx(1.2).epsilon(0.01));
  CHECK(find_metric(c.report, "end_to_end", "BM_Infer/512 cpu_time")["verdict"] == "REGRESSED");
  CHECK(has_text(c.result.out, "`BM_Infer/512 real_time` (end-to-end) REGRESSED"));
  CHECK(has_file(c.report, "Google Benchmark JSON", "2 metrics"));  // the file list is in JSON/HTML (issue 16 item 3)
}

TEST_CASE("hyperfine with two commands, both sides equal: one metric per command, exit 0") {
  const std::filesystem::path dir = scratch("hyperfine");
  const std::vector<std::string> commands{"python infer.py --seq 512", "python infer.py --seq 1024"};
  write_input(dir / "base" / "timings.json", hyperfine_json(commands, 10, 2.4));
  write_input(dir / "head" / "timings.json", hyperfine_json(commands, 10, 2.4));
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  CHECK(c.report["outcome"] == "PASS");
  for (const std::string& command : commands) {
    CAPTURE(command);
    const json metric = find_metric(c.report, "end_to_end", command);
    REQUIRE(metric.is_object());
    CHECK(metric["verdict"] == "EQUIVALENT");
    CHECK(metric["unit"] == "s");
    CHECK(metric["ratio"].get<double>() == doctest::Approx(1.0));
    CHECK(metric["base"]["n"] == 10);
  }
}

TEST_CASE("pytest-benchmark saved without --benchmark-save-data is an input error that says so") {
  const std::filesystem::path dir = scratch("pytest-nodata");
  std::filesystem::create_directories(dir / "base");
  std::filesystem::copy_file(data("formats/pytest-benchmark-without-data.json"), dir / "base" / "0001.json");
  const CliResult r = run({"compare", (dir / "base").string(), (dir / "base").string(), "--quiet", "--no-git"});
  CHECK(r.exit_code == 2);
  CHECK(has_text(r.err, "0001.json"));
  CHECK(has_text(r.err, "--benchmark-save-data"));
}

TEST_CASE("Neuron summaries, head device total_time 10% slower: REGRESSED and the Explorer version reported") {
  const std::filesystem::path dir = scratch("neuron-summary");
  write_neuron_side(dir / "base", 8, 0.0170);
  write_neuron_side(dir / "head", 8, 0.0187);
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 1);
  const json total = find_metric(c.report, "end_to_end", "device total_time");
  REQUIRE(total.is_object());
  CHECK(total["verdict"] == "REGRESSED");
  CHECK(total["gating"] == true);
  CHECK(total["family"] == "end-to-end");
  CHECK(total["unit"] == "ms");
  CHECK(total["base"]["n"] == 8);
  CHECK(total["base"]["median"].get<double>() == doctest::Approx(17.0).epsilon(0.01));
  CHECK(total["ratio"].get<double>() == doctest::Approx(1.1).epsilon(0.01));
  // Active times explain; they are measured and judged, never gating by default.
  const json active = find_metric(c.report, "end_to_end", "device total_active_time");
  REQUIRE(active.is_object());
  CHECK(active["gating"] == false);
  CHECK(active["family"] == "device summary");
  CHECK(active["verdict"] == "REGRESSED");
  CHECK(find_metric(c.report, "end_to_end", "device tensor_engine_active_time")["gating"] == false);
  CHECK(c.report["gating_classes"] == json::array({"end_to_end"}));
  CHECK(has_text(c.result.out, "`device total_time` (end-to-end) REGRESSED"));
  CHECK(has_text(c.result.out, "Neuron device summary (explains; not gating): `device total_active_time` REGRESSED"));
  CHECK(
      has_file(c.report, "Neuron summary JSON", "explorer_version 2.21.0, profile_schema_version 1.2.0; 1 execution"));
  const json files = c.report["provenance"]["files"];
  REQUIRE(files.size() == 16);
  CHECK(files[0]["kind"] == "Neuron summary JSON");
  CHECK(files[0]["detail"] == "explorer_version 2.21.0, profile_schema_version 1.2.0; 1 execution");
}

TEST_CASE("device total_time does not gate beside the application's own end-to-end numbers") {
  const std::filesystem::path dir = scratch("neuron-summary-e2e");
  write_neuron_side(dir / "base", 8, 0.0170);
  write_neuron_side(dir / "head", 8, 0.0187);
  std::filesystem::copy_file(example("A") + "/e2e.json", dir / "base" / "e2e.json");
  std::filesystem::copy_file(example("A2") + "/e2e.json", dir / "head" / "e2e.json");
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  const json total = find_metric(c.report, "end_to_end", "device total_time");
  REQUIRE(total.is_object());
  CHECK(total["verdict"] == "REGRESSED");
  CHECK(total["gating"] == false);
  CHECK(total["family"] == "device summary");
  CHECK(find_metric(c.report, "end_to_end", "latency")["gating"] == true);
  CHECK(has_text(c.result.out, "Neuron device summary (explains; not gating): `device total_time` REGRESSED"));
}

TEST_CASE("a Neuron summary with NaN: the field is skipped with a warning, never a NaN number") {
  const std::filesystem::path dir = scratch("neuron-nan");
  write_neuron_side(dir / "base", 6, 0.0170);
  write_neuron_side(dir / "head", 6, 0.0170);
  write_input(dir / "head" / "exec-5.json", neuron_summary_json("0.0171", "NaN", 0.0094));
  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CAPTURE(c.result.err);
  CHECK(c.result.exit_code == 0);
  const json active = find_metric(c.report, "end_to_end", "device total_active_time");
  REQUIRE(active.is_object());
  CHECK(active["base"]["n"] == 6);
  CHECK(active["head"]["n"] == 5);
  CHECK(find_metric(c.report, "end_to_end", "device total_time")["head"]["n"] == 6);
  const std::string warning =
      "head: exec-5.json: no value (NaN, Infinity or null) for `total_active_time`: skipped, not counted as 0";
  CHECK(c.report["provenance"]["warnings"] == json::array({warning}));
  CHECK(has_text(c.result.out, "- ⚠️ " + warning));
  // The only NaN in the report is the warning's word; the JSON report parsed, so it holds no NaN number.
  CHECK(c.result.out.find("NaN") == c.result.out.rfind("NaN"));
  CHECK_FALSE(has_text(c.result.out, " nan"));
  const CliResult inspect = run({"inspect", (dir / "head").string()});
  CHECK(inspect.exit_code == 0);
  CHECK(has_text(inspect.out, "- exec-5.json: no value (NaN, Infinity or null) for `total_active_time`"));
}

TEST_CASE("unknown JSON is listed as ignored with its reason in inspect and in the Provenance") {
  const std::filesystem::path dir = scratch("unknown-json");
  const std::vector<std::string> commands{"./bench"};
  for (const char* side : {"base", "head"}) {
    write_input(dir / side / "timings.json", hyperfine_json(commands, 10, 1.5));
    write_input(dir / side / "config.json", "{\"model\": \"llama\", \"layers\": 4}\n");
  }
  const std::string reason = "JSON that neuron-gate does not read: top-level keys \"model\", \"layers\" (not a "
                             "trace, e2e.json, manifest, benchmark-tool or Neuron summary JSON)";
  const CliResult inspect = run({"inspect", (dir / "base").string()});
  CAPTURE(inspect.err);
  CHECK(inspect.exit_code == 0);
  CHECK(has_text(inspect.out, "- `config.json` (32 bytes): ignored — " + reason));
  CHECK(has_text(inspect.out, "- `timings.json` ("));
  CHECK(has_text(inspect.out, " bytes): hyperfine JSON (1 metric)"));

  const Compared c = compare_json((dir / "base").string(), (dir / "head").string());
  CHECK(c.result.exit_code == 0);
  CHECK(has_text(c.result.out, "1 files read, 1 ignored") == false);
  CHECK(has_text(c.result.out, "2 files read, 2 ignored"));
  CHECK(has_text(c.result.out, "- 2 files read, 2 ignored — full list in the HTML/JSON report"));
  bool listed = false;
  for (const json& file : c.report["provenance"]["files"]) {
    if (file["side"] == "head" && file["path"] == "config.json") {
      listed = true;
      CHECK(file["kind"] == "ignored");
      CHECK(file["ignored_reason"] == reason);
      CHECK(file["sha256"].is_null());
    }
  }
  CHECK(listed);
}

TEST_CASE("a Kineto trace named foo.txt is recognised by its content and read") {
  const std::filesystem::path dir = scratch("trace-as-txt");
  std::filesystem::path trace;
  for (const auto& entry : std::filesystem::directory_iterator(example("A") + "/run-01")) {
    if (entry.path().string().ends_with(".pt.trace.json")) {
      trace = entry.path();
      break;
    }
  }
  REQUIRE_FALSE(trace.empty());
  std::filesystem::create_directories(dir / "side");
  std::filesystem::copy_file(trace, dir / "side" / "foo.txt");
  const CliResult r = run({"inspect", (dir / "side").string()});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(has_text(r.out, "- `foo.txt` (" + std::to_string(std::filesystem::file_size(trace)) + " bytes): trace\n"));
  CHECK(has_text(r.out, "| `aten::pow` |"));
  CHECK(has_text(r.out, "- traces: 1"));
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("cli::calibrate");

namespace {

struct Calibrated {
  CliResult result;
  json calibration;
};

Calibrated calibrate(const std::string& profile, std::vector<std::string> extra = {}) {
  const auto dir = scratch("calibrate");
  const std::string json_path = (dir / "calibration.json").string();
  std::vector<std::string> args{"calibrate", profile, "--json", json_path};
  args.insert(args.end(), extra.begin(), extra.end());
  Calibrated calibrated;
  calibrated.result = run(args);
  if (std::filesystem::exists(json_path)) {
    calibrated.calibration = json::parse(read_text(json_path));
  }
  return calibrated;
}

// Rules under which the per-op metrics decide, though the examples carry end-to-end numbers.
std::string per_op_gate_rules() {
  const auto path = scratch("per-op-rules") / "rules.json";
  std::ofstream(path) << R"({"metrics": {"end_to_end": {"gate": "never"}, "self_cpu": {"gate": "always"}}})";
  return path.string();
}

// A profile of the first `runs` runs of example A (no end-to-end file).
std::string first_runs_of_a(std::size_t runs) {
  const auto dir = scratch("a-first-runs-" + std::to_string(runs));
  for (std::size_t r = 1; r <= runs; ++r) {
    const std::string name = std::string("run-0") + std::to_string(r);
    std::filesystem::copy(example("A") + "/" + name, dir / name, std::filesystem::copy_options::recursive);
  }
  return dir.string();
}

}  // namespace

// Measured: 0 of 200 splits fail the gate (95% CI 0 to 1.83%), with the end-to-end latency
// deciding (default rules) and with the per-op self CPU times deciding, under both units.
TEST_CASE("calibrate on example A measures a false-alarm rate of 0 of 200 splits (within alpha 0.05)") {
  const Calibrated c = calibrate(example("A"));
  CAPTURE(c.result.err);
  REQUIRE(c.result.exit_code == 0);
  const json& j = c.calibration;
  CHECK(j["schema"] == "neuron-gate.calibration/1");
  CHECK(j["unit"] == "step");
  CHECK(j["split_by"] == "runs");
  CHECK(j["runs"] == 10);
  CHECK(j["traces"] == 80);
  CHECK(j["halves"] == json::array({5, 5}));
  CHECK(j["splits"] == 200);
  CHECK(j["gating_classes"] == json::array({"end_to_end"}));
  CHECK(j["failing_splits"] == 0);
  CHECK(j["false_alarm_rate"]["estimate"].get<double>() <= j["alpha"].get<double>());
  CHECK(j["false_alarm_rate"]["estimate"] == 0.0);
  CHECK(j["false_alarm_rate"]["ci95"][1].get<double>() == doctest::Approx(0.018275340355136283).epsilon(1e-9));
  CHECK(c.result.out.rfind("## neuron-gate calibrate\n", 0) == 0);
  CHECK(has_text(c.result.out, "**False-alarm rate: 0%** (0 of 200 splits would fail the gate; 95% CI 0%–1.83%"));
  // The same seed gives the same output.
  CHECK(run({"calibrate", example("A")}).out == c.result.out);

  for (const std::string unit : {"step", "run"}) {
    CAPTURE(unit);
    const Calibrated per_op = calibrate(example("A"), {"--rules", per_op_gate_rules(), "--unit", unit});
    REQUIRE(per_op.result.exit_code == 0);
    CHECK(per_op.calibration["unit"] == unit);
    CHECK(per_op.calibration["gating_classes"] == json::array({"self_cpu"}));
    // 0 of 200 under both units (the 3-cycle examples of 2026-11 gave 4 of 200 per run: 2%, within
    // alpha). The material family (issue 14) holds at most 12 ops and the self CPU total, so 5 vs 5 runs
    // (p >= 1/252) can decide them.
    CHECK(per_op.calibration["failing_splits"] == 0);
    CHECK(per_op.calibration["false_alarm_rate"]["estimate"].get<double>() <= 0.05);
    CHECK(per_op.calibration["gating_never_decidable"] == 0);
  }
}

TEST_CASE("calibrate on example A lists a noise floor per op next to its threshold") {
  const Calibrated c = calibrate(example("A"));
  REQUIRE(c.result.exit_code == 0);
  json pow, latency;
  for (const json& m : c.calibration["metrics"]) {
    if (m["class"] == "self_cpu" && m["name"] == "aten::pow") {
      pow = m;
    }
    if (m["class"] == "end_to_end" && m["name"] == "latency") {
      latency = m;
    }
  }
  REQUIRE(pow.is_object());
  REQUIRE(latency.is_object());
  CHECK(pow["threshold"] == 0.05);
  CHECK(pow["splits_with_ratio"] == 200);
  CHECK(pow["noise_floor"].get<double>() == doctest::Approx(0.179725).epsilon(1e-5));
  CHECK(pow["threshold_below_noise"] == true);
  CHECK(latency["gating"] == true);
  // e2e.json holds 10 runs of 20 samples: the halvings split runs, so the noise floor is run-to-run noise.
  CHECK(latency["within_process"] == false);
  CHECK(latency["noise_floor"].get<double>() == doctest::Approx(0.0209).epsilon(0.01));
  CHECK(latency["threshold_below_noise"] == false);
  CHECK(has_text(c.result.out, "| `latency` | end-to-end | yes | 5% | 2.09% |"));
  CHECK(has_text(c.result.out, "| `aten::pow` | self CPU | no | 5% | 18% |"));
}

TEST_CASE("compare --unit run and --unit step: A vs Areg regresses and A vs A2 passes") {
  for (const std::string unit : {"step", "run"}) {
    CAPTURE(unit);
    for (const std::vector<std::string>& rules : {std::vector<std::string>{}, {"--rules", per_op_gate_rules()}}) {
      std::vector<std::string> extra{"--unit", unit};
      extra.insert(extra.end(), rules.begin(), rules.end());
      const Compared regression = compare_json(example("A"), example("Areg"), extra);
      CAPTURE(regression.result.err);
      // With the latency deciding, Areg regresses; with per-op gating alone too (issues 12 and 14): its
      // extra work is in ops whose calls per step change (STRUCTURAL, judged through the replacement
      // group), and the group is REGRESSED under both units (1.429x per step, 1.422x per run).
      CHECK(regression.result.exit_code == 1);
      CHECK(regression.report["rules"]["unit"] == unit);
      const json div = find_metric(regression.report, "self_cpu", "aten::div_");
      REQUIRE(div.is_object());
      CHECK(div["verdict"] == "STRUCTURAL");
      CHECK(div["base"]["n"] == (unit == "run" ? 10 : 70));  // 7 of each run's 8 cycles: the first is warm-up
      const json group = find_metric(regression.report, "self_cpu", "replaced ops");
      REQUIRE(group.is_object());
      CHECK(group["verdict"] == "REGRESSED");
      CHECK(group["ratio"].get<double>() == doctest::Approx(unit == "run" ? 1.4221 : 1.4286).epsilon(1e-3));
      const Compared same = compare_json(example("A"), example("A2"), extra);
      CAPTURE(same.result.err);
      CHECK(same.result.exit_code == 0);
    }
  }
  const CliResult markdown = run({"compare", example("A"), example("A2"), "--unit", "run", "--no-git"});
  CHECK(has_text(markdown.out, "; unit: run (one sample per run: the median of its steps)\n"));
}

TEST_CASE("the rules key unit sets the unit and --unit overrides it") {
  const auto path = scratch("unit-rules") / "rules.json";
  std::ofstream(path) << R"({"unit": "run"})";
  CHECK(compare_json(example("A"), example("A2"), {"--rules", path.string()}).report["rules"]["unit"] == "run");
  CHECK(
      compare_json(example("A"), example("A2"), {"--rules", path.string(), "--unit", "step"}).report["rules"]["unit"] ==
      "step");
  std::ofstream(path) << R"({"unit": "runs"})";
  const CliResult bad = run({"compare", example("A"), example("A2"), "--rules", path.string()});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "neuron-gate: error: " + path.string() + ": \"unit\" must be \"step\" or \"run\", not \"runs\"\n");
}

TEST_CASE("the report's rules block is the rules applied after --unit, hashed as applied") {
  const Compared by_step = compare_json(example("A"), example("A2"), {"--unit", "step"});
  const Compared by_run = compare_json(example("A"), example("A2"), {"--unit", "run"});
  CHECK(by_step.report["rules"]["unit"] == "step");
  CHECK(by_run.report["rules"]["unit"] == "run");
  // Same rules file, different rules applied: different hashes, each the hash of the applied rules.
  CHECK(by_step.report["rules"]["sha256"] != by_run.report["rules"]["sha256"]);
  neuron_gate::RuleSet rules = neuron_gate::default_rules();
  rules.unit = neuron_gate::SampleUnit::run;
  CHECK(by_run.report["rules"]["sha256"] == neuron_gate::sha256_hex(neuron_gate::applied_rules_json(rules)));
  CHECK(by_run.report["rules"]["gates"]["step_time"] == "never");
  CHECK(by_run.report["rules"]["ops"] == json::array());
}

TEST_CASE("compare warns when a gating threshold sits below the noise within base") {
  const Compared c = compare_json(example("A"), example("A2"), {"--rules", per_op_gate_rules()});
  REQUIRE(c.result.exit_code == 0);
  std::string warning;
  for (const json& line : c.report["open_hypotheses"]) {
    if (line.get<std::string>().find("threshold below the noise within base") != std::string::npos) {
      warning = line.get<std::string>();
    }
  }
  CHECK(warning.rfind("4 gating metrics have their threshold below the noise within base (95th percentile of "
                      "|ratio − 1| over 20 random halvings of base's 10 runs, seed 20240601): ",
                      0) == 0);
  CHECK(has_text(warning, "`aten::pow` self CPU threshold 5%, noise 25%"));
  CHECK(has_text(warning, "`all ops` self CPU threshold 5%, noise 13.3%"));
  // Default rules: the end-to-end latency decides, and its threshold is above its noise.
  Compared defaults = compare_json(example("A"), example("A2"));  // a named object: a range-for over a
                                                                  // temporary's member used it after free
  for (const json& line : defaults.report["open_hypotheses"]) {
    CHECK(line.get<std::string>().find("threshold below the noise") == std::string::npos);
  }
}

TEST_CASE("unit run with 2 runs on a side is a usage error naming the side and its run count") {
  const std::string two = first_runs_of_a(2);
  const CliResult r = run({"compare", two, example("A2"), "--unit", "run", "--quiet", "--no-git", "--allow-mismatch",
                           "traces", "--allow-mismatch", "end_to_end_metrics"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "neuron-gate: error: " + two +
                     ": unit \"run\" needs at least 3 runs (folders of traces) per side; base has 2 runs of 14 traces "
                     "(use --unit step)\n");
  const CliResult calibrated = run({"calibrate", first_runs_of_a(5), "--unit", "run"});
  CHECK(calibrated.exit_code == 2);
  CHECK(has_text(calibrated.err, ": unit \"run\" needs at least 6 runs (folders of traces) to calibrate, 3 per half; "
                                 "found 5 runs (use --unit step)\n"));
}

TEST_CASE("calibrate usage errors exit 2 and name the profile") {
  // One run of 3 traces: too few runs and too few traces to halve (one run of 8 traces is split by trace).
  const auto one = scratch("a-one-run-3-traces") / "run-01";
  std::filesystem::create_directories(one);
  std::vector<std::filesystem::path> traces;
  for (const auto& entry : std::filesystem::directory_iterator(example("A") + "/run-01")) {
    if (entry.path().string().ends_with(".pt.trace.json")) {
      traces.push_back(entry.path());
    }
  }
  std::sort(traces.begin(), traces.end());
  REQUIRE(traces.size() == 8);
  for (std::size_t t = 0; t < 3; ++t) {
    std::filesystem::copy_file(traces[t], one / traces[t].filename());
  }
  const CliResult few = run({"calibrate", one.parent_path().string()});
  CHECK(few.exit_code == 2);
  CHECK(few.err == "neuron-gate: error: " + one.parent_path().string() +
                       ": calibration needs at least 4 runs (folders of traces) or 4 traces to split into two halves; "
                       "found 1 run of 3 traces\n");
  CHECK(run({"calibrate", first_runs_of_a(1)}).exit_code == 0);  // 8 traces: halved by trace
  CHECK(run({"calibrate", example("A"), "--splits", "0"}).exit_code == 2);
  CHECK(run({"calibrate", example("A"), "--unit", "steps"}).exit_code == 2);
  CHECK(run({"calibrate", example("A") + "/missing"}).exit_code == 2);
  CHECK(run({"calibrate"}).exit_code == 2);
}

TEST_CASE("one trace per side with nothing decidable is NO DECISION: exit 0, 4 under --strict, never a tick") {
  // One trace of A and one of Areg: every gating per-op metric has 1 vs 1 samples.
  const std::string base = example("A/run-10/vm_4489.1796188477455.pt.trace.json");
  const std::string head = example("Areg/run-10/vm_4574.1796188479450.pt.trace.json");
  const Compared c = compare_json(base, head);
  CHECK(c.result.exit_code == 0);
  CHECK(c.report["verdict"] == "no-decision");
  CHECK(c.report["outcome"] == "NO DECISION");
  CHECK(c.report["exit_code"] == 0);
  const std::string headline = c.report["verdict_line"].get<std::string>();
  CHECK(headline.rfind("⚠️ NO DECISION · `", 0) == 0);
  // Every change is one timer quantum (1 µs): nothing is a likely regression, and nothing is decided.
  CHECK(has_text(headline, "too few samples to decide; needs about 5 samples per side at this noise (has 1 / 1)"));
  CHECK_FALSE(has_text(headline, "✅"));
  const CliResult markdown = run({"compare", base, head, "--no-git"});
  CHECK(markdown.exit_code == 0);
  CHECK(markdown.out.rfind("## ⚠️ NO DECISION · ", 0) == 0);
  const Compared strict = compare_json(base, head, {"--strict"});
  CHECK(strict.result.exit_code == 4);
  CHECK(strict.report["verdict"] == "no-decision");
  CHECK(strict.report["exit_code"] == 4);
  // Where a side has one trace base's A/A noise cannot be estimated, and the report says so.
  bool said = false;
  for (const json& line : c.report["open_hypotheses"]) {
    said = said || has_text(line.get<std::string>(), "the thresholds and the floor decide alone");
  }
  CHECK(said);
}

TEST_CASE("beside a pass, a regressed row that does not gate says so — under a regression it does not") {
  // A -> Areg with latency waived: the outcome rests on the waived latency, so the per-op rows only explain.
  const CliResult waived = run({"compare", example("A"), example("Areg"), "--no-git", "--format", "terminal", "--rules",
                                data("rules/waive-latency.json"), "--today", "2026-01-15"});
  CHECK(waived.exit_code == 0);
  CHECK(waived.out.find("✅ PASS · 1 regression waived") == 0);
  CHECK(waived.out.find("profiled step time          +23.7%  42.5 µs → 51.0 µs  regressed, not gating") !=
        std::string::npos);
  CHECK(waived.out.find("`rmsnorm_step` self CPU     +26.7%  14.5 µs → 18.0 µs  regressed, not gating") !=
        std::string::npos);
  const CliResult failed = run({"compare", example("A"), example("Areg"), "--no-git", "--format", "terminal"});
  CHECK(failed.exit_code == 1);
  CHECK(failed.out.find("profiled step time          +23.7%  42.5 µs → 51.0 µs  regressed\n") != std::string::npos);
  CHECK(failed.out.find("not gating") == std::string::npos);
}

TEST_SUITE_END();

TEST_CASE("--comment-key puts the key in the marker line — a bad key is a usage error before any work") {
  const std::string base = example("A"), head = example("Areg");
  const CliResult keyed = run({"compare", base, head, "--no-git", "--comment-key", "resnet50.bs-8_fp16"});
  CHECK(keyed.exit_code == 1);
  const std::string last = "\n<!-- neuron-gate key=resnet50.bs-8_fp16 -->\n";
  REQUIRE(keyed.out.size() > last.size());
  CHECK(keyed.out.substr(keyed.out.size() - last.size()) == last);
  CHECK(keyed.out.find("<!-- neuron-gate -->") == std::string::npos);
  const CliResult plain = run({"compare", base, head, "--no-git"});
  CHECK(plain.out.substr(plain.out.size() - 22) == "\n<!-- neuron-gate -->\n");
  for (const std::string& bad : std::vector<std::string>{"a b", "x-->", std::string(65, 'k'), "k\n<!--"}) {
    const CliResult r = run({"compare", base, head, "--no-git", "--comment-key", bad});
    CAPTURE(bad);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("neuron-gate: error: --comment-key: a comment key ", 0) == 0);
  }
}

TEST_CASE("--format terminal prints the compact summary (no colour off a terminal) — none prints nothing") {
  const std::string base = example("A"), head = example("Areg");
  const std::string html = (std::filesystem::temp_directory_path() / "neuron-gate-format-terminal.html").string();
  const CliResult t = run({"compare", base, head, "--no-git", "--format", "terminal", "--html", html});
  CHECK(t.exit_code == 1);
  CHECK(t.out.rfind("❌ REGRESSION: `latency` +38.4% (90% CI +36.4…+40.5%, threshold 5%)\n", 0) == 0);
  CHECK(t.out.find("  `latency`") != std::string::npos);
  CHECK(t.out.find("11.8 µs → 16.3 µs  regressed") != std::string::npos);
  CHECK(t.out.find("Full reports: " + html + "\n") != std::string::npos);
  CHECK(t.out.find('\x1b') == std::string::npos);  // stdout is a pipe here: no colour
  CHECK(t.out.find("### ") == std::string::npos);  // not the Markdown
  const CliResult none = run({"compare", base, head, "--no-git", "--format", "none"});
  CHECK(none.exit_code == 1);
  CHECK(none.out.empty());
  const CliResult markdown = run({"compare", base, head, "--no-git", "--format", "markdown"});
  CHECK(markdown.out.rfind("## ❌ REGRESSION: ", 0) == 0);
  CHECK(run({"compare", base, head, "--format", "html"}).exit_code == 2);
}

TEST_CASE("head regrouped into fewer processes than base is NOT COMPARABLE, not a looser PASS") {
  // A head that moves its own files into fewer run folders (or merges its e2e.json runs into one list)
  // would be judged by the looser bound of 1-2 processes a side: evidence the PR controls fails closed.
  const fs::path dir = scratch("fewer-processes");
  const fs::path areg = example("Areg");
  fs::create_directories(dir / "one" / "run-01");
  for (const auto& run : fs::directory_iterator(areg)) {
    if (run.is_directory()) {
      for (const auto& file : fs::directory_iterator(run.path())) {
        fs::copy(file.path(),
                 dir / "one" / "run-01" / (run.path().filename().string() + "-" + file.path().filename().string()));
      }
    }
  }
  json e2e = json::parse(read_text((areg / "e2e.json").string()));
  for (json& metric : e2e["metrics"]) {
    json samples = json::array();
    for (const json& run : metric["runs"]) {
      samples.insert(samples.end(), run.begin(), run.end());
    }
    metric.erase("runs");
    metric["samples"] = samples;
  }
  write_text(dir / "one" / "e2e.json", e2e.dump());
  const Compared one = compare_json(example("A"), (dir / "one").string());
  CAPTURE(one.result.out);
  CHECK(one.result.exit_code == 3);
  const json row = condition(one.report, "processes");
  REQUIRE(row.is_object());
  CHECK(row["base"] == "10 run folders of traces, end-to-end from 10 runs");
  CHECK(row["head"] == "1 run folder of traces, end-to-end from 1 run");
  CHECK(row["matches"] == false);
  // Only the e2e runs merged: still fewer processes end to end.
  fs::copy(areg, dir / "e2e-merged", fs::copy_options::recursive);
  write_text(dir / "e2e-merged" / "e2e.json", e2e.dump());
  CHECK(compare_json(example("A"), (dir / "e2e-merged").string()).result.exit_code == 3);
  // More processes in head than in base is more evidence, not a difference that blocks.
  const Compared more = compare_json((dir / "one").string(), example("Areg"));
  CAPTURE(more.result.out);
  CHECK(condition(more.report, "processes")["matches"] == true);
  CHECK(more.result.exit_code != 3);
}

TEST_CASE("head flipping an end-to-end metric's direction is NOT COMPARABLE") {
  // Head's e2e.json says latency is better when higher: another metric than base's, never read as base's.
  const fs::path dir = scratch("flipped-direction");
  fs::copy(example("Areg"), dir / "head", fs::copy_options::recursive);
  json e2e = json::parse(read_text((dir / "head" / "e2e.json").string()));
  for (json& metric : e2e["metrics"]) {
    metric["better"] = "higher";
  }
  write_text(dir / "head" / "e2e.json", e2e.dump());
  const Compared c = compare_json(example("A"), (dir / "head").string());
  CHECK(c.result.exit_code == 3);
  const json row = condition(c.report, "end_to_end_metrics");
  CHECK(row["base"] == "latency (ms)");
  CHECK(row["head"] == "latency (ms, higher is better)");
  CHECK(row["matches"] == false);
}
