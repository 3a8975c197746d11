// Cost per unit of work (issue 19 item 3): derived from e2e.json throughput samples and a price per
// instance-hour in the run manifest or the rules, compared like any end-to-end metric.
#include "cli_helpers.hpp"
#include "compare/cost.hpp"
#include "compare/rule_set.hpp"
#include "formats/manifest.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_SUITE_BEGIN("cli::cost");

namespace {

// e2e.json with latency (ms) and throughput (samples/s): throughput first..first+20 (21 samples, median
// first+10), latency 1000/throughput ms.
std::string e2e_json(int first) {
  std::ostringstream latency, throughput;
  for (int i = 0; i < 21; ++i) {
    latency << (i ? ", " : "") << 1000.0 / (first + i);
    throughput << (i ? ", " : "") << (first + i);
  }
  return R"({"schema": "neuron-gate.e2e/1", "metrics": [)"
         R"({"name": "latency", "unit": "ms", "better": "lower", "samples": [)" +
         latency.str() + "]}, " + R"({"name": "throughput", "unit": "samples/s", "better": "higher", "samples": [)" +
         throughput.str() + "]}]}\n";
}

std::string manifest(const std::string& price) {
  return R"({"schema": "neuron-gate.manifest/1", "instance_type": "trn1.2xlarge")" +
         (price.empty() ? std::string() : ", \"price_per_hour\": " + price) + "}\n";
}

// A side: e2e.json from `first`, and a manifest with this price ("" = none).
std::string side(const fs::path& dir, int first, const std::string& price) {
  write_file(dir / "e2e.json", e2e_json(first));
  write_file(dir / "neuron-gate.json", manifest(price));
  return dir.string();
}

json metric(const json& report, const std::string& name) {
  for (const json& m : report["metrics"]) {
    if (m["name"] == name) {
      return m;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("cost per 1M samples: price / 3600 / throughput * 1e6, by hand") {
  // 21.96 USD/h (trn1.32xlarge on-demand) at 50 000 samples/s: 21.96 / 3600 = 0.0061 USD/s;
  // / 50 000 = 1.22e-7 USD per sample; x 1e6 = 0.122 USD per 1M samples.
  CHECK(neuron_gate::cost_per_million(21.96, 50000.0) == doctest::Approx(0.122).epsilon(1e-12));
  // 3.6 USD/h = 0.001 USD/s; at 2000 samples/s: 5e-7 USD per sample = 0.5 USD per 1M samples.
  CHECK(neuron_gate::cost_per_million(3.6, 2000.0) == doctest::Approx(0.5).epsilon(1e-12));
  const auto ms = neuron_gate::parse_rate_unit("tokens/ms");
  REQUIRE(ms);
  CHECK(ms->work == "tokens");
  CHECK(ms->seconds == 1e-3);
  CHECK_FALSE(neuron_gate::parse_rate_unit("ms"));
  CHECK_FALSE(neuron_gate::parse_rate_unit("samples/furlong"));
}

TEST_CASE("price_per_hour in the manifest and the rules is validated") {
  CHECK(neuron_gate::parse_manifest(manifest("21.96"), "m.json").fields.at("price_per_hour") == "21.96");
  CHECK_THROWS_WITH(neuron_gate::parse_manifest(manifest("0"), "m.json"),
                    doctest::Contains("\"price_per_hour\" must be a number above 0"));
  CHECK_THROWS_WITH(neuron_gate::parse_manifest(manifest("\"21.96\""), "m.json"), doctest::Contains("price_per_hour"));
  CHECK(*neuron_gate::parse_rules(R"({"price_per_hour": 3.6})", "r.json").price_per_hour == 3.6);
  CHECK_THROWS_WITH(neuron_gate::parse_rules(R"({"price_per_hour": -1})", "r.json"),
                    doctest::Contains("price_per_hour"));
  CHECK_FALSE(neuron_gate::default_rules().price_per_hour);
}

TEST_CASE("compare: head with more throughput has a lower cost, per sample from throughput") {
  const fs::path dir = scratch("cost-more-throughput");
  const Compared report_run = compare_json(side(dir / "base", 1990, "3.6"), side(dir / "head", 2490, "3.6"));
  CHECK(report_run.result.exit_code == 0);
  const json& report = report_run.report;
  const json cost = metric(report, "cost");
  REQUIRE(cost.is_object());
  CHECK(cost["unit"] == "USD/1M samples");
  CHECK(cost["better"] == "lower");
  CHECK(cost["class"] == "end_to_end");
  // 3.6 USD/h = 0.001 USD/s: cost = 1000 / throughput USD per 1M samples, sample by sample.
  CHECK(cost["base"]["n"] == 21);
  CHECK(cost["base"]["median"].get<double>() == doctest::Approx(1000.0 / 2000.0).epsilon(1e-12));
  CHECK(cost["base"]["min"].get<double>() == doctest::Approx(1000.0 / 2010.0).epsilon(1e-12));
  CHECK(cost["base"]["max"].get<double>() == doctest::Approx(1000.0 / 1990.0).epsilon(1e-12));
  CHECK(cost["head"]["median"].get<double>() == doctest::Approx(1000.0 / 2500.0).epsilon(1e-12));
  CHECK(cost["verdict"] == "IMPROVED");
  CHECK(cost["ratio"].get<double>() == doctest::Approx(0.8).epsilon(0.01));
  CHECK(cost["ratio_ci90"][1].get<double>() < 1.0);
  // The same test as throughput's, mirrored: a monotone transform keeps the ranks.
  const json throughput = metric(report, "throughput");
  CHECK(cost["test"]["p_better"].get<double>() == doctest::Approx(throughput["test"]["p_better"].get<double>()));
}

TEST_CASE("compare: prices that differ are shown, not a condition — each side's cost uses its own price") {
  const fs::path dir = scratch("cost-price-differs");
  const std::string base = side(dir / "base", 1990, "3.6");
  const std::string head = side(dir / "head", 1990, "7.2");
  const Compared report_run = compare_json(base, head);
  CHECK(report_run.result.exit_code == 1);  // same throughput at twice the price: cost regressed
  const json& report = report_run.report;
  const json cost = metric(report, "cost");
  CHECK(cost["head"]["median"].get<double>() == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(cost["verdict"] == "REGRESSED");
  CHECK(metric(report, "throughput")["verdict"] != "REGRESSED");
  json price_row;
  for (const json& row : report["conditions"]) {
    if (row["name"] == "manifest.price_per_hour") {
      price_row = row;
    }
  }
  REQUIRE(price_row.is_object());
  CHECK(price_row["matches"] == true);
  CHECK(price_row["base"] == "3.6");
  CHECK(price_row["head"] == "7.2");
  // The rules' price applies to both sides: the same throughput then costs the same.
  const fs::path rules = dir / "rules.json";
  write_file(rules, R"({"price_per_hour": 3.6})");
  const Compared one_price_run = compare_json(base, head, {"--rules", rules.string()});
  CHECK(one_price_run.result.exit_code == 0);
  const json& one_price = one_price_run.report;
  CHECK(metric(one_price, "cost")["head"]["median"].get<double>() == doctest::Approx(0.5).epsilon(1e-12));
}

TEST_CASE("compare: a price on one side only gives no cost and says why") {
  const fs::path dir = scratch("cost-one-side");
  const Compared report_run = compare_json(side(dir / "base", 1990, "3.6"), side(dir / "head", 2490, ""));
  CHECK(report_run.result.exit_code == 0);
  const json& report = report_run.report;
  CHECK(metric(report, "cost").is_null());
  CHECK(report.dump().find("price_per_hour is given for base only") != std::string::npos);
}

TEST_CASE("compare: an explicit cost metric in e2e.json is compared as given, not derived again") {
  const fs::path dir = scratch("cost-explicit");
  for (const auto& [name, value] : {std::pair<std::string, double>{"base", 0.5}, {"head", 0.4}}) {
    std::string samples;
    for (int i = 0; i < 21; ++i) {
      samples += (i ? ", " : "") + std::to_string(value + 0.001 * i);
    }
    write_file(
        dir / name / "e2e.json",
        R"({"schema": "neuron-gate.e2e/1", "metrics": [{"name": "throughput", "unit": "samples/s", "better": )"
        R"("higher", "samples": [2000, 2001, 2002, 2003, 2004, 2005]}, {"name": "cost", "unit": "USD/1M samples", )"
        R"("better": "lower", "samples": [)" +
            samples + "]}]}\n");
    write_file(dir / name / "neuron-gate.json", manifest("3.6"));
  }
  const Compared report_run = compare_json((dir / "base").string(), (dir / "head").string());
  const json& report = report_run.report;
  std::size_t costs = 0;
  for (const json& m : report["metrics"]) {
    costs += m["name"] == "cost" ? 1U : 0U;
  }
  CHECK(costs == 1);
  CHECK(metric(report, "cost")["base"]["median"].get<double>() == doctest::Approx(0.51).epsilon(1e-12));
  CHECK(report.dump().find("so none is derived") != std::string::npos);
}

TEST_SUITE_END();
