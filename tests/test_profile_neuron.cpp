// Tests for formats/neuron_artifacts, formats/manifest (and the README's example) and profile/ranks on
// hand-made TorchNeuron-layout folders (NEURON-FORMATS.md 1.2, 1.3) and manifests written in the test.
#include "formats/manifest.hpp"
#include "formats/neuron_artifacts.hpp"
#include "profile/ranks.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace neuron_gate;

namespace {

// A fresh folder under the system temp folder, removed again at the end of the test.
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& name)
      : m_root(fs::temp_directory_path() / ("neuron-gate-test-neuron-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(m_root);
    fs::create_directories(m_root);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(m_root, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  // Writes `size_bytes` bytes to root/relative, creating its folders.
  void file(const std::string& relative, std::size_t size_bytes = 16) const {
    const fs::path path = m_root / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << std::string(size_bytes, 'x');
  }
  void folder(const std::string& relative) const { fs::create_directories(m_root / relative); }
  std::string root() const { return m_root.string(); }
  NeuronArtifacts scan() const { return find_neuron_artifacts(list_artifact_files(root())); }

 private:
  fs::path m_root;
};

const std::string k_capture = "i-0abc_pid_4242/20261130_120000_000";

RankFolder rank_4242() {
  return RankFolder{"i-0abc_pid_4242", "i-0abc", 4242};
}

}  // namespace

TEST_SUITE_BEGIN("profile::neuron_artifacts");

TEST_CASE("a NeuronConfig capture with trace, NEFF and NTFF is complete") {
  ScratchFolder dir("complete");
  dir.file(k_capture + "/trace.json", 120);
  dir.file(k_capture + "/neff_123_vnc_0.neff", 2048);
  dir.file(k_capture + "/profile_nc_0_session_0.ntff", 4096);
  dir.file(k_capture + "/ntrace.pb", 64);
  dir.file(k_capture + "/trace_info.pb", 32);

  const NeuronArtifacts artifacts = dir.scan();
  REQUIRE(artifacts.captures.size() == 1);
  NeuronCapture expected;
  expected.folder = k_capture;
  expected.rank = rank_4242();
  expected.timestamp = "20261130_120000_000";
  expected.neffs = {NeffFile{"neff_123_vnc_0.neff", "123", 0u, 2048}};
  NtffFile ntff;
  ntff.name = "profile_nc_0_session_0.ntff";
  ntff.naming = NtffNaming::session;
  ntff.neuron_core = 0u;
  ntff.session = 0u;
  ntff.size_bytes = 4096;
  expected.ntffs = {ntff};
  expected.neuron_cores = {0};
  expected.pb_files = {"ntrace.pb", "trace_info.pb"};
  expected.framework_traces = {"trace.json"};
  CHECK(artifacts.captures[0] == expected);
  CHECK(artifacts.captures[0].problems.empty());
  // Only the readings this result relies on: the timestamp level and pairing by folder.
  REQUIRE(artifacts.assumptions.size() == 2);
  CHECK(artifacts.assumptions[0].find("timestamp format (probably YYYYMMDD_HHMMSS_mmm)") != std::string::npos);
  CHECK(artifacts.assumptions[1].find("pairing by folder and NeuronCore is unverified") != std::string::npos);
}

TEST_CASE("session NTFFs without a NEFF in their folder are named as incomplete") {
  ScratchFolder dir("no-neff");
  dir.file(k_capture + "/trace.json");
  dir.file(k_capture + "/profile_nc_0_session_0.ntff");
  dir.file(k_capture + "/profile_nc_1_session_0.ntff");

  const NeuronArtifacts artifacts = dir.scan();
  REQUIRE(artifacts.captures.size() == 1);
  CHECK(artifacts.captures[0].neuron_cores == std::vector<unsigned>{0, 1});
  CHECK(artifacts.captures[0].problems ==
        std::vector<std::string>{"i-0abc_pid_4242/20261130_120000_000: no NEFF beside the NTFFs of session 0: "
                                 "\"profile_nc_0_session_0.ntff\", \"profile_nc_1_session_0.ntff\" (perhaps left in "
                                 "the NEFF cache, e.g. /tmp/neff_cache)"});
}

TEST_CASE("a 0-byte NTFF is named: nothing ran while capturing") {
  ScratchFolder dir("empty-ntff");
  dir.file(k_capture + "/trace.json");
  dir.file(k_capture + "/neff_123_vnc_0.neff");
  dir.file(k_capture + "/profile_nc_0_session_0.ntff", 0);

  const NeuronArtifacts artifacts = dir.scan();
  REQUIRE(artifacts.captures.size() == 1);
  CHECK(artifacts.captures[0].ntffs.at(0).size_bytes == 0);
  CHECK(artifacts.captures[0].problems ==
        std::vector<std::string>{"i-0abc_pid_4242/20261130_120000_000/profile_nc_0_session_0.ntff: 0-byte NTFF: "
                                 "nothing ran while capturing"});
}

TEST_CASE("inspect layout: an NTFF pairs with the NEFF of the same hash") {
  ScratchFolder dir("inspect");
  SUBCASE("same hash: paired") {
    dir.file("i-0abc_pid_4242/395760075800974_instid_0_vnc_0.ntff", 4096);
    dir.file("i-0abc_pid_4242/neff_395760075800974.neff", 2048);
    dir.file("i-0abc_pid_4242/ntrace.pb");

    const NeuronArtifacts artifacts = dir.scan();
    REQUIRE(artifacts.captures.size() == 1);
    const NeuronCapture& capture = artifacts.captures[0];
    CHECK(capture.folder == "i-0abc_pid_4242");
    CHECK(capture.rank == rank_4242());
    CHECK(capture.timestamp.empty());
    CHECK(capture.neffs == std::vector<NeffFile>{{"neff_395760075800974.neff", "395760075800974", std::nullopt, 2048}});
    REQUIRE(capture.ntffs.size() == 1);
    CHECK(capture.ntffs[0].naming == NtffNaming::hashed);
    CHECK(capture.ntffs[0].hash == "395760075800974");
    CHECK(capture.ntffs[0].instid == 0u);
    CHECK(capture.ntffs[0].vnc == 0u);
    CHECK(capture.neuron_cores == std::vector<unsigned>{0});
    CHECK(capture.problems.empty());
    REQUIRE(artifacts.assumptions.size() == 1);
    CHECK(artifacts.assumptions[0].find("hashes are compared as text") != std::string::npos);
  }
  SUBCASE("another hash: the NTFF has no NEFF") {
    dir.file("i-0abc_pid_4242/395760075800974_instid_0_vnc_0.ntff", 4096);
    dir.file("i-0abc_pid_4242/neff_395760075800975.neff", 2048);

    const NeuronArtifacts artifacts = dir.scan();
    REQUIRE(artifacts.captures.size() == 1);
    CHECK(artifacts.captures[0].problems ==
          std::vector<std::string>{"i-0abc_pid_4242/395760075800974_instid_0_vnc_0.ntff: no NEFF with its hash in "
                                   "\"i-0abc_pid_4242\": \"395760075800974\" (expected \"neff_395760075800974.neff\" "
                                   "beside it)"});
  }
  SUBCASE("a hash beyond uint64 still pairs, as text") {
    dir.file("out/99999999999999999999999_instid_1_vnc_3.ntff");
    dir.file("out/neff_99999999999999999999999_vnc_3.neff");

    const NeuronArtifacts artifacts = dir.scan();
    REQUIRE(artifacts.captures.size() == 1);
    CHECK_FALSE(artifacts.captures[0].rank.has_value());
    CHECK(artifacts.captures[0].neuron_cores == std::vector<unsigned>{3});
    CHECK(artifacts.captures[0].problems.empty());
  }
}

TEST_CASE("two rank folders are found and kept apart") {
  ScratchFolder dir("ranks");
  dir.file("prof/i-0abc_pid_4242/20261130_120000_000/trace.json");
  dir.file("prof/i-0abc_pid_4242/20261130_120000_000/neff_7_vnc_0.neff");
  dir.file("prof/i-0abc_pid_4242/20261130_120000_000/profile_nc_0_session_0.ntff");
  dir.file("prof/i-0abc_pid_4243/20261130_120000_004/neuron_framework_trace_rank_1.json");
  dir.file("prof/i-0abc_pid_4243/20261130_120000_004/neff_7_vnc_0.neff");
  dir.file("prof/i-0abc_pid_4243/20261130_120000_004/profile_nc_1_session_0.ntff");

  const std::vector<ArtifactFile> files = list_artifact_files(dir.root());
  CHECK(find_rank_folders(files) ==
        std::vector<RankFolder>{{"prof/i-0abc_pid_4242", "i-0abc", 4242}, {"prof/i-0abc_pid_4243", "i-0abc", 4243}});
  const NeuronArtifacts artifacts = find_neuron_artifacts(files);
  REQUIRE(artifacts.captures.size() == 2);
  CHECK(artifacts.captures[0].rank->pid == 4242);
  CHECK(artifacts.captures[1].rank->pid == 4243);
  CHECK(artifacts.captures[1].framework_traces == std::vector<std::string>{"neuron_framework_trace_rank_1.json"});
  CHECK(artifacts.captures[1].neuron_cores == std::vector<unsigned>{0, 1});
  CHECK(artifacts.captures[0].problems.empty());
  CHECK(artifacts.captures[1].problems.empty());
}

TEST_CASE(".pb files without an NTFF mean device profiling was off") {
  ScratchFolder dir("pb-only");
  dir.file(k_capture + "/trace.json");
  dir.file(k_capture + "/ntrace.pb");
  dir.file(k_capture + "/trace_info.pb");

  const NeuronArtifacts artifacts = dir.scan();
  REQUIRE(artifacts.captures.size() == 1);
  CHECK(artifacts.captures[0].problems ==
        std::vector<std::string>{"i-0abc_pid_4242/20261130_120000_000: .pb files but no .ntff: device profiling was "
                                 "off: \"ntrace.pb\", \"trace_info.pb\""});
}

TEST_CASE("an empty capture folder is named") {
  ScratchFolder dir("empty-folder");
  dir.folder(k_capture);
  dir.folder("i-0abc_pid_4243");

  const NeuronArtifacts artifacts = dir.scan();
  REQUIRE(artifacts.captures.size() == 2);
  CHECK(artifacts.captures[0].problems ==
        std::vector<std::string>{"i-0abc_pid_4242/20261130_120000_000: empty capture folder: nothing was written"});
  CHECK(artifacts.captures[1].problems ==
        std::vector<std::string>{"i-0abc_pid_4243: empty capture folder: nothing was written"});
}

TEST_CASE("unhashed NTFFs of neuron-explorer capture need a NEFF beside them and 0-byte NEFFs are named") {
  const std::vector<ArtifactFile> files = {
      {"output/profile_rank_0.ntff", 100, false},
      {"output/profile_rank_1.ntff", 100, false},
      {"run2/file.neff", 0, false},
      {"run2/profile.ntff", 100, false},
  };
  const NeuronArtifacts artifacts = find_neuron_artifacts(files);
  REQUIRE(artifacts.captures.size() == 2);
  CHECK(artifacts.captures[0].ntffs.at(1).rank == 1u);
  CHECK(artifacts.captures[0].problems == std::vector<std::string>{"output: no NEFF beside \"profile_rank_0.ntff\"",
                                                                   "output: no NEFF beside \"profile_rank_1.ntff\""});
  CHECK(artifacts.captures[1].neffs.at(0).hash.empty());
  CHECK(artifacts.captures[1].problems ==
        std::vector<std::string>{"run2/file.neff: 0-byte NEFF: the compiled graph is missing"});
}

TEST_CASE("a profile without Neuron artifacts has no captures") {
  const std::vector<ArtifactFile> files = {
      {"trace.json", 100, false},
      {"plugins/profile/2026_11_30/host.xplane.pb", 100, false},
      {"e2e.json", 10, false},
  };
  const NeuronArtifacts artifacts = find_neuron_artifacts(files);
  CHECK(artifacts.captures.empty());
  CHECK(artifacts.assumptions.empty());
  CHECK(find_rank_folders(files).empty());
}

TEST_CASE("names that only look like rank folders are not ranks") {
  const std::vector<ArtifactFile> files = {
      {"_pid_12/trace.json", 1, false},
      {"i-0abc_pid_/trace.json", 1, false},
      {"i-0abc_pid_12x/trace.json", 1, false},
      {"./host_a_pid_1_pid_77/", 0, true},
  };
  CHECK(find_rank_folders(files) == std::vector<RankFolder>{{"host_a_pid_1_pid_77", "host_a_pid_1", 77}});
}

TEST_CASE("a timestamp folder of another form is still a capture, and the assumption says so") {
  const std::vector<ArtifactFile> files = {
      {"i-0abc_pid_4242/capture-1/neff_5.neff", 10, false},
      {"i-0abc_pid_4242/capture-1/5_instid_0_vnc_2.ntff", 10, false},
  };
  const NeuronArtifacts artifacts = find_neuron_artifacts(files);
  REQUIRE(artifacts.captures.size() == 1);
  CHECK(artifacts.captures[0].timestamp == "capture-1");
  CHECK(artifacts.captures[0].problems.empty());
  REQUIRE(artifacts.assumptions.size() == 3);
  CHECK(artifacts.assumptions[1] ==
        "timestamp folders not in the form YYYYMMDD_HHMMSS_mmm, taken as captures anyway: \"capture-1\"");
}

TEST_CASE("listing a missing folder is an input error") {
  CHECK_THROWS_WITH_AS(list_artifact_files("/nonexistent/neuron-gate-prof"),
                       "/nonexistent/neuron-gate-prof: not a directory", InputError);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::manifest");

namespace {

const std::string k_manifest = R"({
  "schema": "neuron-gate.manifest/1",
  "model_version": "llama-3-8b@4f2c1e0",
  "compilation_path": "eager",
  "versions": {"torch": "2.8.0", "torch_neuronx": "2.8.0.2.10", "neuron_sdk": "2.26.0", "neuronx_cc": "2.21.18209"},
  "instance_type": "trn2.48xlarge",
  "neuron_config": {"modes": ["DEVICE", "RUNTIME"], "capture_enabled_for_nc": "0,1",
                    "max_events_per_nc": 1000000, "profile_output_dir": "./prof"},
  "schedule": {"wait": 1, "warmup": 3, "active": 5, "repeat": 1},
  "inputs": [{"name": "input_ids", "shape": [4, 512], "dtype": "torch.int64"}],
  "notes": "base run on the nightly runner"
})";

// k_manifest with the first `from` replaced by `to`.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = k_manifest;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a manifest becomes a flat map of canonical field values") {
  const RunManifest manifest = parse_manifest(k_manifest, "base/neuron-gate.json");
  CHECK(manifest.source_path == "base/neuron-gate.json");
  CHECK(manifest.fields == std::map<std::string, std::string>{
                               {"compilation_path", "eager"},
                               {"inputs[input_ids].dtype", "int64"},
                               {"inputs[input_ids].shape", "[4,512]"},
                               {"instance_type", "trn2.48xlarge"},
                               {"model_version", "llama-3-8b@4f2c1e0"},
                               {"neuron_config.capture_enabled_for_nc", "0,1"},
                               {"neuron_config.max_events_per_nc", "1000000"},
                               {"neuron_config.modes", "DEVICE,RUNTIME"},
                               {"schedule.active", "5"},
                               {"schedule.repeat", "1"},
                               {"schedule.wait", "1"},
                               {"schedule.warmup", "3"},
                               {"versions.neuron_sdk", "2.26.0"},
                               {"versions.neuronx_cc", "2.21.18209"},
                               {"versions.torch", "2.8.0"},
                               {"versions.torch_neuronx", "2.8.0.2.10"},
                           });
  CHECK(looks_like_manifest(k_manifest.substr(0, 40)));
  CHECK_FALSE(looks_like_manifest(R"({"schema": "neuron-gate.e2e/1"})"));
}

