#include "profile/op_totals.hpp"

#include <algorithm>

namespace neuron_gate {

OpTotals::OpTotals(std::size_t slots, std::size_t keys, std::size_t events)
    : m_dense(slots * keys <= std::max<std::size_t>(2 * events, 1 << 16)), m_keys(keys),
      m_dense_slots(m_dense ? slots : 0), m_hashed_slots(m_dense ? 0 : slots) {}

OpTotals::DenseSlot& OpTotals::dense_entry(std::size_t slot, std::uint32_t key) {
  DenseSlot& values = m_dense_slots[slot];
  if (values.calls.size() <= key) {
    const std::size_t size = std::max<std::size_t>(m_keys, std::size_t{key} + 1);
    values.calls.resize(size, k_absent);
    values.self_ns.resize(size, 0);
    if (!values.device_ns.empty()) {
      values.device_ns.resize(size, 0);
    }
  }
  if (values.calls[key] == k_absent) {
    values.calls[key] = 0;
  }
  return values;
}

void OpTotals::add_call(std::size_t slot, std::uint32_t key, Nanoseconds self_ns) {
  if (!m_dense) {
    OpValues& values = m_hashed_slots[slot][key];
    values.self_cpu_ns += self_ns;
    ++values.calls;
    return;
  }
  DenseSlot& values = dense_entry(slot, key);
  values.self_ns[key] += self_ns;
  ++values.calls[key];
}

void OpTotals::add_device(std::size_t slot, std::uint32_t key, Nanoseconds device_ns) {
  if (!m_dense) {
    m_hashed_slots[slot][key].device_ns += device_ns;
    return;
  }
  DenseSlot& values = dense_entry(slot, key);
  if (values.device_ns.empty()) {
    values.device_ns.resize(values.calls.size(), 0);
  }
  values.device_ns[key] += device_ns;
}

std::vector<OpSample> OpTotals::take(std::size_t slot) {
  std::vector<OpSample> ops;
  if (m_dense) {
    DenseSlot& values = m_dense_slots[slot];
    ops.reserve(static_cast<std::size_t>(std::count_if(values.calls.begin(), values.calls.end(),
                                                       [](std::uint32_t calls) { return calls != k_absent; })));
    for (std::size_t key = 0; key < values.calls.size(); ++key) {
      if (values.calls[key] != k_absent) {
        const Nanoseconds device = values.device_ns.empty() ? 0 : values.device_ns[key];
        const OpValues totals{values.self_ns[key], device, values.calls[key]};
        ops.push_back(OpSample{static_cast<std::uint32_t>(key), totals});
      }
    }
    values = DenseSlot();
  } else {
    ops.reserve(m_hashed_slots[slot].size());
    for (const auto& [key, values] : m_hashed_slots[slot]) {
      ops.push_back(OpSample{key, values});
    }
    std::unordered_map<std::uint32_t, OpValues>().swap(m_hashed_slots[slot]);
    std::sort(ops.begin(), ops.end(), [](const OpSample& a, const OpSample& b) { return a.op < b.op; });
  }
  return ops;
}

}  // namespace neuron_gate
