// Device time no op accounts for (issue 13 item 2 against issue 12 item 3): the rows `device time not
// attributed to an op (kernel)` are measured and shown, never REGRESSED or IMPROVED and never gating; the
// device total `all ops`, which holds that time, gates it. Fixtures: tests/data/unattributed (made by
// make_fixtures.py there; README.md says what each holds). Expected medians were computed from the trace
// files with Python (per step: the kernels starting in the step's window, summed), not by neuron-gate.

#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>

using namespace neuron_gate::testing;

namespace {

const char* const k_row = "device time not attributed to an op (kernel)";

struct UnattributedCompare {
  CliResult result;
  nlohmann::json report;
  std::string markdown;
};

UnattributedCompare compare_sides(const std::string& base, const std::string& head,
                                  std::vector<std::string> extra = {}) {
  const auto dir = scratch("unattributed-" + head);
  std::vector<std::string> args = {"compare",
                                   data("unattributed/" + base),
                                   data("unattributed/" + head),
                                   "--no-git",
                                   "--json",
                                   (dir / "r.json").string(),
                                   "--markdown",
                                   (dir / "r.md").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  UnattributedCompare c;
  c.result = run(args);
  c.report = nlohmann::json::parse(read_text((dir / "r.json").string()));
  c.markdown = read_text((dir / "r.md").string());
  return c;
}

// The unattributed row: shown with its change, capped, never gating, in a family of its own.
void row_capped(const UnattributedCompare& c, const char* capped_from) {
  const nlohmann::json row = find_metric(c.report, "device", k_row);
  REQUIRE(row != nullptr);
  CHECK(row["verdict"] == "INCONCLUSIVE");
  CHECK(row["gating"] == false);
  CHECK(row["family"] == "per-op (not attributed)");
  CHECK(row["not_attributed"]["capped_from"] == capped_from);
  CHECK(row["reason"].get<std::string>().find("device time no op accounts for: counted in the device `all ops` total, "
                                              "which gates; not judged on its own (on its own: ") == 0);
  CHECK(row["ratio"].is_number());
  CHECK(row["ratio_ci90"][0].is_number());
  // no self CPU row for it: it has device time only
  CHECK(find_metric(c.report, "self_cpu", k_row) == nullptr);
}

}  // namespace

TEST_CASE("unattributed device time doubling: the row is not REGRESSED — the device total fails the gate") {
  const UnattributedCompare c = compare_sides("base", "doubled");
  CHECK(c.result.exit_code == 1);
  CHECK(c.report["verdict"] == "regression");
  row_capped(c, "REGRESSED");
  const nlohmann::json row = find_metric(c.report, "device", k_row);
  CHECK(row["base"]["median"] == doctest::Approx(200.5));
  CHECK(row["head"]["median"] == doctest::Approx(401.0));
  // `all ops` holds the unattributed time: 302 µs of gemm + 200.5 µs no op accounts for per step
  const nlohmann::json total = find_metric(c.report, "device", "all ops");
  CHECK(total["verdict"] == "REGRESSED");
  CHECK(total["gating"] == true);
  CHECK(total["base"]["median"] == doctest::Approx(502.0));
  CHECK(total["head"]["median"] == doctest::Approx(703.0));
  CHECK(find_metric(c.report, "device", "aten::mm")["verdict"] == "EQUIVALENT");
  CHECK(find_metric(c.report, "device", "aten::mm")["base"]["median"] == doctest::Approx(302.0));
  // the interpretation names the row and the total that gates it
  CHECK(c.markdown.find("`device time not attributed to an op (kernel)`: 200 µs → 401 µs per step (2.000x of base, "
                        "90% CI [1.990, 2.010]), worse beyond its threshold") != std::string::npos);
  CHECK(c.markdown.find("never judged on its own: it is counted in `all ops` (device time), 502 µs → 703 µs per step "
                        "(1.400x), REGRESSED, which gates that time") != std::string::npos);
  for (const auto& m : c.report["metrics"]) {
    CAPTURE(m["name"].get<std::string>());
    if (m["verdict"] == "REGRESSED") {
      CHECK(m["name"] == "all ops");
    }
  }
}

TEST_CASE("`ignore` never drops the unattributed rows: the device total still holds that time") {
  const auto dir = scratch("unattributed-ignore");
  std::ofstream(dir / "rules.json")
      << R"({"schema": "neuron-gate.rules/1", "ignore": ["ProfilerStep*", "device time*"]})";
  const UnattributedCompare c = compare_sides("base", "doubled", {"--rules", (dir / "rules.json").string()});
  CHECK(c.result.exit_code == 1);
  CHECK(find_metric(c.report, "device", "all ops")["base"]["median"] == doctest::Approx(502.0));
  CHECK(find_metric(c.report, "device", k_row)["verdict"] == "INCONCLUSIVE");
}

TEST_CASE("unattributed device time improving: the row never says IMPROVED") {
  const UnattributedCompare c = compare_sides("base", "improved");
  CHECK(c.result.exit_code == 0);
  CHECK(c.report["verdict"] == "pass");
  row_capped(c, "IMPROVED");
  CHECK(find_metric(c.report, "device", k_row)["head"]["median"] == doctest::Approx(101.0));
  const nlohmann::json total = find_metric(c.report, "device", "all ops");
  CHECK(total["base"]["median"] == doctest::Approx(502.0));
  CHECK(total["head"]["median"] == doctest::Approx(403.0));
  CHECK(total["verdict"] == "IMPROVED");  // the total is judged: it holds attributed time too
}

TEST_CASE("a small unattributed change the total does not show is named in the Interpretations") {
  const UnattributedCompare c = compare_sides("base-small", "small");
  CHECK(c.result.exit_code == 0);
  row_capped(c, "REGRESSED");
  const nlohmann::json total = find_metric(c.report, "device", "all ops");
  CHECK(total["verdict"] == "EQUIVALENT");
  CHECK(total["base"]["median"] == doctest::Approx(313.0));
  CHECK(total["head"]["median"] == doctest::Approx(323.0));
  CHECK(c.markdown.find("`device time not attributed to an op (kernel)`: 11.0 µs → 21.0 µs per step") !=
        std::string::npos);
  CHECK(c.markdown.find("EQUIVALENT, which gates that time") != std::string::npos);
}

TEST_CASE("an op whose kernels lost their launch link is not a replacement judged on its own") {
  // head: gemm has no correlation and no External id, so aten::mm's device time reads as gone and the
  // row of device time no op accounts for grows by as much; the total stays put.
  const UnattributedCompare c = compare_sides("base", "attribution-lost");
  CHECK(c.result.exit_code == 0);
  const nlohmann::json group = find_metric(c.report, "device", "replaced ops");
  REQUIRE(group != nullptr);
  CHECK(group["replaced"]["gone"] == nlohmann::json::array({"aten::mm"}));
  CHECK(group["gating"] == false);
  CHECK(group["family"] == "per-op (not attributed)");
  CHECK(group["reason"].get<std::string>().find("the group holds device time no op accounts for") != std::string::npos);
  CHECK(find_metric(c.report, "device", "all ops")["verdict"] == "EQUIVALENT");
  for (const auto& m : c.report["metrics"]) {
    CAPTURE(m["name"].get<std::string>());
    if (m["class"] == "device") {
      CHECK(m["verdict"] != "REGRESSED");
      CHECK(m["verdict"] != "IMPROVED");
    }
  }
}
