// Pettitt's change-point test (stats/change_point.hpp) against tests/data/reference/pettitt.json, made by
// tests/tools/pettitt_reference.py by brute force over all orderings (an independent method).
#include "stats/change_point.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <vector>

namespace neuron_gate {
namespace {

TEST_CASE("Pettitt: statistic, change index and exact permutation p equal the brute-force reference") {
  std::ifstream in(NEURON_GATE_TEST_DATA "/reference/pettitt.json");
  REQUIRE(in.good());
  const auto reference = nlohmann::json::parse(in);
  REQUIRE(reference.at("cases").size() == 5);
  for (const auto& item : reference.at("cases")) {
    const auto series = item.at("series").get<std::vector<double>>();
    CAPTURE(item.at("name").get<std::string>());
    const auto point = pettitt_change_point(series);
    REQUIRE(point.has_value());
    CHECK(point->statistic == item.at("statistic").get<double>());
    CHECK(point->index == item.at("index").get<std::size_t>());
    CHECK(point->exact);
    CHECK(point->p_value == doctest::Approx(item.at("p_value").get<double>()).epsilon(1e-12));
  }
}

TEST_CASE("Pettitt: a clean step in 20 values is found by Monte Carlo at p < 1e-4, the same on every run") {
  std::vector<double> series;
  for (int i = 0; i < 20; ++i) {
    series.push_back(i < 12 ? 10.0 : 11.0);
  }
  const auto point = pettitt_change_point(series);
  REQUIRE(point.has_value());
  CHECK_FALSE(point->exact);
  CHECK(point->index == 12);
  CHECK(point->statistic == 12 * 8);
  // Exact p is 2 / C(20, 12) = 1.6e-5 (only the two clean splits reach K): the estimate (b + 1) / (B + 1)
  // with b ~ 1.6 expected hits stays below 1e-4 and is never 0.
  CHECK(point->p_value > 0);
  CHECK(point->p_value < 1e-4);
  CHECK(pettitt_change_point(series) == point);
}

TEST_CASE("Pettitt: Monte Carlo p of a series without change is near its exact value") {
  // Eleven values in no order: the estimate is far from significance, and another seed moves it by less
  // than 4 standard errors of the difference of two estimates.
  const std::vector<double> series{5, 3, 8, 1, 7, 2, 6, 4, 9, 0, 5.5};
  const auto a = pettitt_change_point(series, 1);
  const auto b = pettitt_change_point(series, 2);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(a->p_value > 0.5);
  const double standard_error = std::sqrt(a->p_value * (1 - a->p_value) / 100000.0);
  CHECK(std::abs(a->p_value - b->p_value) < 4 * standard_error * std::sqrt(2.0));
}

TEST_CASE("Pettitt: fewer than three values or a constant series has no change point") {
  CHECK_FALSE(pettitt_change_point(std::vector<double>{1.0, 2.0}).has_value());
  CHECK_FALSE(pettitt_change_point(std::vector<double>{4.0, 4.0, 4.0, 4.0}).has_value());
}

}  // namespace
}  // namespace neuron_gate
