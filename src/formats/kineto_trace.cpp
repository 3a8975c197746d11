#include "formats/kineto_trace.hpp"

#include "formats/event_kinds.hpp"
#include "formats/trace_rapidjson.hpp"
#include "formats/trace_sax.hpp"
#include "input/byte_source.hpp"
#include "input/chunk_reader.hpp"
#include "util/error.hpp"
#include "util/huge_pages.hpp"
#include "util/sha256.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

static_assert(sizeof(TraceEvent) <= 48, "trace events must stay compact");

namespace {

using trace_reader::ChunkIterator;
using trace_reader::ChunkReader;
using trace_reader::TraceSax;

// Checks the first significant character (after an optional UTF-8 BOM and white space).
void sniff(ChunkReader& reader, const std::string& path) {
  if (reader.at_end()) {
    throw InputError(path, "not a trace: the file is empty");
  }
  std::string_view head = reader.peek();
  std::size_t i = 0;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") {
    i = 3;
  }
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) {
    ++i;
  }
  if (i == head.size()) {
    return;  // only white space in the first chunk: the parser decides
  }
  if (head[i] != '{' && head[i] != '[') {
    std::string start(head.substr(i, 16));
    for (char& c : start) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
        c = '?';
      }
    }
    throw InputError(path, "not a trace: the content does not start with '{' or '[': \"" + start + "\"", i);
  }
}

}  // namespace

std::string cut_name(const std::string& name, std::uint64_t max_bytes) {
  if (name.size() <= max_bytes) {
    return name;
  }
  std::size_t cut = static_cast<std::size_t>(max_bytes);
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
    --cut;  // never inside a UTF-8 sequence
  }
  return name.substr(0, cut) + "…[cut: " + std::to_string(name.size()) + " bytes, sha256 " +
         sha256_hex(name).substr(0, 16) + "]";
}

namespace {

// One pass over the source into `trace`: RapidJSON's SAX reader when `fast`, else nlohmann's. Returns
// whether any event had a category; nullopt when the fast pass stopped (trace_rapidjson.hpp says when).
// nlohmann's pass throws its InputError instead.
std::optional<bool> parse_trace(ByteSource& source, RawTrace& trace, bool fast) {
  // Reserve room for the most events the data could hold (an "X" event takes at least ~40 bytes):
  // untouched reserved pages cost no memory, and the vector never reallocates (no copy, no 2x peak; its
  // doubling held 1.5x its size at the end of a gigabyte trace).
  try {
    trace.events.reserve(static_cast<std::size_t>(source.size_hint() / 40));
    trace.flows.reserve(static_cast<std::size_t>(source.size_hint() / 40));  // the same bound, for flow points
    advise_huge_pages(trace.events, true);  // a trace's first events (flows may never come)
    advise_huge_pages(trace.flows);
  } catch (const std::exception&) {
    // the address space refused a reservation that large: grow as usual
  }
  ChunkReader reader(source, !fast);
  sniff(reader, source.path());
  TraceSax sax(trace, reader, source.path());
  sax.set_gzip(source.is_gzip());
  if (fast) {
    if (!trace_reader::parse_with_rapidjson(sax, reader)) {
      return std::nullopt;
    }
  } else {
    nlohmann::json::sax_parse(ChunkIterator(&reader), ChunkIterator(), &sax);
  }
  sax.finish();
  return sax.any_categorised_event();
}

}  // namespace

namespace {
constexpr std::uint32_t k_no_event_key = 0xFFFFFFFFu;
}  // namespace

EventKeyTable::EventKeyTable(std::vector<EventKey>& keys) : m_keys(keys) {
  m_slots.assign(64, k_no_event_key);
  for (std::uint32_t id = 0; id < m_keys.size(); ++id) {
    place(id);
  }
}

std::size_t EventKeyTable::hash(const EventKey& key) {
  std::uint64_t h = (static_cast<std::uint64_t>(key.name_id) << 32 | key.shapes_id) * 0x9E3779B97F4A7C15ULL;
  h ^= (h >> 29) + key.category;
  return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ULL ^ (h >> 31));
}

void EventKeyTable::place(std::uint32_t id) {
  if (2 * (std::size_t{id} + 1) > m_slots.size()) {
    m_slots.assign(m_slots.size() * 2, k_no_event_key);
    for (std::uint32_t placed = 0; placed < id; ++placed) {
      place(placed);
    }
  }
  const std::size_t mask = m_slots.size() - 1;
  std::size_t slot = hash(m_keys[id]) & mask;
  while (m_slots[slot] != k_no_event_key) {
    slot = (slot + 1) & mask;
  }
  m_slots[slot] = id;
}

std::uint32_t EventKeyTable::intern(const EventKey& key) {
  if (key.name_id < m_last_of_name.size()) {
    const std::uint32_t last = m_last_of_name[key.name_id];
    if (last != k_no_event_key && m_keys[last] == key) {
      return last;
    }
  } else {
    m_last_of_name.resize(std::size_t{key.name_id} + 1, k_no_event_key);
  }
  const std::size_t mask = m_slots.size() - 1;
  std::uint32_t id = k_no_event_key;
  for (std::size_t slot = hash(key) & mask; m_slots[slot] != k_no_event_key; slot = (slot + 1) & mask) {
    if (m_keys[m_slots[slot]] == key) {
      id = m_slots[slot];
      break;
    }
  }
  if (id == k_no_event_key) {
    id = static_cast<std::uint32_t>(m_keys.size());
    m_keys.push_back(key);
    place(id);
  }
  m_last_of_name[key.name_id] = id;
  return id;
}

std::uint64_t end_byte(const RawTrace& trace, std::uint32_t event) {
  const auto wraps = std::upper_bound(trace.end_byte_wraps.begin(), trace.end_byte_wraps.end(), event);
  const auto high = static_cast<std::uint64_t>(wraps - trace.end_byte_wraps.begin());
  return high << 32 | trace.events[event].end_byte_low;
}

RawTrace read_kineto_trace(ByteSource& source) {
  RawTrace trace;
  std::optional<bool> categorised = parse_trace(source, trace, true);
  if (!categorised) {
    // The fast path stopped: read again with nlohmann's parser for its exact result or error message.
    trace = RawTrace();
    source.restart();
    categorised = parse_trace(source, trace, false);
  }
  classify_events(trace, *categorised);
  if (!trace.malformed_by_op.empty()) {
    std::vector<std::int64_t> read_by_name(trace.names.size());
    for (const TraceEvent& event : trace.events) {
      ++read_by_name[trace.name_id(event)];
    }
    for (std::size_t id = 0; id < trace.names.size(); ++id) {
      if (const auto it = trace.malformed_by_op.find(trace.names[id]); it != trace.malformed_by_op.end()) {
        it->second.read = read_by_name[id];
      }
    }
  }
  return trace;
}

}  // namespace neuron_gate
