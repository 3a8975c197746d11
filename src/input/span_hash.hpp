#pragma once
// A 64-bit hash of a run of bytes fed in pieces (internal to the trace reader): ChunkReader feeds it the
// raw bytes of an event's args object as the parser passes them, a chunk at a time, so the duplicate
// screen compares args without a hash step per JSON token. The value depends only on the bytes, never on
// where the chunks were cut (16-byte blocks, a partial block carried over). For equality only.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace neuron_gate::trace_reader {

// Two independent multiply lanes over 16-byte blocks (each step a bijection of its lane, rotated so high
// bits reach low ones), then the length and a final xorshift-multiply mix.
class SpanHash {
 public:
  // Starts a new run of bytes.
  void reset() {
    m_lane_a = 0x243F6A8885A308D3ULL;
    m_lane_b = 0x13198A2E03707344ULL;
    m_carried = 0;
    m_length = 0;
  }

  // Adds the bytes [begin, end).
  void update(const char* begin, const char* end) {
    auto left = static_cast<std::size_t>(end - begin);
    m_length += left;
    if (m_carried != 0) {
      const std::size_t take = left < 16 - m_carried ? left : 16 - m_carried;
      std::memcpy(m_carry + m_carried, begin, take);
      m_carried += take;
      begin += take;
      left -= take;
      if (m_carried < 16) {
        return;
      }
      block(m_carry);
      m_carried = 0;
    }
    for (; left >= 16; left -= 16, begin += 16) {
      block(begin);
    }
    std::memcpy(m_carry, begin, left);
    m_carried = left;
  }

  // The hash of every byte added since reset().
  std::uint64_t value() const {
    std::uint64_t lane_a = m_lane_a;
    std::uint64_t lane_b = m_lane_b;
    if (m_carried != 0) {
      char last[16] = {};
      std::memcpy(last, m_carry, m_carried);
      mix(last, lane_a, lane_b);
    }
    std::uint64_t hash = (lane_a ^ rotate(lane_b, 32) ^ m_length) * k_mul_a;
    hash ^= hash >> 29;
    hash *= k_mul_b;
    return hash ^ (hash >> 32);
  }

 private:
  static constexpr std::uint64_t k_mul_a = 0x9E3779B97F4A7C15ULL;
  static constexpr std::uint64_t k_mul_b = 0xC2B2AE3D27D4EB4FULL;

  static std::uint64_t rotate(std::uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }
  static void mix(const char* p, std::uint64_t& lane_a, std::uint64_t& lane_b) {
    std::uint64_t words[2];
    std::memcpy(words, p, 16);
    lane_a = rotate((lane_a ^ words[0]) * k_mul_a, 31);
    lane_b = rotate((lane_b ^ words[1]) * k_mul_b, 29);
  }
  void block(const char* p) { mix(p, m_lane_a, m_lane_b); }

  std::uint64_t m_lane_a = 0;
  std::uint64_t m_lane_b = 0;
  std::uint64_t m_length = 0;
  char m_carry[16] = {};
  std::size_t m_carried = 0;
};

}  // namespace neuron_gate::trace_reader