TEST_CASE("a manifest's pairing session is kept apart from the conditions - a bad one names the file") {
  const RunManifest paired =
      parse_manifest(edited("\"schema\": \"neuron-gate.manifest/1\",",
                            "\"schema\": \"neuron-gate.manifest/1\", \"pairing\": {\"session\": \"ci-4242-1\"},"),
                     "base/neuron-gate.json");
  CHECK(paired.pairing_session == "ci-4242-1");
  CHECK(paired.pairing_order.empty());
  const RunManifest ordered = parse_manifest(
      edited(
          "\"schema\": \"neuron-gate.manifest/1\",",
          R"("schema": "neuron-gate.manifest/1", "pairing": {"session": "s", "order": ["base/run-01", "head/run-01"]},)"),
      "base/neuron-gate.json");
  CHECK(ordered.pairing_order == std::vector<std::string>{"base/run-01", "head/run-01"});
  CHECK(paired.fields == parse_manifest(k_manifest, "base/neuron-gate.json").fields);  // not a condition
  for (const char* bad : {R"({"session": "a b"})", R"({"session": ""})", R"({"id": "x"})", R"("x")",
                          R"({"session": "s", "order": ["base/../x"]})", R"({"session": "s", "order": ["mid/run-01"]})",
                          R"({"session": "s", "order": ["base/r", "base/r"]})", R"({"session": "s", "order": "x"})"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(
        parse_manifest(edited("\"schema\": \"neuron-gate.manifest/1\",",
                              std::string("\"schema\": \"neuron-gate.manifest/1\", \"pairing\": ") + bad + ","),
                       "h/neuron-gate.json"),
        doctest::Contains("h/neuron-gate.json"), InputError);
  }
}

TEST_CASE("two manifests differing only in compilation_path give one difference") {
  const RunManifest base = parse_manifest(k_manifest, "base/neuron-gate.json");
  const RunManifest head = parse_manifest(edited("\"eager\"", "\"torch.compile\""), "head/neuron-gate.json");
  CHECK(diff_manifests(base, head) == std::vector<ManifestDifference>{{"compilation_path", "eager", "torch.compile"}});
  CHECK(diff_manifests(base, base).empty());
}

TEST_CASE("capture_enabled_for_nc compares as a set of NeuronCores") {
  const RunManifest base = parse_manifest(k_manifest, "base/neuron-gate.json");
  SUBCASE("\"0,1\" equals \"0-1\"") {
    CHECK(diff_manifests(base, parse_manifest(edited("\"0,1\"", "\"0-1\""), "head")).empty());
  }
  SUBCASE("\"0,1\" differs from \"0\"") {
    CHECK(diff_manifests(base, parse_manifest(edited("\"0,1\"", "\"0\""), "head")) ==
          std::vector<ManifestDifference>{{"neuron_config.capture_enabled_for_nc", "0,1", "0"}});
  }
}

TEST_CASE("canonical NeuronCore lists") {
  CHECK(canonical_core_list("0,1,2-5", "m", "f") == "0-5");
  CHECK(canonical_core_list("2,0-1", "m", "f") == "0-2");
  CHECK(canonical_core_list("0-2", "m", "f") == canonical_core_list("0,1,2", "m", "f"));
  CHECK(canonical_core_list(" 7 , 0,1,3 ", "m", "f") == "0,1,3,7");
  CHECK(canonical_core_list("4-4,0-1,1-2", "m", "f") == "0-2,4");
  CHECK(canonical_core_list("", "m", "f").empty());
  CHECK_THROWS_WITH_AS(canonical_core_list("3-1", "m.json", "neuron_config.capture_enabled_for_nc"),
                       "m.json: \"neuron_config.capture_enabled_for_nc\" must list NeuronCores such as \"0,1,2-5\", "
                       "not \"3-1\"",
                       InputError);
  for (const char* bad : {"0,", "x", "0,,1", "-1", "1-", "4294967296"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(canonical_core_list(bad, "m", "f"), InputError);
  }
}

TEST_CASE("modes and inputs compare regardless of order and spelling of the prefix") {
  const RunManifest base = parse_manifest(k_manifest, "base");
  std::string text = edited(R"(["DEVICE", "RUNTIME"])", R"(["ProfileMode.RUNTIME", "device"])");
  CHECK(diff_manifests(base, parse_manifest(text, "head")).empty());
  text = edited(R"([{"name": "input_ids", "shape": [4, 512], "dtype": "torch.int64"}])",
                R"([{"name": "mask", "shape": [4, 512], "dtype": "bool"},
                    {"name": "input_ids", "shape": [4, 512], "dtype": "int64"}])");
  CHECK(diff_manifests(base, parse_manifest(text, "head")) ==
        std::vector<ManifestDifference>{{"inputs[mask].dtype", "absent", "bool"},
                                        {"inputs[mask].shape", "absent", "[4,512]"}});
}

TEST_CASE("unknown keys are errors naming the key and notes are ignored") {
  CHECK_THROWS_WITH_AS(parse_manifest(edited("\"compilation_path\"", "\"compilaton_path\""), "m.json"),
                       "m.json: unknown key \"compilaton_path\", did you mean \"compilation_path\"?", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(edited("\"active\"", "\"activ\""), "m.json"),
                       "m.json: unknown key \"schedule.activ\", did you mean \"active\"?", InputError);
  CHECK(parse_manifest(edited("\"base run on the nightly runner\"", R"({"any": ["shape", 1]})"), "m.json")
            .fields.count("notes") == 0);
}

TEST_CASE("a value of the wrong type is an error naming the field") {
  CHECK_THROWS_WITH_AS(parse_manifest(edited("\"2.8.0\"", "2.8"), "m.json"),
                       "m.json: \"versions.torch\" must be a string, not 2.8", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(edited("\"active\": 5", "\"active\": \"5\""), "m.json"),
                       "m.json: \"schedule.active\" must be a non-negative integer, not \"5\"", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(edited("\"warmup\": 3", "\"warmup\": -3"), "m.json"),
                       "m.json: \"schedule.warmup\" must be a non-negative integer, not -3", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(edited("\"0,1\"", "1"), "m.json"),
                       "m.json: \"neuron_config.capture_enabled_for_nc\" must be a string such as \"0,1,2-5\", not 1",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(edited("[4, 512]", "[4.5, 512]"), "m.json"),
                       "m.json: \"inputs[input_ids].shape\" must be an array of integers (or strings for symbolic "
                       "sizes), not [4.5,512]",
                       InputError);
}

// Every key python/neuron_gate_capture writes (capture.py, manifest.py), as it writes them on Neuron.
const std::string k_capture_manifest = R"({
 "schema": "neuron-gate.manifest/1", "workload": "model:step", "operating_point": "x=4x512:bfloat16",
 "model_version": "rmsnorm@1", "compilation_path": "torch.compile", "device": "neuron",
 "versions": {"torch": "2.8.0", "python": "3.11.2", "neuron_gate_capture": "0.1.0", "torch_neuronx": "2.8.0.2.10"},
 "instance_type": "trn2.3xlarge", "intra_op_threads": 1, "grad_mode": "enabled",
 "profiler": {"activities": ["PrivateUse1", "CPU"], "record_shapes": true, "with_stack": false,
              "profile_memory": false, "with_flops": false},
 "neuron_config": {"modes": ["DEVICE", "RUNTIME"], "capture_enabled_for_nc": "0", "correlate_device_time": true,
                   "profile_output_dir": "/tmp/prof"},
 "schedule": {"skip_first": 0, "wait": 1, "warmup": 1, "active": 3, "repeat": 3},
 "timing": {"warmup": 10, "repetitions": 50, "calls_per_sample": 1, "interleaved": true, "bursts": 7,
            "gate": "latency"},
 "inputs": [{"name": "eps", "value": 1e-06}, {"name": "mode", "value": "fast"}, {"name": "x", "shape": [4, 512],
             "dtype": "bfloat16"}],
 "notes": "written by the capture helper"
})";

