#pragma once
// The op totals of every step slot of one trace while its events are summed (trace_samples.cpp): steps,
// then the events outside every step, each by op key index (TraceSamples::op_keys order).

#include "profile/trace_samples.hpp"
#include "util/units.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace neuron_gate {

// Dense when slots x keys is at most twice the number of events (or 65,536): one array of 8-byte cells for
// the whole trace (self time in its high 48 bits, calls + 1 in its low 16), allocated zeroed and touched only
// where an op is met, and a device-time array (8 bytes) only once device time is attributed; so a CPU-only
// trace costs at most 8 bytes a key a slot, one allocation, never more than its event records. A cell whose
// calls or self time outgrow it (65,534 calls, |self| >= 2^47 ns, 39 hours) moves, exact, to a map beside
// the cells. Else a hash map per slot (~60 bytes an entry: a trace of many steps each holding few of many
// keys).
class OpTotals {
 public:
  // `slots` step slots, `keys` op keys; `events` (the trace's event count) chooses dense or hashed.
  // Throws std::bad_alloc when the dense arrays cannot be allocated.
  OpTotals(std::size_t slots, std::size_t keys, std::size_t events);

  // One CPU-side event of op `key` (< keys) in `slot`: one call and its self time in ns (may be < 0).
  void add_call(std::size_t slot, std::uint32_t key, Nanoseconds self_ns);

  // Device time in ns attributed to op `key` in `slot` (the op is then present, with its calls so far).
  void add_device(std::size_t slot, std::uint32_t key, Nanoseconds device_ns);

  // The ops present in `slot`, sorted by key index; a hashed slot's memory is freed (dense arrays are
  // freed once every slot has been taken).
  std::vector<OpSample> take(std::size_t slot);

 private:
  struct Free {
    void operator()(void* memory) const { std::free(memory); }
  };
  template <class T>
  using ZeroedArray = std::unique_ptr<T[], Free>;  // from calloc: untouched pages stay unmapped

  template <class T>
  static ZeroedArray<T> zeroed(std::size_t count);

  std::size_t index(std::size_t slot, std::uint32_t key) const { return slot * m_keys + key; }
  // The entry of (slot, key) outside the dense cells, made on first use; nullptr when it is a dense cell.
  OpValues* hashed(std::size_t slot, std::uint32_t key);
  // Moves dense cell `at` of (slot, key) into m_dense_extra and marks it moved.
  OpValues& spill(std::size_t slot, std::uint32_t key, std::size_t at);

  bool m_dense;
  std::size_t m_slots;
  std::size_t m_keys;
  std::size_t m_taken = 0;
  ZeroedArray<std::uint64_t> m_cells;     // [slot * keys + key]: self ns << 16 | calls + 1 (0: absent,
                                          // 0xFFFF: moved to the hash map)
  ZeroedArray<Nanoseconds> m_device_ns;   // null until the first device time
  std::vector<std::uint32_t> m_slot_ops;  // ops present by slot (sizes the taken vector)
  std::vector<std::unordered_map<std::uint32_t, OpValues>> m_hashed_slots;  // by slot (hashed only)
  std::map<std::pair<std::size_t, std::uint32_t>, OpValues> m_dense_extra;  // (slot, key): keys >= m_keys and
                                                                            // moved cells (dense only)
};

}  // namespace neuron_gate
