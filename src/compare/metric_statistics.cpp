#include "compare/metric_statistics.hpp"

#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/welch_log.hpp"
#include "stats/wilcoxon.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace neuron_gate {
namespace {

const char* method_name(UMethod method) {
  switch (method) {
  case UMethod::exact:
    return "exact";
  case UMethod::exact_conditional:
    return "exact conditional (ties)";
  case UMethod::asymptotic:
    return "normal approximation";
  case UMethod::asymptotic_continuity:
    return "normal approximation, tie and continuity corrected";
  case UMethod::automatic:
    break;
  }
  return "automatic";
}

}  // namespace

void run_statistics(MetricMeasurement& metric) {
  const std::span<const double> base(metric.base_samples);
  const std::span<const double> head(metric.head_samples);
  metric.base_median = median(base);
  metric.head_median = median(head);
  if (base.empty() || head.empty()) {
    return;
  }
  // SciPy convention: x = base, y = head; "less" means base tends to be smaller, i.e. head larger.
  const MannWhitneyTests tests = mann_whitney_u_tests(base, head);
  const MannWhitneyResult& head_larger = tests.less;
  const MannWhitneyResult& head_smaller = tests.greater;
  const MannWhitneyResult& worse = metric.better == Better::lower ? head_larger : head_smaller;
  const MannWhitneyResult& better = metric.better == Better::lower ? head_smaller : head_larger;
  const MannWhitneyResult& both = tests.two_sided;
  metric.p_worse = worse.p;
  metric.p_better = better.p;
  metric.p_two_sided = both.p;
  metric.test_method = method_name(worse.method);

  const bool all_positive = std::all_of(base.begin(), base.end(), [](double v) { return v > 0; }) &&
                            std::all_of(head.begin(), head.end(), [](double v) { return v > 0; });
  if (auto shift = hodges_lehmann_shift(base, head, k_interval_confidence)) {
    metric.shift = shift->estimate;
    metric.shift_low = shift->ci_low;
    metric.shift_high = shift->ci_high;
  }
  if (all_positive) {
    if (auto ratio = hodges_lehmann_ratio(base, head, k_interval_confidence)) {
      metric.ratio = ratio->estimate;
      metric.ratio_low = ratio->ci_low;
      metric.ratio_high = ratio->ci_high;
      metric.ratio_from_logs = true;
    }
    if (auto welch = welch_t_log(base, head)) {
      metric.welch_ratio = welch->ratio_of_geometric_means;
      metric.welch_low = welch->ratio_low;
      metric.welch_high = welch->ratio_high;
      metric.welch_p = welch->p_two_sided;
    }
  } else if (metric.base_median && *metric.base_median > 0 && metric.shift) {
    const double b = *metric.base_median;
    metric.ratio = (b + *metric.shift) / b;
    if (metric.shift_low && metric.shift_high) {
      metric.ratio_low = std::max(0.0, (b + *metric.shift_low) / b);  // a duration ratio is never negative
      metric.ratio_high = (b + *metric.shift_high) / b;
    }
  }
}

bool e2e_runs_known(const EndToEndMetric& m) {
  std::size_t total = 0;
  for (std::size_t n : m.run_sizes) {
    total += n;
  }
  return m.run_sizes.size() == m.runs && total == m.samples.size();
}

std::vector<double> e2e_run_medians(const EndToEndMetric& m) {
  std::vector<double> result;
  std::size_t start = 0;
  for (std::size_t n : m.run_sizes) {
    const std::vector<double> run(m.samples.begin() + static_cast<std::ptrdiff_t>(start),
                                  m.samples.begin() + static_cast<std::ptrdiff_t>(start + n));
    result.push_back(median(run).value_or(0.0));
    start += n;
  }
  return result;
}

// An end-to-end metric tested unpaired: per-run medians from k_min_runs_for_e2e_run_unit runs a side
// (by_run), else the pooled measurements with the runs' medians' between-runs interval where runs are known.
void measure_unpaired(MetricMeasurement& metric, const EndToEndMetric& b, const EndToEndMetric& h, bool by_run,
                      bool runs_known) {
  metric.base_samples = by_run ? e2e_run_medians(b) : b.samples;
  metric.head_samples = by_run ? e2e_run_medians(h) : h.samples;
  run_statistics(metric);
  if (runs_known && !by_run) {
    set_between_runs_interval(metric, e2e_run_medians(b), e2e_run_medians(h));
  }
}

void measure_paired(MetricMeasurement& metric, const EndToEndMetric& b, const EndToEndMetric& h, bool by_run,
                    bool runs_known) {
  MetricMeasurement unpaired = metric;
  measure_unpaired(unpaired, b, h, by_run, runs_known);
  unpaired.pairing = k_too_few_pairs_note;
  metric.base_samples = e2e_run_medians(b);
  metric.head_samples = e2e_run_medians(h);
  run_paired_statistics(metric);
  if (metric.paired) {
    metric.unpaired = std::move(unpaired);
  }
}

