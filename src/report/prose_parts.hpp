#pragma once
// Small text helpers shared by the prose files (prose.cpp, prose_findings.cpp, prose_hypotheses.cpp).
// Internal to report/: renderers use prose.hpp.

#include "compare/judgement.hpp"
#include "profile/ranks.hpp"
#include "report/prose.hpp"

#include <string>
#include <vector>

namespace neuron_gate::prose {

// "1 op no longer runs" / "3 ops no longer run".
inline std::string count_of(std::size_t n, const std::string& singular, const std::string& plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

// The first `most` items joined by `separator`, then "and N more" when some were left out.
inline std::string join(const std::vector<std::string>& items, std::size_t most, const std::string& separator = ", ") {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) {
    text += (i == 0 ? "" : separator) + items[i];
  }
  if (items.size() > most) {
    text += separator + "and " + std::to_string(items.size() - most) + " more";
  }
  return text;
}

// A metric's name with its class ("`aten::mm` self CPU"), without saying "step time" twice
// ("profiled step time", "profiled step time of rank 1").
inline std::string metric_label(const MetricComparison& m) {
  if (m.metric_class == MetricClass::step_time) {
    return "profiled step time" + (m.ranked ? " of " + rank_name(m.rank) : std::string());
  }
  return prose_code(m.name) + " " + metric_class_label(m.metric_class);
}

}  // namespace neuron_gate::prose