TEST_CASE("every key the capture helper writes is read") {
  const RunManifest manifest = parse_manifest(k_capture_manifest, "neuron-gate.json");
  CHECK(manifest.fields == std::map<std::string, std::string>{
                               {"compilation_path", "torch.compile"},
                               {"device", "neuron"},
                               {"inputs[eps].value", "1e-06"},
                               {"inputs[mode].value", "\"fast\""},
                               {"inputs[x].dtype", "bfloat16"},
                               {"inputs[x].shape", "[4,512]"},
                               {"grad_mode", "enabled"},
                               {"instance_type", "trn2.3xlarge"},
                               {"intra_op_threads", "1"},
                               {"model_version", "rmsnorm@1"},
                               {"neuron_config.capture_enabled_for_nc", "0"},
                               {"neuron_config.correlate_device_time", "true"},
                               {"neuron_config.modes", "DEVICE,RUNTIME"},
                               {"operating_point", "x=4x512:bfloat16"},
                               {"profiler.activities", "CPU,PrivateUse1"},
                               {"profiler.profile_memory", "false"},
                               {"profiler.record_shapes", "true"},
                               {"profiler.with_flops", "false"},
                               {"profiler.with_stack", "false"},
                               {"schedule.active", "3"},
                               {"schedule.repeat", "3"},
                               {"schedule.skip_first", "0"},
                               {"schedule.wait", "1"},
                               {"schedule.warmup", "1"},
                               {"timing.bursts", "7"},
                               {"timing.calls_per_sample", "1"},
                               {"timing.gate", "latency"},
                               {"timing.interleaved", "true"},
                               {"timing.repetitions", "50"},
                               {"timing.warmup", "10"},
                               {"versions.neuron_gate_capture", "0.1.0"},
                               {"versions.python", "3.11.2"},
                               {"versions.torch", "2.8.0"},
                               {"versions.torch_neuronx", "2.8.0.2.10"},
                               {"workload", "model:step"},
                           });
}

