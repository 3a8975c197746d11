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

namespace {
constexpr std::uint64_t k_calls_mask = 0xFFFF;  // low 16 bits of a cell: calls + 1
constexpr std::uint64_t k_moved = 0xFFFF;       // the cell's values live in its slot's hash map
constexpr Nanoseconds k_self_limit = Nanoseconds{1} << 47;

Nanoseconds cell_self(std::uint64_t cell) {
  return static_cast<Nanoseconds>(cell) >> 16;
}
std::uint64_t make_cell(Nanoseconds self_ns, std::uint64_t calls_plus_one) {
  return (static_cast<std::uint64_t>(self_ns) << 16) | calls_plus_one;
}
}  // namespace

OpTotals::OpTotals(std::size_t slots, std::size_t keys, std::size_t events)
    : m_dense(slots * keys <= std::max<std::size_t>(2 * events, 1 << 16)), m_slots(slots), m_keys(keys),
      m_hashed_slots() {
  if (m_dense) {
    m_cells = zeroed<std::uint64_t>(slots * keys);
    m_slot_ops.assign(slots, 0);
  } else {
    m_hashed_slots.resize(slots);
  }
}

OpValues* OpTotals::hashed(std::size_t slot, std::uint32_t key) {
  if (!m_dense) {
    return &m_hashed_slots[slot][key];
  }
  if (key < m_keys && (m_cells[index(slot, key)] & k_calls_mask) != k_moved) {
    return nullptr;
  }
  return &m_dense_extra[{slot, key}];
}

OpValues& OpTotals::spill(std::size_t slot, std::uint32_t key, std::size_t at) {
  OpValues& values = m_dense_extra[{slot, key}];
  const std::uint64_t cell = m_cells[at];
  values.self_cpu_ns = cell_self(cell);
  values.calls = (cell & k_calls_mask) == 0 ? 0 : static_cast<std::int64_t>((cell & k_calls_mask) - 1);
  if (m_device_ns) {
    values.device_ns = m_device_ns[at];
    m_device_ns[at] = 0;
  }
  if ((cell & k_calls_mask) == 0) {
    ++m_slot_ops[slot];
  }
  m_cells[at] = k_moved;
  return values;
}

void OpTotals::add_call(std::size_t slot, std::uint32_t key, Nanoseconds self_ns) {
  if (OpValues* entry = hashed(slot, key)) {
    entry->self_cpu_ns += self_ns;
    ++entry->calls;
    return;
  }
  const std::size_t at = index(slot, key);
  const std::uint64_t cell = m_cells[at];
  const std::uint64_t calls_plus_one = std::max<std::uint64_t>(cell & k_calls_mask, 1) + 1;
  const Nanoseconds self = cell_self(cell);
  const bool fits = calls_plus_one < k_moved && self_ns < k_self_limit && self_ns > -k_self_limit &&
                    self + self_ns < k_self_limit && self + self_ns >= -k_self_limit;
  if (!fits) {
    OpValues& values = spill(slot, key, at);
    values.self_cpu_ns += self_ns;
    ++values.calls;
    return;
  }
  if ((cell & k_calls_mask) == 0) {
    ++m_slot_ops[slot];
  }
  m_cells[at] = make_cell(self + self_ns, calls_plus_one);
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
  if ((m_cells[at] & k_calls_mask) == 0) {
    m_cells[at] = make_cell(0, 1);
    ++m_slot_ops[slot];
  }
  m_device_ns[at] += device_ns;
}

std::vector<OpSample> OpTotals::take(std::size_t slot) {
  std::vector<OpSample> ops;
  if (m_dense) {
    ops.reserve(m_slot_ops[slot]);
    for (std::uint32_t key = 0; key < m_keys; ++key) {
      const std::size_t at = index(slot, key);
      const std::uint64_t calls_plus_one = m_cells[at] & k_calls_mask;
      if (calls_plus_one != 0 && calls_plus_one != k_moved) {
        const Nanoseconds device = m_device_ns ? m_device_ns[at] : 0;
        ops.push_back(
            OpSample{key, OpValues{cell_self(m_cells[at]), device, static_cast<std::int64_t>(calls_plus_one - 1)}});
      }
    }
    if (++m_taken == m_slots) {
      m_cells.reset();
      m_device_ns.reset();
    }
    // Keys met beyond those counted up front, and cells moved out: merged in key order.
    auto extra = m_dense_extra.lower_bound({slot, 0});
    if (extra != m_dense_extra.end() && extra->first.first == slot) {
      for (; extra != m_dense_extra.end() && extra->first.first == slot; extra = m_dense_extra.erase(extra)) {
        ops.push_back(OpSample{extra->first.second, extra->second});
      }
      std::sort(ops.begin(), ops.end(), [](const OpSample& a, const OpSample& b) { return a.op < b.op; });
    }
  } else {
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
