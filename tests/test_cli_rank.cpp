// `neuron-gate rank BASE ALT...` (issue 19 item 2) on the bundled RMSNorm variants: the order the
// end-to-end numbers support, with CIs, one Holm family over every pair, and the pairs that cannot be
// told apart said so; on traces alone by step time or device total (issue 37 item 5).
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_SUITE_BEGIN("cli::rank");

namespace {

struct Ranked {
  CliResult result;
  json report;
  std::string markdown;
};

Ranked rank(std::vector<std::string> profiles, std::vector<std::string> extra = {}) {
  const fs::path dir = scratch("rank");
  std::vector<std::string> args{"rank"};
  args.insert(args.end(), profiles.begin(), profiles.end());
  args.insert(args.end(), {"--json", (dir / "r.json").string(), "--markdown", (dir / "r.md").string()});
  args.insert(args.end(), extra.begin(), extra.end());
  Ranked ranked;
  ranked.result = run(args);
  if (fs::exists(dir / "r.json")) {
    ranked.report = json::parse(read_text((dir / "r.json").string()));
    ranked.markdown = read_text((dir / "r.md").string());
  }
  return ranked;
}

const json& profile(const json& report, const std::string& label) {
  for (const json& p : report["profiles"]) {
    if (p["label"] == label) {
      return p;
    }
  }
  FAIL("no profile " << label);
  static const json none;
  return none;
}

}  // namespace

TEST_CASE("rank A B C: A and C cannot be told apart, both established better than B") {
  const Ranked r = rank({example("A"), example("B"), example("C")});
  INFO(r.result.err);
  REQUIRE(r.result.exit_code == 0);
  const json& report = r.report;
  CHECK(report["schema"] == "neuron-gate.ranking/1");
  CHECK(report["metric"] == "latency");
  CHECK(report["unit"] == "ms");
  CHECK(report["family_size"] == 3);      // A-C, A-B, C-B
  CHECK(report["run_allowance"] == 0.0);  // e2e.json of 10 runs (processes) per variant: per-run samples
  REQUIRE(report["profiles"].size() == 3);
  // Order by median latency: A 0.011785 ms, C 0.011797 ms, B 0.017253 ms (medians of the 200 samples of
  // each e2e.json, computed with Python's statistics.median).
  CHECK(report["profiles"][0]["label"] == example("A"));
  CHECK(report["profiles"][1]["label"] == example("C"));
  CHECK(report["profiles"][2]["label"] == example("B"));
  CHECK(profile(report, example("A"))["median"].get<double>() == doctest::Approx(0.011785).epsilon(1e-9));
  CHECK(profile(report, example("C"))["median"].get<double>() == doctest::Approx(0.011797).epsilon(1e-9));
  CHECK(profile(report, example("B"))["median"].get<double>() == doctest::Approx(0.017253).epsilon(1e-9));
  CHECK(profile(report, example("A"))["base"] == true);
  // A and C share rank 1: their latencies cannot be told apart (HL ratio of the run medians 0.9997, p 1).
  CHECK(profile(report, example("A"))["rank"] == 1);
  CHECK(profile(report, example("C"))["rank"] == 1);
  CHECK(profile(report, example("C"))["versus_base"] != "established");
  const json& c = profile(report, example("C"));
  CHECK(c["ratio_vs_base"].get<double>() == doctest::Approx(0.99966).epsilon(1e-4));
  CHECK(c["ratio_vs_base_ci95"][0].get<double>() <= c["ratio_vs_base"].get<double>());
  CHECK(c["ratio_vs_base_ci95"][1].get<double>() >= c["ratio_vs_base"].get<double>());
  // B is established worse than both: ~1.47x A's latency.
  const json& b = profile(report, example("B"));
  CHECK(b["rank"] == 3);
  CHECK(b["versus_base"] == "established");
  CHECK(b["ratio_vs_base"].get<double>() == doctest::Approx(1.46848).epsilon(1e-4));
  CHECK(b["ratio_vs_base_ci95"][0].get<double>() > 1.4);
  CHECK(b["p_adjusted_vs_base"].get<double>() < 0.05);
  // Two-sided p of each pair as SciPy gives it (scipy.stats.mannwhitneyu(x, y, alternative="two-sided",
  // method="exact") on the medians of the e2e.json runs, 10 a side): A-C 1.0, A-B 1.082509e-05, C-B
  // 1.082509e-05; Holm over the three: the two smallest x3 (the second's x2 raised to the first's), A-C x1.
  REQUIRE(report["pairs"].size() == 3);
  CHECK(report["pairs"][0]["p"].get<double>() == doctest::Approx(1.0).epsilon(1e-9));
  CHECK(report["pairs"][0]["p_adjusted"].get<double>() == doctest::Approx(1.0).epsilon(1e-9));
  CHECK(report["pairs"][1]["p"].get<double>() == doctest::Approx(1.082509e-05).epsilon(1e-6).scale(0));
  CHECK(report["pairs"][1]["p_adjusted"].get<double>() == doctest::Approx(3.247526e-05).epsilon(1e-6).scale(0));
  CHECK(report["pairs"][2]["p_adjusted"].get<double>() == doctest::Approx(3.247526e-05).epsilon(1e-6).scale(0));
  CHECK(report["pairs"][0]["evidence"] == "not significant");
  for (const json& pair : report["pairs"]) {
    CHECK(pair["p_adjusted"].get<double>() >= pair["p"].get<double>());  // Holm never lowers a p
    if (pair["worse"] == example("B")) {
      CHECK(pair["evidence"] == "established");
    } else {
      CHECK(pair["evidence"] != "established");
    }
  }
  CHECK(r.markdown.find("**Best by median: `" + example("A") + "` (base); not told apart from `" + example("C") +
                        "` by these data.**") != std::string::npos);
  CHECK(r.markdown.find("cannot be told apart") != std::string::npos);
  CHECK(r.markdown.find("established — ") != std::string::npos);
}