TEST_CASE("the capture helper's keys: activities compare as a set, bad values name the field") {
  const auto with = [](const std::string& from, const std::string& to) {
    std::string text = k_capture_manifest;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  const RunManifest base = parse_manifest(k_capture_manifest, "base");
  CHECK(diff_manifests(base, parse_manifest(with(R"(["PrivateUse1", "CPU"])",
                                                 R"(["ProfilerActivity.CPU", "ProfilerActivity.PrivateUse1"])"),
                                            "head"))
            .empty());
  CHECK(diff_manifests(base, parse_manifest(with("[4, 512]", "[8, 512]"), "head")) ==
        std::vector<ManifestDifference>{{"inputs[x].shape", "[4,512]", "[8,512]"}});
  CHECK_THROWS_WITH_AS(parse_manifest(with("\"record_shapes\": true", "\"record_shapes\": 1"), "m.json"),
                       "m.json: \"profiler.record_shapes\" must be true or false, not 1", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(with("\"interleaved\"", "\"interleave\""), "m.json"),
                       "m.json: unknown key \"timing.interleave\", did you mean \"interleaved\"?", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(with("\"repetitions\": 50", "\"repetitions\": -50"), "m.json"),
                       "m.json: \"timing.repetitions\" must be a non-negative integer, not -50", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(with("\"record_shapes\"", "\"record_shape\""), "m.json"),
                       "m.json: unknown key \"profiler.record_shape\", did you mean \"record_shapes\"?", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(with("\"value\": \"fast\"", "\"value\": [1]"), "m.json"),
                       "m.json: \"inputs[mode].value\" must be a number, string, true, false or null, not [1]",
                       InputError);
  CHECK_THROWS_WITH_AS(
      parse_manifest(with("\"operating_point\": \"x=4x512:bfloat16\"", "\"operating_point\": 4"), "m.json"),
      "m.json: \"operating_point\" must be a string, not 4", InputError);
}

TEST_CASE("a missing or other schema is an error") {
  CHECK_THROWS_WITH_AS(parse_manifest(R"({"compilation_path": "eager"})", "m.json"),
                       "m.json: not a run manifest: expected \"schema\": \"neuron-gate.manifest/1\"", InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(R"({"schema": "neuron-gate.manifest/2"})", "m.json"),
                       "m.json: unknown schema, expected \"neuron-gate.manifest/1\", not \"neuron-gate.manifest/2\"",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_manifest(R"({"schema": "neuron-gate.manifest/1",
                                          "inputs": [{"name": "x"}, {"name": "x"}]})",
                                      "m.json"),
                       "m.json: two inputs named \"x\"", InputError);
}

