// `compare` with rules a pull request must not be able to loosen (issue 15 item 1): waivers bounded by
// max_waiver_days from --today (or SOURCE_DATE_EPOCH), catch-all waivers refused, and --rules-from shown
// in Provenance. On the bundled examples A vs Areg (the end-to-end latency regresses about 1.4x).
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace neuron_gate::testing;
using nlohmann::json;

TEST_SUITE_BEGIN("cli::rules");

namespace {

std::string write_rules(const std::string& name, const std::string& text) {
  const auto dir = scratch("rules-" + name);
  const std::string path = (dir / "rules.json").string();
  std::ofstream(path) << text;
  return path;
}

const char* const k_latency_waiver =
    R"({"waivers": [{"pattern": "latency", "reason": "accepted in #7", "expires": "2026-03-01"}]})";

}  // namespace

TEST_CASE("a waiver inside max_waiver_days of --today waives the regression — --today decides, not the clock") {
  const std::string rules = write_rules("waived", k_latency_waiver);
  const CliResult waived =
      run({"compare", example("A"), example("Areg"), "--rules", rules, "--today", "2026-01-15", "--quiet", "--no-git"});
  CHECK(waived.exit_code == 0);
  const CliResult expired =
      run({"compare", example("A"), example("Areg"), "--rules", rules, "--today", "2026-03-02", "--quiet", "--no-git"});
  CHECK(expired.exit_code == 1);  // the day after expiry: the regression fails the gate again
}