TEST_CASE("rank: an alternative whose conditions differ is listed, not ranked (exit 3)") {
  const Ranked r = rank({example("A"), example("A_sched"), example("Areg")});
  INFO(r.result.err);
  CHECK(r.result.exit_code == 3);
  REQUIRE(r.report["unranked"].size() == 1);
  CHECK(r.report["unranked"][0]["label"] == example("A_sched"));
  CHECK(r.report["profiles"].size() == 2);
  CHECK(r.report["profiles"][1]["label"] == example("Areg"));
  CHECK(r.report["profiles"][1]["rank"] == 2);  // +42% latency: established worse than A
  CHECK(r.markdown.find("NOT COMPARABLE") != std::string::npos);
}

TEST_CASE("rank: usage errors") {
  CHECK(run({"rank", example("A")}).exit_code == 2);  // no alternative
  const CliResult missing = run({"rank", example("A"), example("B"), "--metric", "throughput", "--quiet"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no end-to-end metric \"throughput\"") != std::string::npos);
}

TEST_CASE("rank: hostile profile names are escaped in Markdown and HTML") {
  const fs::path dir = scratch("rank-hostile");
  const fs::path hostile = dir / "x`|<b>@team\x1b[31m";
  fs::create_directories(hostile);
  fs::copy(fs::path(example("C")) / "e2e.json", hostile / "e2e.json");
  const fs::path base = dir / "base";
  fs::create_directories(base);
  fs::copy(fs::path(example("A")) / "e2e.json", base / "e2e.json");
  const CliResult r = run({"rank", base.string(), hostile.string(), "--html", (dir / "r.html").string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find("\\|") != std::string::npos);  // `|` cannot end a table cell
  const std::string html = read_text((dir / "r.html").string());
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(html.find("&lt;b&gt;") != std::string::npos);
}

namespace {

// A traces-only copy of a bundled variant (its run folders with their *.pt.trace.json, no e2e.json) under
// `dir`, with a manifest naming its compilation path when `compilation_path` is not empty.
std::string traces_only(const fs::path& dir, const std::string& variant, const std::string& compilation_path,
                        const std::string& more_manifest = "") {
  const fs::path to = dir / variant;
  for (const auto& run : fs::directory_iterator(example(variant))) {
    if (!run.is_directory()) {
      continue;
    }
    fs::create_directories(to / run.path().filename());
    for (const auto& file : fs::directory_iterator(run.path())) {
      const std::string name = file.path().filename().string();
      if (name.size() > 14 && name.substr(name.size() - 14) == ".pt.trace.json") {
        fs::copy(file.path(), to / run.path().filename() / name);
      }
    }
  }
  if (!compilation_path.empty()) {
    std::ofstream(to / "neuron-gate.json") << R"({"schema": "neuron-gate.manifest/1", "compilation_path": ")"
                                           << compilation_path << "\"" << more_manifest << "}";
  }
  return to.string();
}

}  // namespace

