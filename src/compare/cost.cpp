#include "compare/cost.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace neuron_gate {

double cost_per_million(double price_per_hour, double throughput_per_second) {
  return price_per_hour / 3600.0 / throughput_per_second * k_cost_work_scale;
}

std::optional<RateUnit> parse_rate_unit(std::string_view unit) {
  const std::size_t slash = unit.rfind('/');
  if (slash == std::string_view::npos || slash == 0) {
    return std::nullopt;
  }
  const std::string_view per = unit.substr(slash + 1);
  RateUnit rate;
  rate.work = std::string(unit.substr(0, slash));
  if (per == "s" || per == "sec" || per == "second") {
    rate.seconds = 1.0;
  } else if (per == "ms") {
    rate.seconds = 1e-3;
  } else if (per == "min") {
    rate.seconds = 60.0;
  } else if (per == "h" || per == "hour") {
    rate.seconds = 3600.0;
  } else {
    return std::nullopt;
  }
  return rate;
}

std::optional<double> price_per_hour(const SideSamples& side, const RuleSet& rules) {
  if (rules.price_per_hour) {
    return rules.price_per_hour;
  }
  if (side.manifest) {
    auto field = side.manifest->fields.find("price_per_hour");
    if (field != side.manifest->fields.end()) {
      return std::strtod(field->second.c_str(), nullptr);  // validated by parse_manifest
    }
  }
  return std::nullopt;
}

namespace {

// The cost metric of one throughput metric at `price` USD per hour.
EndToEndMetric cost_metric(const EndToEndMetric& throughput, const RateUnit& rate, double price) {
  EndToEndMetric cost = throughput;
  cost.name = throughput.name == "throughput" ? std::string(k_cost_metric) : "cost (" + throughput.name + ")";
  cost.unit = "USD/1M " + rate.work;
  cost.better = Better::lower;
  for (double& sample : cost.samples) {
    if (!(sample > 0.0)) {
      std::ostringstream value;
      value << sample;
      throw InputError(throughput.source_path, "metric \"" + throughput.name + "\" has a sample of " + value.str() +
                                                   " " + throughput.unit +
                                                   ": a price_per_hour is given, and cost per unit of work needs "
                                                   "every throughput sample above 0");
    }
    sample = cost_per_million(price, sample / rate.seconds);
  }
  return cost;
}

void add_costs(SideSamples& side, double price) {
  const std::size_t count = side.end_to_end.size();
  for (std::size_t i = 0; i < count; ++i) {
    const EndToEndMetric metric = side.end_to_end[i];
    const std::optional<RateUnit> rate = parse_rate_unit(metric.unit);
    if (metric.better == Better::higher && rate) {
      EndToEndMetric cost = cost_metric(metric, *rate, price);
      const bool given = std::any_of(side.end_to_end.begin(), side.end_to_end.end(),
                                     [&](const EndToEndMetric& m) { return m.name == cost.name; });
      if (given) {  // the file's own cost metric is compared as it is (docs/user-guide.md "Cost")
        side.read_warnings.push_back(cost.source_path + ": a metric \"" + cost.name +
                                     "\" is given, so none is "
                                     "derived from \"" +
                                     metric.name + "\" and price_per_hour");
      } else {
        side.end_to_end.push_back(std::move(cost));
      }
    }
  }
}

}  // namespace

void add_side_cost_metrics(SideSamples& side, const RuleSet& rules) {
  if (const std::optional<double> price = price_per_hour(side, rules)) {
    add_costs(side, *price);
  }
}

void add_cost_metrics(SideSamples& base, SideSamples& head, const RuleSet& rules) {
  const std::optional<double> base_price = price_per_hour(base, rules);
  const std::optional<double> head_price = price_per_hour(head, rules);
  if (base_price && head_price) {
    add_costs(base, *base_price);
    add_costs(head, *head_price);
    return;
  }
  SideSamples* priced = base_price ? &base : head_price ? &head : nullptr;
  if (priced != nullptr) {
    const std::string other = priced == &base ? head.label : base.label;
    priced->read_warnings.push_back("neuron-gate.json: price_per_hour is given for " + priced->label + " only, not " +
                                    other + ": no cost is compared (give it on both sides, or in the rules)");
  }
}

}  // namespace neuron_gate
