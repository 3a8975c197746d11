// Replacement groups and class totals (issue 12 item 2) on real PyTorch 1.13 profiles: ops that
// appear, disappear or change calls per step are read together, and their summed time per step gates
// where per-op metrics gate. tests/data/profiles/traces-only (scripts/profiles/gen_rmsnorm.py): A is
// RMSNorm as separate ops; LNbig is layer_norm on rows padded to 8192 (the step clearly slower); LN is
// layer_norm at 4x512 (faster). The bundled examples are copied without e2e.json (traces only).
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string traces_only(const std::string& variant) {
  return data("profiles/traces-only/" + variant);
}

// A copy of a bundled example without its e2e.json (its traces and tables only).
std::string example_without_e2e(const std::string& variant) {
  const fs::path dest = scratch("replacements-" + variant) / variant;
  fs::remove_all(dest);
  fs::copy(example(variant), dest, fs::copy_options::recursive);
  REQUIRE(fs::remove(dest / "e2e.json"));
  return dest.string();
}

struct Rendered {
  CliResult result;
  json report;
  std::string markdown, html, junit;
};

Rendered compare_all(const std::string& base, const std::string& head, const std::string& name) {
  const fs::path dir = scratch("replacements-out-" + name);
  Rendered r;
  r.result = run({"compare", base, head, "--no-git", "--quiet", "--json", (dir / "r.json").string(), "--markdown",
                  (dir / "r.md").string(), "--html", (dir / "r.html").string(), "--junit", (dir / "r.xml").string()});
  r.report = json::parse(read_text((dir / "r.json").string()));
  r.markdown = read_text((dir / "r.md").string());
  r.html = read_text((dir / "r.html").string());
  r.junit = read_text((dir / "r.xml").string());
  return r;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE_BEGIN("cli replacements");

TEST_CASE("traces only: A -> LNbig (fused layer_norm at a larger shape) fails on the replacement group") {
  const Rendered r = compare_all(traces_only("A"), traces_only("LNbig"), "lnbig");
  CAPTURE(r.result.err);
  CHECK(r.result.exit_code == 1);
  CHECK(r.report["verdict"] == "regression");
  const json group = find_metric(r.report, "self_cpu", "replaced ops");
  REQUIRE(group.is_object());
  CHECK(group["scope"] == "replacement group");
  CHECK(group["verdict"] == "REGRESSED");
  CHECK(group["gating"] == true);
  CHECK(group["family"] == "per-op");
  CHECK(group["family_size"] ==
        4);  // the material ops (rmsnorm_step; aten::fill_ by its head share), the total and the group
  CHECK(group["base"]["median"].get<double>() == doctest::Approx(16.5));
  CHECK(group["head"]["median"].get<double>() == doctest::Approx(239.0));
  CHECK(group["ratio"].get<double>() == doctest::Approx(14.6875).epsilon(1e-4));
  CHECK(group["ratio_ci90"][0].get<double>() == doctest::Approx(12.2121).epsilon(1e-4));
  CHECK(group["base"]["n"] == 8);  // 4 runs of 3 cycles, the first of each left out as warm-up
  CHECK(group["replaced"]["appeared"] ==
        json::array({"aten::as_strided", "aten::constant_pad_nd", "aten::layer_norm", "aten::narrow",
                     "aten::native_layer_norm", "aten::pad", "aten::slice", "aten::view"}));
  CHECK(group["replaced"]["gone"].size() == 11);
  CHECK(group["replaced"]["gone"][6] == "aten::pow");
  CHECK(group["replaced"]["calls_changed"] == json::array({"aten::copy_", "aten::empty"}));
  const json total = find_metric(r.report, "self_cpu", "all ops");
  CHECK(total["scope"] == "class total");
  CHECK(total["verdict"] == "REGRESSED");
  CHECK(total["ratio"].get<double>() == doctest::Approx(7.8252).epsilon(1e-4));
  CHECK(total["base"]["median"].get<double>() == doctest::Approx(32.5));
  // The group's ops are judged through it only: STRUCTURAL, never gating, not in the per-op family.
  const json empty = find_metric(r.report, "self_cpu", "aten::empty");
  CHECK(empty["verdict"] == "STRUCTURAL");
  CHECK(empty["gating"] == false);
  CHECK(empty["family"] == "per-op (replaced)");
  CHECK(has(empty["reason"], "median calls per step 3 -> 7; judged with its replacement group"));
  CHECK(r.report["material"]["sums"] == 2);
  CHECK(r.report["material"]["replaced"] == 2);
  // Named in every format: which ops left, which appeared, the summed time base -> head.
  const std::string line =
      "Replacement (self CPU), read together: 11 ops no longer run (`aten::_to_copy`, `aten::add`, ";
  CHECK(has(r.markdown, line));
  CHECK(has(r.markdown, "8 new ops run (`aten::as_strided`, "));
  CHECK(has(r.markdown, "; largest `aten::native_layer_norm`); calls per step changed (median, base → head): "
                        "`aten::copy_` 2 → 1, `aten::empty` 3 → 7. Their summed self CPU time per step: 16.5 µs → "
                        "239 µs, +1,369% (90% CI "));
  CHECK(has(r.markdown, "- the replacement group `replaced ops` (self CPU) REGRESSED: +1,369% (90% CI "));
  CHECK(has(r.html, "Replacement (self CPU), read together: 11 ops no longer run (<code>aten::_to_copy</code>"));
  bool interpreted = false;
  for (const json& text : r.report["interpretations"]) {
    interpreted = interpreted || has(text, "Their summed self CPU time per step: 16.5 µs → 239 µs");
  }
  CHECK(interpreted);
  CHECK(has(r.junit, "<testcase name=\"replaced ops (self CPU)\""));
  CHECK(has(r.junit, "replaced ops: no longer run: `aten::_to_copy`, `aten::add`, "));
  CHECK(has(r.junit, "new: `aten::as_strided`, `aten::constant_pad_nd`, `aten::layer_norm`, "));
}

// The replacement group grows 16.5 -> 18.0 µs (+6.3%, undecided, 8 samples a side from 4 processes):
// beyond the 5% threshold, so NO DECISION naming it (issue 36 item 3), while all ops improve. It passed
// while a change of one timer quantum could pass whatever the op's size (now only for ops under 3 µs).
TEST_CASE("traces only: A -> LN (layer_norm, faster in all) is NO DECISION on its +6.3% replacement group") {
  const Rendered r = compare_all(traces_only("A"), traces_only("LN"), "ln");
  CHECK(r.result.exit_code == 0);
  CHECK(r.report["verdict"] == "no-decision");
  CHECK(has(r.report["verdict_line"].get<std::string>(), "NO DECISION · `replaced ops` (self CPU) +6.3% (90% CI "));
  const json group = find_metric(r.report, "self_cpu", "replaced ops");
  CHECK(group["verdict"] == "INCONCLUSIVE");
  CHECK(group["gating"] == true);
  CHECK(group["base"]["median"].get<double>() == doctest::Approx(16.5));
  CHECK(group["head"]["median"].get<double>() == doctest::Approx(18.0));
  CHECK(group["replaced"]["appeared"] == json::array({"aten::layer_norm", "aten::native_layer_norm", "aten::view"}));
  const json total = find_metric(r.report, "self_cpu", "all ops");
  // -26.9% over the pooled steps, but 4 runs a side do not establish it at the family's level
  CHECK(total["verdict"] == "INCONCLUSIVE");
  CHECK(has(total["reason"].get<std::string>(), "the runs' medians do not establish it"));
  CHECK(has(total["reason"].get<std::string>(), "one-sided p 0.0388 (needs 0.0167, the family's level)"));
  CHECK(total["ratio"].get<double>() == doctest::Approx(0.7315).epsilon(1e-3));
  CHECK(has(r.markdown, "Their summed self CPU time per step: 16.5 µs → 18.0 µs, +6.3% (90% CI "));
  // These torch traces record no shapes: inputs are counted apart, unverified, in the unfolded context line.
  CHECK(has(r.markdown, " · 8 of 9 conditions match · inputs unknown: record shapes or add a run manifest · "));
  CHECK(has(r.markdown, "<details><summary>8 of 9 match, 1 not verified</summary>"));
  CHECK(has(r.markdown, "| inputs | unknown | unknown | ? not verified: "));
  CHECK(r.report["conditions"][7]["name"] == "inputs");
  CHECK(r.report["conditions"][7]["verified"] == false);
}

TEST_CASE("the bundled examples without e2e.json: A -> Areg fails from traces alone, A -> A2 and A -> C pass") {
  // Issues 12 and 14, checked-by: traces-only copies of the bundled examples give A->Areg exit 1,
  // A->A2 exit 0, A->C exit 0.
  const std::string a = example_without_e2e("A");
  const Rendered same = compare_all(a, example_without_e2e("A2"), "a2");
  CHECK(same.result.exit_code == 0);
  CHECK(find_metric(same.report, "self_cpu", "replaced ops").is_null());  // same ops, same calls
  CHECK(find_metric(same.report, "self_cpu", "all ops")["verdict"] == "INCONCLUSIVE");
  const Rendered scripted = compare_all(a, example_without_e2e("C"), "c");
  CHECK(scripted.result.exit_code == 0);
  const Rendered reg = compare_all(a, example_without_e2e("Areg"), "areg");
  // The ten ops whose calls per step grew, summed per step: medians 15.5 -> 21.5 µs over 70 vs 70 steps
  // (10 runs of 8 profiler cycles, each run's first left out as warm-up). Computed independently by
  // tests/tools/replacement_group_check.py over the traces (self time by time containment): the same
  // medians, and the one-sided Mann–Whitney p 1.6304e-12 (normal approximation, tie and continuity
  // corrected, as SciPy's asymptotic method), which Holm over the 5 material self CPU metrics makes 8.15e-12.
  CHECK(reg.result.exit_code == 1);
  const json group = find_metric(reg.report, "self_cpu", "replaced ops");
  CHECK(group["verdict"] == "REGRESSED");
  CHECK(group["gating"] == true);
  CHECK(group["base"]["median"].get<double>() == doctest::Approx(15.5));
  CHECK(group["head"]["median"].get<double>() == doctest::Approx(21.5));
  CHECK(group["ratio"].get<double>() == doctest::Approx(1.4286).epsilon(1e-3));
  CHECK(group["test"]["p_worse"].get<double>() == doctest::Approx(1.6304296e-12).epsilon(1e-6).scale(0));
  CHECK(group["test"]["p_worse_adjusted"].get<double>() == doctest::Approx(5 * 1.6304296e-12).epsilon(1e-6).scale(0));
  CHECK(group["replaced"]["calls_changed"].size() == 10);
  CHECK(group["replaced"]["gone"].empty());
  CHECK(group["replaced"]["appeared"].empty());
  CHECK(has(reg.markdown, "replaced ops self CPU +42.9%"));
  const json total = find_metric(reg.report, "self_cpu", "all ops");
  CHECK(total["base"]["median"].get<double>() == doctest::Approx(35.0));
  CHECK(total["head"]["median"].get<double>() == doctest::Approx(44.0));
}

TEST_CASE("the bundled examples with e2e.json keep their verdicts and the summed metrics do not gate") {
  CHECK(run({"compare", example("A"), example("Areg"), "--no-git", "--quiet"}).exit_code == 1);
  CHECK(run({"compare", example("A"), example("A2"), "--no-git", "--quiet"}).exit_code == 0);
  CHECK(run({"compare", example("A"), example("B"), "--no-git", "--quiet"}).exit_code == 1);
  CHECK(run({"compare", example("A"), example("C"), "--no-git", "--quiet"}).exit_code == 0);
}

TEST_CASE("calibrate on a same-code side: the summed metrics keep the false-alarm rate within alpha") {
  for (const std::string& side : {example_without_e2e("A"), traces_only("A")}) {
    CAPTURE(side);
    const fs::path out = scratch("replacements-calibrate") / "c.json";
    const CliResult result = run({"calibrate", side, "--json", out.string()});
    REQUIRE(result.exit_code == 0);
    const json c = json::parse(read_text(out.string()));
    CHECK(c["failing_splits"] == 0);  // measured: 0 of 200 on both (95% CI 0%-1.83%)
    CHECK(c["splits"] == 200);
    bool total = false;
    for (const json& m : c["metrics"]) {
      total = total || (m["name"] == "all ops" && m["scope"] == "class total" && m["gating"] == true &&
                        m["regressed_splits"] == 0);
    }
    CHECK(total);
  }
}

TEST_SUITE_END();
