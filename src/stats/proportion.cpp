#include "stats/proportion.hpp"

#include <boost/math/distributions/binomial.hpp>

namespace neuron_gate {

std::optional<Proportion> clopper_pearson(std::size_t successes, std::size_t trials, double confidence) {
  if (trials == 0 || successes > trials || !(confidence > 0.0 && confidence < 1.0)) {
    return std::nullopt;
  }
  using boost::math::binomial_distribution;
  const double n = static_cast<double>(trials);
  const double k = static_cast<double>(successes);
  const double tail = (1.0 - confidence) / 2.0;
  Proportion result;
  result.estimate = k / n;
  result.low = binomial_distribution<double>::find_lower_bound_on_p(
      n, k, tail, binomial_distribution<double>::clopper_pearson_exact_interval);
  result.high = binomial_distribution<double>::find_upper_bound_on_p(
      n, k, tail, binomial_distribution<double>::clopper_pearson_exact_interval);
  return result;
}

}  // namespace neuron_gate
