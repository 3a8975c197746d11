#include "report/ranking_report.hpp"

#include "report/escape.hpp"
#include "report/number_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <vector>

namespace neuron_gate {
namespace {

using ordered = nlohmann::ordered_json;

// The unit as the heading shows it: "µs" for the traces' "us", else as the file wrote it.
std::string unit_text(const std::string& unit) {
  return unit == "us" ? "µs" : unit;
}

std::string better_text(Better better) {
  return better == Better::lower ? "lower is better" : "higher is better";
}

std::string percent(double share) {
  return format_percent(share);
}

// The sentence under the headline: how the ranking was tested.
std::string method_text(const Ranking& ranking, const RuleSet& rules) {
  std::string text = "Every pair of the " + std::to_string(ranking.profiles.size()) +
                     " ranked profiles is tested on the same samples as `compare` (Mann–Whitney U, two-sided; "
                     "Hodges–Lehmann ratio as a signed % change, with 95% CI): one " +
                     correction_name(rules.correction) + " family of " + std::to_string(ranking.family_size) +
                     " at alpha " + format_number(ranking.alpha) + ".";
  if (ranking.step_total) {
    text += std::string(" The samples are the ") + step_total_title(*ranking.step_total) +
            " of every profiled step of the traces, one per step" +
            (ranking.drop_first_steps > 0
                 ? " (the first " + std::to_string(ranking.drop_first_steps) + " of each trace left out)"
                 : std::string()) +
            ", grouped by run (folder of traces)." +
            (ranking.warm_up_ratio ? " The first trace of each run folder is left out of every profile: base's "
                                     "first profiler cycles took " +
                                         format_number(*ranking.warm_up_ratio, 2) +
                                         "x as long as its later ones (warm-up, as `compare` leaves it out)."
                                   : std::string()) +
            (*ranking.step_total == StepTotal::step_time
                 ? " Profiled step time carries the profiler's own cost per recorded op, so an alternative that "
                   "runs fewer ops looks faster under the profiler than it runs: where end-to-end numbers exist "
                   "(e2e.json), rank by them."
                 : "");
  }
  if (ranking.run_allowance > 0) {
    text += " Samples from fewer than 5 processes a side must also differ by more than the between-run "
            "allowance (" +
            percent(ranking.run_allowance) + ").";
  }
  return text + " Profiles share a rank unless one is established to be better.";
}

// A sentence per ranked profile whose device time is unknown, labels and signs through `code`.
template <typename Code>
std::string device_unknown_text(const Ranking& ranking, Code code) {
  std::string text;
  for (const auto& [label, sign] : ranking.device_unknown) {
    text += "Device time unknown for " + code(label) + ": device activity was captured (" + code(sign) +
            ") but it holds no device time, so this ranking says nothing of the device's share. ";
  }
  return text;
}

// Evidence as words: "established" or why not.
std::string evidence_text(RankEvidence evidence, const Ranking& ranking) {
  switch (evidence) {
  case RankEvidence::established:
    return "established";
  case RankEvidence::not_significant:
    return "not established: cannot be told apart";
  case RankEvidence::within_run_allowance:
    return "not established: within the between-run allowance (" + percent(ranking.run_allowance) + ")";
  }
  return "";
}

// A neighbouring pair in words, as Markdown (`code` of labels through `code`).
template <typename Code>
std::string pair_text(const Ranking& ranking, std::size_t i, Code code) {
  const RankPair& pair = ranking.pair(i - 1, i);
  const RankedProfile& above = ranking.profiles[i - 1];
  const RankedProfile& below = ranking.profiles[i];
  std::string text = code(below.label) + " vs " + code(above.label) + ": " + format_change(pair.ratio) + " (95% CI " +
                     format_change_interval(pair.ratio_low, pair.ratio_high) + "), adjusted p " +
                     format_p(pair.p_adjusted);
  if (pair.evidence == RankEvidence::established) {
    return text + ": established — " + code(above.label) + " is better.";
  }
  return text + ": " + code(above.label) + " and " + code(below.label) + " cannot be told apart (" +
         (pair.evidence == RankEvidence::within_run_allowance
              ? "significant, but within the between-run allowance of " + percent(ranking.run_allowance)
              : std::string("not significant after correction")) +
         "); their order here is by median only.";
}

// The first line: the profiles at rank 1 (profiles sort best first, so position 0 has rank 1), and
// which others, if any, the best is not established to beat.
template <typename Code>
std::string best_text(const Ranking& ranking, Code code) {
  const auto name = [&](const RankedProfile& p) { return code(p.label) + (p.input == 0 ? " (base)" : ""); };
  if (ranking.profiles.size() < 2) {
    return "Nothing ranked against the base.";
  }
  std::string text = "Best by median: " + name(ranking.profiles.front());
  std::string not_beaten;
  for (std::size_t i = 1; i < ranking.profiles.size(); ++i) {
    if (ranking.pair(0, i).evidence != RankEvidence::established) {
      not_beaten += (not_beaten.empty() ? "" : ", ") + name(ranking.profiles[i]);
    }
  }
  return not_beaten.empty() ? text + ", established better than every other ranked profile."
                            : text + "; not told apart from " + not_beaten + " by these data.";
}

std::string median_cell(const RankedProfile& p, const Ranking& ranking) {
  return format_value(p.median, ranking.unit);
}

std::string md_code(const std::string& label) {
  return markdown_code(label, false);
}

// True when some ranked profile's manifest names its compilation path: the tables then show a column of it.
bool shows_compilation_path(const Ranking& ranking) {
  return std::any_of(ranking.profiles.begin(), ranking.profiles.end(),
                     [](const RankedProfile& p) { return !p.compilation_path.empty(); });
}

}  // namespace

std::string render_ranking_markdown(const Ranking& ranking, const RuleSet& rules) {
  std::ostringstream md;
  md << "## neuron-gate rank: " << markdown_code(ranking.metric, false) << " ("
     << escape_markdown(unit_text(ranking.unit)) << ", " << better_text(ranking.better) << ")\n\n";
  md << "**" << best_text(ranking, md_code) << "**\n\n";
  // The table first, so the ranking is in the first screen of a comment; how it was tested under it.
  const bool compilation = shows_compilation_path(ranking);
  md << "| rank | profile | " << (compilation ? "compilation path | " : "")
     << "samples | median | vs base | 95% CI | adj. p | difference |\n";
  md << "|---|---|" << (compilation ? "---|" : "") << "--:|--:|--:|--:|--:|---|\n";
  for (const RankedProfile& p : ranking.profiles) {
    const bool base = p.input == 0;
    md << "| " << p.rank << " | " << markdown_code(p.label) << (base ? " (base)" : "") << " | "
       << (compilation ? (p.compilation_path.empty() ? "–" : markdown_code(p.compilation_path)) + " | " : "")
       << p.samples << " | " << escape_markdown(median_cell(p, ranking)) << " | "
       << (base ? "–" : format_change(p.ratio)) << " | "
       << (base ? "–" : format_change_interval(p.ratio_low, p.ratio_high)) << " | " << format_p(p.p_adjusted) << " | "
       << (base ? "–" : evidence_text(p.versus_base, ranking)) << " |\n";
  }
  md << "\n" << method_text(ranking, rules) << "\n";
  if (!ranking.device_unknown.empty()) {
    md << "\n" << device_unknown_text(ranking, md_code) << "\n";
  }
  if (ranking.profiles.size() > 1) {
    md << "\n### Neighbours\n\n";
    for (std::size_t i = 1; i < ranking.profiles.size(); ++i) {
      md << "- " << pair_text(ranking, i, md_code) << "\n";
    }
  }
  if (!ranking.unranked.empty()) {
    md << "\n### Not ranked (NOT COMPARABLE with base)\n\n";
    for (const UnrankedProfile& u : ranking.unranked) {
      md << "- " << md_code(u.label) << ": differs from base in";
      for (std::size_t k = 0; k < u.differing.size(); ++k) {
        md << (k ? ", " : " ") << md_code(u.differing[k]);
      }
      md << "; `neuron-gate compare` of the two names the values.\n";
    }
  }
  return md.str();
}

std::string render_ranking_html(const Ranking& ranking, const RuleSet& rules) {
  const auto code = [](const std::string& label) { return "<code>" + escape_html(label) + "</code>"; };
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>neuron-gate rank</title>\n"
       "<style>body{font:14px/1.5 sans-serif;max-width:1100px;margin:24px auto;padding:0 16px}"
       "table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:4px 8px}"
       "code{background:#eff1f3;padding:1px 4px}</style></head><body>\n";
  h << "<h1>neuron-gate rank: " << code(ranking.metric) << " (" << escape_html(unit_text(ranking.unit)) << ", "
    << better_text(ranking.better) << ")</h1>\n<p><strong>" << best_text(ranking, code) << "</strong></p>\n<p>"
    << prose_html(method_text(ranking, rules)) << "</p>\n";
  if (!ranking.device_unknown.empty()) {
    h << "<p>" << device_unknown_text(ranking, code) << "</p>\n";
  }
  const bool compilation = shows_compilation_path(ranking);
  h << "<table><tr><th>rank</th><th>profile</th>" << (compilation ? "<th>compilation path</th>" : "")
    << "<th>samples</th><th>median</th><th>change vs base</th><th>95% CI</th>"
       "<th>adjusted p</th><th>difference</th></tr>\n";
  for (const RankedProfile& p : ranking.profiles) {
    const bool base = p.input == 0;
    h << "<tr><td>" << p.rank << "</td><td>" << code(p.label) << (base ? " (base)" : "") << "</td><td>"
      << (compilation ? (p.compilation_path.empty() ? "–" : code(p.compilation_path)) + "</td><td>" : "") << p.samples
      << "</td><td>" << escape_html(median_cell(p, ranking)) << "</td><td>" << (base ? "–" : format_change(p.ratio))
      << "</td><td>" << (base ? "–" : format_change_interval(p.ratio_low, p.ratio_high)) << "</td><td>"
      << format_p(p.p_adjusted) << "</td><td>" << escape_html(base ? "–" : evidence_text(p.versus_base, ranking))
      << "</td></tr>\n";
  }
  h << "</table>\n<h2>Neighbours</h2>\n<ul>\n";
  for (std::size_t i = 1; i < ranking.profiles.size(); ++i) {
    h << "<li>" << pair_text(ranking, i, code) << "</li>\n";
  }
  h << "</ul>\n";
  for (const UnrankedProfile& u : ranking.unranked) {
    h << "<p>Not ranked (NOT COMPARABLE with base): " << code(u.label) << ", differs in";
    for (const std::string& name : u.differing) {
      h << " " << code(name);
    }
    h << "</p>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

std::string render_ranking_json(const Ranking& ranking, const RuleSet& rules) {
  const auto number = [](std::optional<double> v) { return v ? ordered(*v) : ordered(nullptr); };
  ordered j;
  j["schema"] = "neuron-gate.ranking/1";
  j["metric"] = valid_utf8(ranking.metric);
  j["unit"] = valid_utf8(ranking.unit);
  j["better"] = ranking.better == Better::lower ? "lower" : "higher";
  j["alpha"] = ranking.alpha;
  j["correction"] = correction_name(rules.correction);
  j["family_size"] = ranking.family_size;
  j["run_allowance"] = ranking.run_allowance;
  j["profiles"] = ordered::array();
  for (const RankedProfile& p : ranking.profiles) {
    j["profiles"].push_back(
        {{"rank", p.rank},
         {"label", valid_utf8(p.label)},
         {"input", p.input},
         {"base", p.input == 0},
         {"compilation_path", p.compilation_path.empty() ? ordered(nullptr) : ordered(valid_utf8(p.compilation_path))},
         {"samples", p.samples},
         {"median", number(p.median)},
         {"ratio_vs_base", number(p.ratio)},
         {"ratio_vs_base_ci95", {number(p.ratio_low), number(p.ratio_high)}},
         {"p_adjusted_vs_base", number(p.p_adjusted)},
         {"versus_base", p.input == 0 ? ordered(nullptr) : ordered(rank_evidence_key(p.versus_base))}});
  }
  j["pairs"] = ordered::array();
  for (const RankPair& pair : ranking.pairs) {
    j["pairs"].push_back({{"better", valid_utf8(ranking.profiles[pair.better].label)},
                          {"worse", valid_utf8(ranking.profiles[pair.worse].label)},
                          {"ratio", number(pair.ratio)},
                          {"ratio_ci95", {number(pair.ratio_low), number(pair.ratio_high)}},
                          {"p", number(pair.p)},
                          {"p_adjusted", number(pair.p_adjusted)},
                          {"evidence", rank_evidence_key(pair.evidence)}});
  }
  j["device_unknown"] = ordered::array();
  for (const auto& [label, sign] : ranking.device_unknown) {
    j["device_unknown"].push_back({{"label", valid_utf8(label)}, {"device_activity", valid_utf8(sign)}});
  }
  j["unranked"] = ordered::array();
  for (const UnrankedProfile& u : ranking.unranked) {
    ordered differing = ordered::array();
    for (const std::string& name : u.differing) {
      differing.push_back(valid_utf8(name));
    }
    j["unranked"].push_back({{"label", valid_utf8(u.label)}, {"input", u.input}, {"differing", differing}});
  }
  return j.dump(1, ' ', false, ordered::error_handler_t::replace) + "\n";
}

}  // namespace neuron_gate
