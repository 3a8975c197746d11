#include "profile/op_totals.hpp"

#include <algorithm>
#include <new>

namespace neuron_gate {

template <class T>
OpTotals::ZeroedArray<T> OpTotals::zeroed(std::size_t count) {
  void* memory = std::calloc(std::max<std::size_t>(count, 1), sizeof(T));
  if (memory == nullptr) {
    throw std::bad_alloc();
  }
  return ZeroedArray<T>(static_cast<T*>(memory));
}

OpTotals::OpTotals(std::size_t slots, std::size_t keys, std::size_t events)
    : m_dense(slots * keys <= std::max<std::size_t>(2 * events, 1 << 16)), m_slots(slots), m_keys(keys),
      m_hashed_slots() {
  if (m_dense) {
    m_self_ns = zeroed<Nanoseconds>(slots * keys);
    m_calls = zeroed<std::uint32_t>(slots * keys);
    m_slot_ops.assign(slots, 0);
  } else {
    m_hashed_slots.resize(slots);
  }
}

void OpTotals::present(std::size_t at) {
  if (m_calls[at] == 0) {
    m_calls[at] = 1;
    ++m_slot_ops[at / m_keys];
  }
}

OpValues* OpTotals::hashed(std::size_t slot, std::uint32_t key) {
  if (m_dense && key < m_keys) {
    return nullptr;
  }
  if (m_hashed_slots.empty()) {
    m_hashed_slots.resize(m_slots);
  }
  return &m_hashed_slots[slot][key];
}

void OpTotals::add_call(std::size_t slot, std::uint32_t key, Nanoseconds self_ns) {
  if (OpValues* entry = hashed(slot, key)) {
    OpValues& values = *entry;
    values.self_cpu_ns += self_ns;
    ++values.calls;
    return;
  }
  const std::size_t at = index(slot, key);
  present(at);
  m_self_ns[at] += self_ns;
  ++m_calls[at];
}

void OpTotals::add_device(std::size_t slot, std::uint32_t key, Nanoseconds device_ns) {
  if (OpValues* entry = hashed(slot, key)) {
    entry->device_ns += device_ns;
    return;
  }
  if (!m_device_ns) {
    m_device_ns = zeroed<Nanoseconds>(m_slots * m_keys);
  }
  const std::size_t at = index(slot, key);
  present(at);
  m_device_ns[at] += device_ns;
}

std::vector<OpSample> OpTotals::take(std::size_t slot) {
  std::vector<OpSample> ops;
  if (m_dense) {
    ops.reserve(m_slot_ops[slot]);
    for (std::uint32_t key = 0; key < m_keys; ++key) {
      const std::size_t at = index(slot, key);
      if (m_calls[at] != 0) {
        const Nanoseconds device = m_device_ns ? m_device_ns[at] : 0;
        ops.push_back(OpSample{key, OpValues{m_self_ns[at], device, m_calls[at] - 1}});
      }
    }
    if (++m_taken == m_slots) {
      m_self_ns.reset();
      m_calls.reset();
      m_device_ns.reset();
    }
  }
  if (!m_hashed_slots.empty()) {  // a hashed trace, or keys met beyond those counted up front
    ops.reserve(ops.size() + m_hashed_slots[slot].size());
    for (const auto& [key, values] : m_hashed_slots[slot]) {
      ops.push_back(OpSample{key, values});
    }
    std::unordered_map<std::uint32_t, OpValues>().swap(m_hashed_slots[slot]);
    std::sort(ops.begin(), ops.end(), [](const OpSample& a, const OpSample& b) { return a.op < b.op; });
  }
  return ops;
}

}  // namespace neuron_gate
