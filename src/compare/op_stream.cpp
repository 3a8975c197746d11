#include "compare/op_stream.hpp"

#include "compare/metric_comparison.hpp"
#include "profile/read_side.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <iterator>

namespace neuron_gate {
OpStream::OpStream(std::vector<StepGroup> groups, const RuleSet& rules) : m_groups(std::move(groups)), m_rules(rules) {
  std::vector<const TraceSamples*> traces;
  for (const StepGroup& group : m_groups) {
    for (const std::vector<SampleStep>* steps : {group.base, group.head}) {
      for (const SampleStep& step : *steps) {
        traces.push_back(step.trace);
      }
    }
  }
  std::sort(traces.begin(), traces.end());
  traces.erase(std::unique(traces.begin(), traces.end()), traces.end());
  // Each trace's op_keys are sorted and distinct: merged into the union one trace at a time (linear in
  // the keys; most traces of a side hold the same keys, so a merge is mostly equal runs).
  std::vector<std::string_view> merged;
  for (const TraceSamples* trace : traces) {
    merged.clear();
    merged.reserve(m_names.size() + trace->op_keys.size());
    std::set_union(m_names.begin(), m_names.end(), trace->op_keys.begin(), trace->op_keys.end(),
                   std::back_inserter(merged), [](std::string_view a, std::string_view b) { return a < b; });
    m_names.swap(merged);
  }
  m_names.shrink_to_fit();
  for (const TraceSamples* trace : traces) {
    std::vector<std::uint32_t>& ids = m_ids[trace];
    ids.reserve(trace->op_keys.size());
    auto from = m_names.begin();  // op_keys are sorted: each key is found after the one before it
    for (const std::string& key : trace->op_keys) {
      from = std::lower_bound(from, m_names.end(), std::string_view(key));
      ids.push_back(static_cast<std::uint32_t>(from - m_names.begin()));
    }
  }
  m_runtime.assign(m_names.size(), false);
  for (const TraceSamples* trace : traces) {
    for (const std::string& key : trace->runtime_calls) {
      const auto at = std::lower_bound(m_names.begin(), m_names.end(), std::string_view(key));
      if (at != m_names.end() && *at == key) {
        m_runtime[static_cast<std::size_t>(at - m_names.begin())] = true;
      }
    }
  }
  for (const StepGroup& group : m_groups) {
    auto cursors = [&](const std::vector<SampleStep>* steps) {
      Cursors c{steps, std::vector<std::size_t>(steps->size(), 0), {}};
      for (const SampleStep& step : *steps) {
        c.ids.push_back(&m_ids.at(step.trace));
      }
      return c;
    };
    m_cursors.emplace_back(cursors(group.base), cursors(group.head));
  }
}

bool OpStream::next() {
  std::size_t candidate = m_started ? m_current + 1 : 0;
  m_started = true;
  // The unattributed rows are not ops: `ignore` never drops them, so the device total holds that time.
  while (candidate < m_names.size() && m_rules.is_ignored(m_names[candidate]) &&
         !is_unattributed_row(m_names[candidate])) {
    ++candidate;
  }
  m_current = candidate;
  return m_current < m_names.size();
}

void OpStream::read_side(Cursors& side, OpSeries& series) {
  // Cleared, not freed: the next op reuses the buffers.
  series.self_cpu_us.clear();
  series.device_us.clear();
  series.calls.clear();
  series.any_device = series.present = false;
  series.steps_present = 0;
  const std::vector<SampleStep>& steps = *side.steps;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::vector<OpSample>& ops = steps[i].step->ops;
    const std::vector<std::uint32_t>& ids = *side.ids[i];
    std::size_t& at = side.at[i];
    while (at < ops.size() && ids[ops[at].op] < m_current) {
      ++at;  // an op left out (ignored) or of a key this group does not hold
    }
    if (at == ops.size() || ids[ops[at].op] != m_current) {
      continue;
    }
    if (!series.present) {
      series.present = true;
      series.self_cpu_us.assign(steps.size(), 0.0);
      series.device_us.assign(steps.size(), 0.0);
      series.calls.assign(steps.size(), 0.0);
    }
    const OpValues& values = ops[at].values;
    series.self_cpu_us[i] = to_us(values.self_cpu_ns);
    series.device_us[i] = to_us(values.device_ns);
    series.calls[i] = static_cast<double>(values.calls);
    series.any_device = series.any_device || values.device_ns != 0;
    ++series.steps_present;
    ++at;
  }
}

void OpStream::series(std::size_t g, OpSeries& base, OpSeries& head) {
  read_side(m_cursors[g].first, base);
  read_side(m_cursors[g].second, head);
}

void OpStream::rewind() {
  for (auto& [base, head] : m_cursors) {
    std::fill(base.at.begin(), base.at.end(), 0);
    std::fill(head.at.begin(), head.at.end(), 0);
  }
  m_current = 0;
  m_started = false;
}

}  // namespace neuron_gate
