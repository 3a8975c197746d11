#pragma once
// The op totals of every step slot of one trace while its events are summed (trace_samples.cpp): steps,
// then the events outside every step, each by op key index (TraceSamples::op_keys order).

#include "profile/trace_samples.hpp"
#include "util/units.hpp"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace neuron_gate {

// Dense when slots x keys is at most twice the number of events (or 65,536): per slot a self-time array
// (8 bytes a key) and a call-count array (4 bytes), and a device-time array (8 bytes) only once device time
// is attributed in that slot, so a CPU-only trace costs 12 bytes a key a slot, no hashing, never more than
// its event records (40 bytes each). Else a hash map per slot (~60 bytes an entry: a trace of many steps each
// holding few of many keys).
class OpTotals {
 public:
  // `slots` step slots, `keys` op keys; `events` (the trace's event count) chooses dense or hashed.
  OpTotals(std::size_t slots, std::size_t keys, std::size_t events);

  // One CPU-side event of op `key` in `slot`: one call and its self time in ns (may be < 0).
  void add_call(std::size_t slot, std::uint32_t key, Nanoseconds self_ns);

  // Device time in ns attributed to op `key` in `slot` (the op is then present, with its calls so far).
  void add_device(std::size_t slot, std::uint32_t key, Nanoseconds device_ns);

  // The ops present in `slot`, sorted by key index; the slot's memory is freed.
  std::vector<OpSample> take(std::size_t slot);

 private:
  static constexpr std::uint32_t k_absent = 0xFFFFFFFF;  // calls of a key with no entry (events < 2^32 - 1)

  struct DenseSlot {
    std::vector<Nanoseconds> self_ns;    // by key; empty until the slot's first op
    std::vector<std::uint32_t> calls;    // by key; k_absent: no entry
    std::vector<Nanoseconds> device_ns;  // by key; empty until the slot's first device time
  };

  DenseSlot& dense_entry(std::size_t slot, std::uint32_t key);

  bool m_dense;
  std::size_t m_keys;
  std::vector<DenseSlot> m_dense_slots;
  std::vector<std::unordered_map<std::uint32_t, OpValues>> m_hashed_slots;
};

}  // namespace neuron_gate