void set_between_runs_interval(MetricMeasurement& metric, std::span<const double> base_run_medians,
                               std::span<const double> head_run_medians) {
  if (base_run_medians.size() < 2 || head_run_medians.size() < 2) {
    return;
  }
  if (auto welch = welch_t_log(base_run_medians, head_run_medians, 0.90)) {
    metric.runs_ratio_low = welch->ratio_low.value_or(welch->ratio_of_geometric_means);
    metric.runs_ratio_high = welch->ratio_high.value_or(welch->ratio_of_geometric_means);
    metric.runs_p_two_sided = welch->p_two_sided;
  }
}

Pairing pairing_of(const SideView& base, const SideView& head) {
  const std::string b = base.side->manifest ? base.side->manifest->pairing_session : "";
  const std::string h = head.side->manifest ? head.side->manifest->pairing_session : "";
  if (b.empty() && h.empty()) {
    return Pairing::none;
  }
  if (b.empty() || h.empty()) {
    return Pairing::one_side;
  }
  if (b != h) {
    return Pairing::different_sessions;
  }
  const std::vector<std::string>& order = base.side->manifest->pairing_order;
  if (order != head.side->manifest->pairing_order || order.size() % 2 != 0) {
    return Pairing::not_alternating;
  }
  for (std::size_t i = 0; i < order.size(); i += 2) {  // neighbours: one side's run, then the other's same run
    if (order[i].substr(5) != order[i + 1].substr(5) || order[i].compare(0, 5, order[i + 1], 0, 5) == 0) {
      return Pairing::not_alternating;
    }
  }
  return Pairing::same_session;
}

const char* pairing_note(Pairing pairing, bool runs_known) {
  switch (pairing) {
  case Pairing::none:
    return "";
  case Pairing::one_side:
    return "unpaired: only one side's manifest names a capture session";
  case Pairing::different_sessions:
    return "unpaired: the sides were captured in different sessions";
  case Pairing::not_alternating:
    return "unpaired: the manifests' capture order (pairing.order) differs between the sides or does not put each "
           "base run next to the same head run";
  case Pairing::same_session:
    break;
  }
  return runs_known ? "unpaired: one capture session, but the sides' run counts differ (or under 2 runs)"
                    : "unpaired: one capture session, but the runs of the samples are not known";
}

void run_paired_statistics(MetricMeasurement& metric) {
  const std::vector<double>& base = metric.base_samples;
  const std::vector<double>& head = metric.head_samples;
  const auto positive = [](double v) { return v > 0; };
  if (base.size() != head.size() || base.size() < 2 || !std::all_of(base.begin(), base.end(), positive) ||
      !std::all_of(head.begin(), head.end(), positive)) {
    run_statistics(metric);
    metric.pairing = base.size() != head.size() ? "unpaired: one capture session, but the sides' run counts differ"
                                                : "unpaired: too few runs, or a run median not above 0";
    return;
  }
  metric.base_median = median(std::span<const double>(base));
  metric.head_median = median(std::span<const double>(head));
  std::vector<double> log_ratios, differences;
  for (std::size_t i = 0; i < base.size(); ++i) {
    log_ratios.push_back(std::log(head[i] / base[i]));
    differences.push_back(head[i] - base[i]);
  }
  const bool lower_is_better = metric.better == Better::lower;
  const SignedRankResult head_larger = wilcoxon_signed_rank(log_ratios, Alternative::greater);
  const SignedRankResult head_smaller = wilcoxon_signed_rank(log_ratios, Alternative::less);
  metric.p_worse = lower_is_better ? head_larger.p : head_smaller.p;
  metric.p_better = lower_is_better ? head_smaller.p : head_larger.p;
  metric.p_two_sided = wilcoxon_signed_rank(log_ratios, Alternative::two_sided).p;
  metric.test_method = head_larger.exact ? "Wilcoxon signed-rank, paired runs (exact)"
                                         : "Wilcoxon signed-rank, paired runs (normal approximation)";
  metric.paired = true;
  metric.pairing = "paired: base and head runs captured alternately in one session";
  if (const auto ratio = walsh_hodges_lehmann(log_ratios, k_interval_confidence)) {
    metric.ratio = std::exp(ratio->estimate);
    metric.ratio_low = ratio->ci_low ? std::optional<double>(std::exp(*ratio->ci_low)) : std::nullopt;
    metric.ratio_high = ratio->ci_high ? std::optional<double>(std::exp(*ratio->ci_high)) : std::nullopt;
    metric.ratio_from_logs = true;
  }
  if (const auto shift = walsh_hodges_lehmann(differences, k_interval_confidence)) {
    metric.shift = shift->estimate;
    metric.shift_low = shift->ci_low;
    metric.shift_high = shift->ci_high;
  }
}

}  // namespace neuron_gate
