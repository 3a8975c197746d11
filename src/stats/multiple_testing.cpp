#include "stats/multiple_testing.hpp"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <numeric>

namespace neuron_gate {

std::vector<double> adjust_p_values(std::span<const double> p, Correction correction) {
  assert(std::all_of(p.begin(), p.end(), [](double v) { return v >= 0.0 && v <= 1.0; }));
  const std::size_t k = p.size();
  const auto family = static_cast<double>(k);
  std::vector<double> adjusted(p.begin(), p.end());
  if (correction == Correction::none || k == 0) {
    return adjusted;
  }
  if (correction == Correction::bonferroni) {
    for (double& v : adjusted) {
      v = std::min(1.0, v * family);
    }
    return adjusted;
  }
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  if (correction == Correction::holm) {
    double running_max = 0;
    for (std::size_t rank = 0; rank < k; ++rank) {
      running_max = std::max(running_max, std::min(1.0, p[order[rank]] * static_cast<double>(k - rank)));
      adjusted[order[rank]] = running_max;
    }
    return adjusted;
  }
  double running_min = 1;
  for (std::size_t rank = k; rank-- > 0;) {
    running_min = std::min(running_min, p[order[rank]] / (static_cast<double>(rank + 1) / family));
    adjusted[order[rank]] = running_min;
  }
  return adjusted;
}

const char* correction_name(Correction c) {
  switch (c) {
  case Correction::holm:
    return "Holm";
  case Correction::benjamini_hochberg:
    return "Benjamini-Hochberg";
  case Correction::bonferroni:
    return "Bonferroni";
  case Correction::none:
    return "none";
  }
  return "none";
}

}  // namespace neuron_gate