TEST_CASE("malformed JSON is an error at its byte offset") {
  const std::string text = R"({"schema": "neuron-gate.manifest/1", "compilation_path": })";
  try {
    parse_manifest(text, "m.json");
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(error.path() == "m.json");
    REQUIRE(error.byte_offset().has_value());
    CHECK(*error.byte_offset() == text.find('}'));
    CHECK(error.problem().rfind("not valid JSON: ", 0) == 0);
  }
}

TEST_CASE("read_manifest reads a file and names a missing one") {
  ScratchFolder dir("manifest");
  const std::string path = dir.root() + "/neuron-gate.json";
  std::ofstream(path, std::ios::binary) << k_manifest;
  CHECK(read_manifest(path) == parse_manifest(k_manifest, path));
  CHECK_THROWS_WITH_AS(read_manifest(dir.root() + "/absent.json"),
                       (dir.root() + "/absent.json: cannot open: No such file or directory").c_str(), InputError);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::manifest_readme");

namespace {

// The first ```json block after the heading "### Run manifest" in the README, read at test time.
std::string readme_manifest_example() {
  std::ifstream in(std::string(NEURON_GATE_SOURCE_DIR) + "/README.md", std::ios::binary);
  REQUIRE(in.good());
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto heading = readme.find("\n### Run manifest\n");
  REQUIRE(heading != std::string::npos);
  const std::string fence = "```json\n";
  const auto start = readme.find(fence, heading);
  REQUIRE(start != std::string::npos);
  const auto end = readme.find("\n```", start + fence.size());
  REQUIRE(end != std::string::npos);
  return readme.substr(start + fence.size(), end + 1 - start - fence.size());
}

}  // namespace

TEST_CASE("the README's run manifest example parses to the documented canonical fields") {
  const std::string example = readme_manifest_example();
  const RunManifest manifest = parse_manifest(example, "README.md");
  CHECK(manifest.fields == std::map<std::string, std::string>{
                               {"compilation_path", "torch.compile"},
                               {"device", "neuron"},
                               {"grad_mode", "inference_mode"},
                               {"inputs[attention_mask].dtype", "int64"},
                               {"inputs[attention_mask].shape", "[\"batch\",512]"},
                               {"inputs[input_ids].dtype", "int64"},
                               {"inputs[input_ids].shape", "[4,512]"},
                               {"inputs[max_new_tokens].value", "32"},
                               {"instance_type", "trn2.48xlarge"},
                               {"intra_op_threads", "8"},
                               {"model_version", "llama-3-8b@4f2c1e0"},
                               {"neuron_config.capture_enabled_for_nc", "0-3"},
                               {"neuron_config.correlate_device_time", "true"},
                               {"neuron_config.max_events_per_nc", "1000000"},
                               {"neuron_config.modes", "DEVICE,RUNTIME"},
                               {"operating_point", "bs4-seq512"},
                               {"profiler.activities", "CPU,PrivateUse1"},
                               {"profiler.profile_memory", "false"},
                               {"profiler.record_shapes", "true"},
                               {"profiler.with_flops", "false"},
                               {"profiler.with_stack", "false"},
                               {"schedule.active", "10"},
                               {"schedule.repeat", "1"},
                               {"schedule.skip_first", "0"},
                               {"schedule.wait", "1"},
                               {"schedule.warmup", "3"},
                               {"timing.bursts", "2"},
                               {"timing.calls_per_sample", "1"},
                               {"timing.gate", "latency"},
                               {"timing.interleaved", "false"},
                               {"timing.repetitions", "50"},
                               {"timing.warmup", "10"},
                               {"versions.neuron_gate_capture", "0.1.0"},
                               {"versions.neuronx_cc", "2.21.18209"},
                               {"versions.neuron_sdk", "2.26.0"},
                               {"versions.python", "3.11.2"},
                               {"versions.torch", "2.8.0"},
                               {"versions.torch_neuronx", "2.8.0.2.10"},
                               {"workload", "train_step.py:step"},
                           });
  CHECK(looks_like_manifest(example));
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::ranks");

namespace {

TraceSamples trace_at(const std::string& path, const std::string& distributed_rank = "") {
  TraceSamples trace;
  trace.path = path;
  if (!distributed_rank.empty()) {
    trace.metadata["distributedInfo.rank"] = distributed_rank;
  }
  return trace;
}

}  // namespace

TEST_CASE("a rank is read from distributedInfo.rank, the file name or the manifest, never the process folder") {
  CHECK(rank_from_metadata(trace_at("t.json", "3")) == 3u);
  CHECK(rank_from_metadata(trace_at("t.json", "\"2\"")) == 2u);
  CHECK_FALSE(rank_from_metadata(trace_at("t.json", "-1")).has_value());
  CHECK_FALSE(rank_from_metadata(trace_at("t.json")).has_value());
  CHECK(rank_from_file_name("prof/neuron_framework_trace_rank_12.json") == 12u);
  CHECK(rank_from_file_name("out/profile_rank_0.ntff") == 0u);
  CHECK_FALSE(rank_from_file_name("a_rank_1/trace.json").has_value());
  CHECK_FALSE(rank_from_file_name("trace_rank_.json").has_value());

  // Process folders are runs of one rank: no rank, whatever their pids.
  std::vector<TraceSamples> runs{trace_at("p/i-1_pid_1000/20261130_120000_000/trace.json"),
                                 trace_at("p/i-1_pid_999/20261130_120000_000/trace.json"),
                                 trace_at("p/i-1_pid_5/run-03/trace.json")};
  assign_ranks(runs);
  CHECK(distinct_ranks(runs) == std::set<std::optional<unsigned>>{std::nullopt});
  CHECK(runs[0].rank_source.empty());
  CHECK(rank_assumptions(runs).empty());

  std::vector<TraceSamples> traces{trace_at("p/i-1_pid_5/trace.json", "7"),
                                   trace_at("p/i-1_pid_6/neuron_framework_trace_rank_4.json"),
                                   trace_at("p/rank-2/plain.pt.trace.json"), trace_at("p/plain.pt.trace.json")};
  assign_ranks(traces);
  CHECK(traces[0].rank == 7u);
  CHECK(traces[0].rank_source == "distributedInfo.rank");
  CHECK(traces[1].rank == 4u);
  CHECK(traces[1].rank_source == "file name");
  CHECK(traces[2].rank == 2u);
  CHECK(traces[2].rank_source == "folder name");
  CHECK_FALSE(traces[3].rank.has_value());  // not in a process folder: kept as "rank unknown"
  CHECK(distinct_ranks(traces) == std::set<std::optional<unsigned>>{std::nullopt, 2u, 4u, 7u});
  const std::vector<std::string> assumptions = rank_assumptions(traces);
  REQUIRE(assumptions.size() == 3);
  CHECK(assumptions[2].find("\"rank unknown\"") != std::string::npos);

  RunManifest manifest;
  manifest.fields["rank"] = "1";
  std::vector<TraceSamples> by_manifest{trace_at("p/i-1_pid_5/a/trace.json"), trace_at("p/i-1_pid_6/b/trace.json")};
  assign_ranks(by_manifest, &manifest);
  CHECK(by_manifest[1].rank == 1u);
  CHECK(by_manifest[1].rank_source == "manifest");
}

TEST_CASE("conflicting rank marks, and unmarked process folders beside several ranks, are input errors") {
  std::vector<TraceSamples> conflict{trace_at("p/i-1_pid_5/t/neuron_framework_trace_rank_1.json", "0")};
  CHECK_THROWS_WITH_AS(assign_ranks(conflict),
                       "p/i-1_pid_5/t/neuron_framework_trace_rank_1.json: conflicting rank marks: distributedInfo.rank "
                       "says rank 0, file name says rank 1; make them agree (docs/user-guide.md \"Ranks\")",
                       InputError);
  std::vector<TraceSamples> mixed{trace_at("p/i-1_pid_5/t/trace.json", "0"), trace_at("p/i-1_pid_6/t/trace.json", "1"),
                                  trace_at("p/i-1_pid_7/t/trace.json")};
  try {
    assign_ranks(mixed);
    FAIL("no error");
  } catch (const InputError& error) {
    const std::string what = error.what();
    CHECK(what.find("p/i-1_pid_7/t/trace.json: the process folder p/i-1_pid_7 holds a trace that states no rank, "
                    "but 2 ranks are stated by other traces") == 0);
    CHECK(what.find("mark its rank") != std::string::npos);
  }
  RunManifest manifest;
  manifest.fields["world_size"] = "4";
  std::vector<TraceSamples> declared{trace_at("p/i-1_pid_5/t/trace.json"), trace_at("p/i-1_pid_6/t/trace.json")};
  CHECK_THROWS_AS(assign_ranks(declared, &manifest), InputError);
  manifest.fields["world_size"] = "1";
  CHECK_NOTHROW(assign_ranks(declared, &manifest));
}

TEST_CASE("one rank per side is not compared per rank and carries no label") {
  std::vector<TraceSamples> one{trace_at("a/x.pt.trace.json"), trace_at("b/y.pt.trace.json")};
  std::vector<TraceSamples> two{trace_at("t.json", "0"), trace_at("u.json", "1")};
  assign_ranks(one);
  assign_ranks(two);
  CHECK_FALSE(compare_per_rank(one, one));
  CHECK(compare_per_rank(one, two));
  CHECK(rank_assumptions(one).empty());
  CHECK(rank_assumptions(two).empty());  // distributedInfo.rank is no assumption
  CHECK(rank_suffix(1u) == " [rank 1]");
  CHECK(rank_suffix(std::nullopt) == " [rank unknown]");
  CHECK(rank_name(0u) == "rank 0");
}

TEST_CASE("the enclosing rank folder of a path is the nearest one") {
  const auto rank = enclosing_rank_folder("/tmp/i-9_pid_1/x/i-0abc_pid_42/20261130_120000_000/trace.json");
  REQUIRE(rank.has_value());
  CHECK(rank->pid == 42u);
  CHECK(rank->instance_id == "i-0abc");
  CHECK(rank->folder == "/tmp/i-9_pid_1/x/i-0abc_pid_42");
  CHECK_FALSE(enclosing_rank_folder("i-0abc_pid_42").has_value());  // a file, not a folder
  CHECK_FALSE(enclosing_rank_folder("prof/trace.json").has_value());
}

TEST_SUITE_END();
