#pragma once
// Cost per unit of work (issue 19 item 3), derived from each side's throughput samples and a price per
// instance-hour (rules key `price_per_hour`, else the run manifest's `price_per_hour`; docs/user-guide.md "Cost").

#include "compare/rule_set.hpp"
#include "profile/read_side.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace neuron_gate {

// The name of the derived metric for a throughput metric named "throughput"; another throughput metric
// X gives "cost (X)".
inline constexpr const char* k_cost_metric = "cost";

// Work per million units a cost is given for: cost is "USD per 1M <work>".
inline constexpr double k_cost_work_scale = 1e6;

// USD per 1M units of work from a price (USD per instance-hour, > 0) and a throughput (units of work per
// second, > 0): price_per_hour / 3600 / throughput * 1e6. Example: 21.96 USD/h at 50 000 samples/s is
// 0.122 USD per 1M samples.
double cost_per_million(double price_per_hour, double throughput_per_second);

// The throughput unit split into its unit of work and seconds per time unit: "samples/s" -> {"samples",
// 1}, "tokens/ms" -> {"tokens", 0.001}, "it/min" -> {"it", 60}; also "/sec", "/h". nullopt for a unit
// that is not a rate per time.
struct RateUnit {
  std::string work;      // "samples"
  double seconds = 1.0;  // the time unit in seconds
};
std::optional<RateUnit> parse_rate_unit(std::string_view unit);

// The price a side's cost uses: the rules' price_per_hour when set (one price for every side), else the
// side's manifest price_per_hour; nullopt when neither gives one.
std::optional<double> price_per_hour(const SideSamples& side, const RuleSet& rules);

// Appends to each side's end_to_end, for every higher-is-better metric whose unit is a rate per time
// (parse_rate_unit), the cost metric: per sample cost_per_million(price, throughput), unit "USD/1M <work>",
// lower is better, the same runs (not where the side already has a metric of that name: that one is
// compared as given, and a read warning says so). Done only when both sides have a price; when one side has a price and
// the other not, a read warning on the side with the price says why there is no cost. Throws InputError
// naming the e2e file when a throughput sample is not positive.
void add_cost_metrics(SideSamples& base, SideSamples& head, const RuleSet& rules);

// The same for one side on its own (`rank`, where each profile is priced alone): adds the cost metrics
// when price_per_hour(side, rules) gives a price; nothing otherwise. Throws as add_cost_metrics.
void add_side_cost_metrics(SideSamples& side, const RuleSet& rules);

}  // namespace neuron_gate