TEST_CASE("rank on traces without end-to-end numbers: by profiled step time, compilation path shown") {
  // Issue 37 item 5: separate ops (A), a library kernel (B) and torch.jit.script + freeze (C), traces only.
  const fs::path dir = scratch("rank-traces");
  const std::string a = traces_only(dir, "A", "eager"), b = traces_only(dir, "B", "eager"),
                    c = traces_only(dir, "C", "torch.jit.script+freeze");
  const Ranked r = rank({a, b, c});
  INFO(r.result.err);
  REQUIRE(r.result.exit_code == 0);  // C's compilation path differs by design: shown, not refused
  CHECK(r.report["metric"] == "profiled step time");
  CHECK(r.report["unit"] == "us");
  CHECK(r.report["family_size"] == 3);
  REQUIRE(r.report["unranked"].empty());
  // 10 runs x 8 traces x 1 active step a side, each run's first trace left out as base's warm-up (as compare
  // does): 70 steps. The medians are compare's step-time medians of A -> B and A -> C; B's step looks ~17%
  // faster under the profiler (fewer ops, examples/PROFILES-README.md), C runs A's ops.
  for (const auto& [label, median] : {std::pair{a, 42.5}, std::pair{b, 35.0}, std::pair{c, 43.0}}) {
    const json& p = profile(r.report, label);
    CHECK(p["samples"] == 70);
    CHECK(p["median"].get<double>() == doctest::Approx(median));
  }
  CHECK(profile(r.report, c)["compilation_path"] == "torch.jit.script+freeze");
  CHECK(profile(r.report, a)["compilation_path"] == "eager");
  CHECK(profile(r.report, b)["rank"] == 1);
  CHECK(profile(r.report, b)["versus_base"] == "established");
  const json& ci = profile(r.report, b)["ratio_vs_base_ci95"];
  CHECK(ci[0].get<double>() < profile(r.report, b)["ratio_vs_base"].get<double>());
  CHECK(ci[1].get<double>() < 1.0);  // the whole CI below 1
  CHECK(profile(r.report, a)["rank"] == 2);
  CHECK(profile(r.report, c)["rank"] == 2);  // not told apart from A
  CHECK(profile(r.report, c)["versus_base"] == "not significant");
  CHECK(r.markdown.find("| compilation path |") != std::string::npos);
  CHECK(r.markdown.find("The first trace of each run folder is left out of every profile") != std::string::npos);
  CHECK(r.markdown.find("an alternative that runs fewer ops looks faster under the profiler") != std::string::npos);
  // Any other manifest difference is still a condition: the alternative is listed, not ranked.
  const fs::path other_dir = scratch("rank-traces-other");
  const std::string v1 = traces_only(other_dir, "A", "eager", R"(, "model_version": "v1")");
  const std::string v2 = traces_only(other_dir, "C", "eager", R"(, "model_version": "v2")");
  const Ranked refused = rank({v1, v2});
  CHECK(refused.result.exit_code == 3);
  REQUIRE(refused.report["unranked"].size() == 1);
  CHECK(refused.report["unranked"][0]["differing"][0] == "manifest.model_version");
}

TEST_CASE("rank --metric device-total: the device time of all ops per step, as compare totals it") {
  // tests/data/bad/screen/base: 3 runs x 6 steps, gemm ~300 us + add_k ~40 us of device time a step. The
  // head's gemm kernels are made 1.5x longer (one kernel a step, alone on its stream: nothing moves).
  const fs::path dir = scratch("rank-device");
  const std::string base = data("bad/screen/base");
  fs::copy(base, dir / "slow-gemm", fs::copy_options::recursive);
  for (const auto& file : fs::recursive_directory_iterator(dir / "slow-gemm")) {
    if (file.path().extension() != ".json") {
      continue;
    }
    json trace = json::parse(read_text(file.path().string()));
    for (json& event : trace["traceEvents"]) {
      if (event.value("name", "") == "gemm") {
        event["dur"] = event["dur"].get<double>() * 1.5;
      }
    }
    std::ofstream(file.path()) << trace.dump();
  }
  const Ranked r = rank({base, (dir / "slow-gemm").string()}, {"--metric", "device-total"});
  INFO(r.result.err);
  REQUIRE(r.result.exit_code == 0);
  CHECK(r.report["metric"] == "device time of all ops");
  const json& b = profile(r.report, base);
  CHECK(b["samples"] == 18);
  CHECK(b["median"].get<double>() == doctest::Approx(343.0));  // compare's device `all ops` median of base
  const json& slow = profile(r.report, (dir / "slow-gemm").string());
  CHECK(slow["rank"] == 2);
  CHECK(slow["versus_base"] == "established");
  CHECK(slow["ratio_vs_base"].get<double>() == doctest::Approx(1.44).epsilon(0.02));  // (1.5 x 300 + 40) / 340
  // Profiles without device time cannot be ranked by it.
  const CliResult none = run({"rank", example("A"), example("C"), "--metric", "device-total", "--quiet"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("has no device time") != std::string::npos);
}

TEST_CASE("rank says when device activity was captured but a profile holds no device time") {
  const fs::path dir = scratch("rank-device-unknown");
  const std::string activities = R"(, "profiler": {"activities": ["CPU", "PrivateUse1"]})";
  const std::string a = traces_only(dir, "A", "eager", activities), c = traces_only(dir, "C", "eager", activities);
  const Ranked r = rank({a, c});
  INFO(r.result.err);
  REQUIRE(r.result.exit_code == 0);
  REQUIRE(r.report["device_unknown"].size() == 2);
  CHECK(r.report["device_unknown"][0]["device_activity"] == "manifest profiler.activities CPU,PrivateUse1");
  CHECK(r.markdown.find("Device time unknown for `" + a + "`: device activity was captured") != std::string::npos);
  CHECK(rank({example("A"), example("C")}).report["device_unknown"].empty());
}

TEST_SUITE_END();
