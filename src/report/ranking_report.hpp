#pragma once
// The report of `neuron-gate rank` (compare/ranking.hpp) as Markdown, HTML and JSON. Every profile
// label goes through report/escape.hpp; numbers through report/number_format.hpp.

#include "compare/ranking.hpp"
#include "compare/rule_set.hpp"

#include <string>

namespace neuron_gate {

// GFM: the headline (what decides, the family, the allowance), the ranked table (rank, profile, median,
// ratio vs base with 95% CI, adjusted p, evidence), each neighbouring pair in words (established or
// "cannot be told apart" and why), and the alternatives not ranked with their differing conditions.
std::string render_ranking_markdown(const Ranking& ranking, const RuleSet& rules);

// A self-contained HTML page with the same content.
std::string render_ranking_html(const Ranking& ranking, const RuleSet& rules);

// JSON, schema "neuron-gate.ranking/1": metric, unit, better, alpha, correction, family_size,
// run_allowance, profiles[] (best first), pairs[] (every pair), unranked[]; strings as valid UTF-8.
std::string render_ranking_json(const Ranking& ranking, const RuleSet& rules);

}  // namespace neuron_gate