TEST_CASE("a waiver expiring beyond max_waiver_days is an input error naming the rules file") {
  const std::string rules = write_rules("far", k_latency_waiver);
  const CliResult r =
      run({"compare", example("A"), example("Areg"), "--rules", rules, "--today", "2025-11-01", "--quiet", "--no-git"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "neuron-gate: error: " + rules +
                     ": \"waivers[0]\" (pattern \"latency\") expires 2026-03-01, 120 days "
                     "after today (2025-11-01); the rules allow at most 90 days (max_waiver_days)\n");
}

TEST_CASE("the catch-all waiver of issue 15 is refused, naming the rules file") {
  const std::string rules =
      write_rules("star", R"({"waivers": [{"pattern": "*", "reason": "x", "expires": "2999-12-31"}]})");
  const CliResult r = run({"compare", example("A"), example("Areg"), "--rules", rules, "--quiet", "--no-git"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("neuron-gate: error: " + rules + ": \"waivers[0].pattern\" is \"*\", which matches every metric",
                    0) == 0);
}

// Issue 39 item 6: "*a*" or "*:*" is no catch-all by shape, yet matches every aten op. Checked against base's
// own ops: ignored or waived ops may hold at most half of its self CPU (and of its device) time.
TEST_CASE("ignore and waiver patterns reaching more than half of base's time are refused, a named op is not") {
  const std::string any_a = write_rules("any-a", R"({"ignore": ["*a*"]})");
  const CliResult ignored = run({"compare", example("A"), example("Areg"), "--rules", any_a, "--quiet", "--no-git"});
  CHECK(ignored.exit_code == 2);
  CHECK(ignored.err == "neuron-gate: error: " + any_a +
                           ": `ignore` patterns match ops holding 50.7% of base's self CPU time (aten::pow, "
                           "aten::_to_copy, aten::mean), more than the 50% a rules file may take out of the "
                           "comparison: name the ops themselves\n");
  const std::string colon =
      write_rules("colon", R"({"waivers": [{"pattern": "*:*", "reason": "x", "expires": "2026-03-01"}]})");
  const CliResult waived =
      run({"compare", example("A"), example("Areg"), "--rules", colon, "--today", "2026-01-15", "--quiet", "--no-git"});
  CHECK(waived.exit_code == 2);
  CHECK(waived.err.find("`waivers` patterns match ops holding 50.7% of base's self CPU time") != std::string::npos);
  // Device time counts too: on the real ResNet50 CUDA trace K1, "aten::c*" reaches the cuDNN convolutions.
  const std::string conv = write_rules("conv", R"({"ignore": ["aten::c*"]})");
  const CliResult device =
      run({"compare", data("corpus/K1"), data("corpus/K2"), "--rules", conv, "--quiet", "--no-git"});
  CHECK(device.exit_code == 2);
  CHECK(device.err.find("`ignore` patterns match ops holding 87.1% of base's device time "
                        "(aten::cudnn_convolution_backward_weight, ") != std::string::npos);
  // One op by name (aten::mul, 3 µs of a 42.5 µs step): ignored, and Areg still fails on latency.
  const std::string mul = write_rules("mul", R"({"ignore": ["aten::mul"]})");
  const CliResult named = run({"compare", example("A"), example("Areg"), "--rules", mul, "--quiet", "--no-git"});
  CHECK(named.exit_code == 1);
  CHECK(named.err.empty());
}

TEST_CASE("SOURCE_DATE_EPOCH is today when --today is not given — a bad value is a usage error") {
  const std::string rules = write_rules("epoch", k_latency_waiver);
  ::setenv("SOURCE_DATE_EPOCH", "1767225600", 1);  // 2026-01-01T00:00:00Z: 59 days before expiry
  const CliResult waived = run({"compare", example("A"), example("Areg"), "--rules", rules, "--quiet", "--no-git"});
  ::setenv("SOURCE_DATE_EPOCH", "1761955200", 1);  // 2025-11-01: 120 days before expiry
  const CliResult far = run({"compare", example("A"), example("Areg"), "--rules", rules, "--quiet", "--no-git"});
  ::setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
  const CliResult bad = run({"compare", example("A"), example("A2"), "--quiet", "--no-git"});
  const CliResult option_wins =
      run({"compare", example("A"), example("Areg"), "--rules", rules, "--today", "2026-01-15", "--quiet", "--no-git"});
  ::unsetenv("SOURCE_DATE_EPOCH");
  CHECK(waived.exit_code == 0);
  CHECK(far.exit_code == 2);
  CHECK(far.err.find("120 days after today (2025-11-01)") != std::string::npos);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("SOURCE_DATE_EPOCH must be a number of seconds") != std::string::npos);
  CHECK(option_wins.exit_code == 0);
  const CliResult bad_option =
      run({"compare", example("A"), example("A2"), "--today", "2026-02-30", "--quiet", "--no-git"});
  CHECK(bad_option.exit_code == 2);
  CHECK(bad_option.err.find("--today must be a date YYYY-MM-DD, not \"2026-02-30\"") != std::string::npos);
}

TEST_CASE("--rules-from names where the rules came from in Markdown, HTML and JSON Provenance") {
  const auto dir = scratch("rules-from");
  const std::string rules = write_rules("from", R"({"schema": "neuron-gate.rules/1"})");
  const std::string md = (dir / "r.md").string(), js = (dir / "r.json").string(), html = (dir / "r.html").string();
  const CliResult r =
      run({"compare", example("A"), example("A2"), "--rules", rules, "--rules-from",
           "ci/rules.json at commit 0123456789abcdef", "--markdown", md, "--json", js, "--html", html, "--no-git"});
  CHECK(r.exit_code == 0);
  CHECK(read_text(md).find("- rules: " + rules + " from ci/rules.json at commit 0123456789abcdef (sha256") !=
        std::string::npos);
  CHECK(read_text(html).find(" from ci/rules.json at commit 0123456789abcdef (sha256") != std::string::npos);
  CHECK(json::parse(read_text(js))["rules"]["from"] == "ci/rules.json at commit 0123456789abcdef");
  // Without it the key is absent (reports of earlier versions stay as they were).
  const CliResult plain = run({"compare", example("A"), example("A2"), "--json", js, "--no-git", "--quiet"});
  CHECK(plain.exit_code == 0);
  CHECK_FALSE(json::parse(read_text(js))["rules"].contains("from"));
}

// Issue 38 item 6: runtime calls (cudaLaunchKernel, nrt_execute) are host-side calls into the device
// runtime: their self CPU time is a family of its own, shown, and gating only under gate_runtime_calls.
// tests/data/bad/screen/*slow-launch: every launch call 30% slower (10 -> 13 µs), the ops' own self CPU kept.
TEST_CASE("runtime calls are a family of their own that does not gate by default") {
  for (const std::string flavour : {"", "nrt-"}) {
    CAPTURE(flavour);
    const std::string base = data("bad/screen/" + flavour + "base"),
                      head = data("bad/screen/" + flavour + "slow-launch");
    const auto dir = scratch("runtime-calls-" + flavour);
    const std::string report = (dir / "r.json").string(), markdown = (dir / "r.md").string();
    const CliResult result = run({"compare", base, head, "--no-git", "--json", report, "--markdown", markdown});
    CHECK(result.exit_code == 0);
    const json r = json::parse(read_text(report));
    const std::string call = flavour.empty() ? "cudaLaunchKernel" : "nrt_execute";
    const json launch = find_metric(r, "self_cpu", call);
    CHECK(launch["verdict"] == "REGRESSED");
    CHECK(launch["ratio"].get<double>() == doctest::Approx(1.3).epsilon(0.01));
    CHECK(launch["family"] == "runtime calls");
    CHECK(launch["gating"] == false);
    // outside the self CPU class total: `all ops` holds the ops' own self CPU time, unchanged
    CHECK(find_metric(r, "self_cpu", "all ops")["verdict"] == "EQUIVALENT");
    CHECK(read_text(markdown).find("runtime calls' self CPU time (not gating: rules gate_runtime_calls)") !=
          std::string::npos);
    const CliResult gated = run({"compare", base, head, "--no-git", "--quiet", "--rules",
                                 write_rules("runtime-" + flavour, R"({"gate_runtime_calls": true})")});
    CHECK(gated.exit_code == 1);
  }
  CHECK(run({"compare", data("bad/screen/base"), data("bad/screen/clean"), "--no-git", "--quiet", "--rules",
             write_rules("runtime-bad", R"({"gate_runtime_calls": "yes"})")})
            .exit_code == 2);
}

TEST_SUITE_END();
