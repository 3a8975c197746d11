#pragma once
// Streaming reader for Kineto / Chrome traces and legacy autograd-profiler traces
// (NEURON-FORMATS.md sections 2, 3, 6): a SAX pass that keeps each event as a compact record
// (interned name, category, thread, times in ns, ids) and never builds a JSON document.

#include "formats/data_problems.hpp"
#include "formats/trace_format.hpp"
#include "util/units.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace neuron_gate {

class ByteSource;

// What an event is for timing, decided from its category (exact strings, NEURON-FORMATS.md 2.5, 6.7).
enum class EventKind : std::uint8_t {
  cpu_op,           // cpu_op, Operator (2021); every event of a legacy trace (no categories at all)
  user_annotation,  // user_annotation: record_function ranges, ProfilerStep#N
  runtime,          // cuda_runtime, cuda_driver, privateuse1_runtime, privateuse1_driver, xpu_runtime,
                    // xpu_driver, mtia_runtime, Runtime (2021): host-side calls, rows of their own
  device,           // kernel, gpu_memcpy, gpu_memset, Kernel, Memcpy, Memset (2021), mtia_ccp_events; uncategorised
                    // events of torch_npu's "Ascend Hardware" process (labelled NPU)
  ignored,          // python_function, gpu_user_annotation, Trace, unknown categories, and the
                    // utility ops PyTorch's key_averages drops (profiler::_record_function_enter ...)
};

// True for the kinds that take part in self-time nesting on their thread (cpu_op, annotation, runtime).
bool is_cpu_side(EventKind kind);

// An id of a trace (args.correlation, External id) as 32 bits, equal exactly when the ids are: values
// below k_wide_id as they are, larger ones k_wide_id + their index among the trace's distinct large ids.
using IdCode = std::uint32_t;
inline constexpr IdCode k_wide_id = IdCode{1} << 31;

// What an event is beyond its times and ids, interned once per trace (TraceEvent::key_id).
struct EventKey {
  std::uint32_t name_id = 0;    // index into RawTrace::names
  std::uint32_t shapes_id = 0;  // index into RawTrace::shapes; 0 = no Input Dims / Input type
  std::uint16_t category = 0;   // index into RawTrace::categories; 0 = no "cat"
  bool operator==(const EventKey&) const = default;
};

// Most threads a trace may have (TraceEvent::thread holds 23 bits); more is an input error.
inline constexpr std::uint32_t k_max_threads = std::uint32_t{1} << 23;

// One ph "X" event with a usable duration: 40 bytes, no strings, the only record an event has (what the
// screens need of where it was read and of its args is folded in).
struct TraceEvent {
  Nanoseconds ts_ns = 0;          // start as written (trace-relative or absolute µs -> ns)
  Nanoseconds dur_ns = 0;         // >= 0: unfinished and negative durations are never stored
  IdCode correlation = 0;         // args.correlation (valid when has_correlation), coded: compared only
  IdCode external_id = 0;         // args."External id" / "external id", coded; 0 = absent or not linked
  std::uint32_t key_id = 0;       // index into RawTrace::event_keys: name, shapes, category
  std::uint32_t thread : 23 = 0;  // index into RawTrace::threads (< k_max_threads)
  bool has_correlation : 1 = false;
  EventKind kind : 8 = EventKind::ignored;
  std::uint32_t args_hash = 0;     // a 32-bit hash of the raw bytes of its args object as written (equality
                                   // only: the duplicate screen compares it among events of equal name, thread,
                                   // ts and dur)
  std::uint32_t end_byte_low = 0;  // low 32 bits of the (decompressed) byte offset just after its closing
                                   // brace; the whole offset is end_byte() (RawTrace::end_byte_wraps)
};
static_assert(sizeof(TraceEvent) == 40);

// One end of a flow arrow (ph "s" or "f"): ac2g (Kineto CPU -> device), async_npu (torch_npu), ...
struct FlowPoint {
  std::uint64_t id = 0;  // numeric id, or a hash of a non-numeric id text
  Nanoseconds ts_ns = 0;
  std::uint32_t thread = 0;    // index into RawTrace::threads
  std::uint16_t category = 0;  // index into RawTrace::categories
  bool is_start = false;       // "s" (start) or "f" (finish, bound to the event starting at ts)
};

// A (pid, tid) pair; pid and tid are kept as text ("25738", "Spans", "stream 7", "").
struct TraceThread {
  std::uint32_t process = 0;  // index into RawTrace::processes
  std::string tid;
};

// A pid with what its ph "M" metadata events say about it.
struct TraceProcess {
  std::string pid;
  std::string name;    // process_name args.name ("python3", "Ascend Hardware"), "" if absent
  std::string labels;  // process_labels args.labels ("CPU", "NPU"), "" if absent
};

// Input Dims / Input type of an event, as Python prints lists: "[[4, 512], [512]]", "['float', 'float']".
struct ShapeText {
  std::string dims;   // "" when the event has no Input Dims (or Input dims, 2021)
  std::string types;  // "" when the event has no Input type
};

// Everything the SAX pass keeps from one trace file.
// RawTrace::unusable's dur_ns markers: the data problem each event was counted as.
inline constexpr Nanoseconds k_unusable_unfinished = -1;         // DataProblemKind::unfinished
inline constexpr Nanoseconds k_unusable_negative = -2;           // negative_duration
inline constexpr Nanoseconds k_unusable_bad_timestamp = -3;      // bad_timestamp
inline constexpr Nanoseconds k_unusable_bad_duration = -4;       // bad_duration
inline constexpr Nanoseconds k_unusable_time_out_of_range = -5;  // time_out_of_range

struct RawTrace {
  TraceFormat format = TraceFormat::kineto;
  std::vector<TraceEvent> events;  // in file order
  // End bytes only grow along `events`: entry k is the index of the first event whose end byte is at least
  // (k + 1) x 2^32 (empty below 4 GiB), so end_byte() rebuilds an offset from its low 32 bits.
  std::vector<std::uint32_t> end_byte_wraps;
  // Events with dur -1 (unfinished), another negative dur, or a name but no usable ts or dur (malformed),
  // not in `events`: name, category, thread, shapes, correlation, External id and kind kept (dur_ns one of
  // the k_unusable_* markers, not a time) so the event screen can name their op and estimate their time.
  std::vector<TraceEvent> unusable;
  std::vector<FlowPoint> flows;         // in file order
  std::vector<EventKey> event_keys;     // interned (name, shapes, category) of events and unusable events
  std::vector<std::string> names;       // interned event names
  std::vector<std::string> categories;  // interned categories; [0] = "" (no cat)
  std::vector<ShapeText> shapes;        // interned shapes; [0] = none
  std::vector<TraceThread> threads;
  std::vector<TraceProcess> processes;
  std::map<std::string, std::string> metadata;         // top-level scalars as JSON text; "distributedInfo.rank",
                                                       // "deviceProperties.count", "deviceProperties.names"
                                                       // (distinct names joined by "; ", as a JSON string), ...
  std::int64_t event_count = 0;                        // ph "X" events read (stored or not)
  std::int64_t unfinished_events = 0;                  // dur == -1 µs: not stored
  std::int64_t negative_duration_events = 0;           // other dur < 0: not stored
  std::int64_t malformed_events = 0;                   // ph "X" without a usable name, ts or dur (or times beyond
                                                       // a century, which would overflow int64 ns sums): not stored
  std::vector<DataProblem> problems;                   // the malformed events by kind, cut names; first example each
  std::map<std::string, MalformedOp> malformed_by_op;  // name -> malformed events that had a name, and
                                                       // the events of that name read (set at the end)

  // The interned name, shapes and category of `event` (one of `events` or `unusable`).
  const EventKey& key(const TraceEvent& event) const { return event_keys[event.key_id]; }
  // Its name: an index into `names`.
  std::uint32_t name_id(const TraceEvent& event) const { return event_keys[event.key_id].name_id; }
};

// Interns (name, shapes, category) into a trace's event_keys (TraceEvent::key_id). An event most often has
// the key the last event of its name had, which is tried first; else an open-addressing table of key ids
// (4 bytes a slot, at most half full: no node per key).
class EventKeyTable {
 public:
  // Indexes the keys already in `keys`; new keys are appended to it.
  explicit EventKeyTable(std::vector<EventKey>& keys);
  std::uint32_t intern(const EventKey& key);

 private:
  static std::size_t hash(const EventKey& key);
  void place(std::uint32_t id);  // into m_slots, growing it first when half full

  std::vector<EventKey>& m_keys;
  std::vector<std::uint32_t> m_last_of_name;  // by name id: the key its last event had
  std::vector<std::uint32_t> m_slots;         // key ids; a power of two in size
};

// The (decompressed) byte offset just after the closing brace of trace.events[event]: for examples.
std::uint64_t end_byte(const RawTrace& trace, std::uint32_t event);

// Removes every event i of trace.events for which dropped(i) is true, keeping file order and end_byte().
template <class Dropped>
void remove_events(RawTrace& trace, Dropped dropped) {
  std::vector<std::uint32_t> wraps;
  std::size_t kept = 0;
  for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
    if (!dropped(i)) {
      const std::uint64_t high = end_byte(trace, i) >> 32;
      while (wraps.size() < high) {
        wraps.push_back(static_cast<std::uint32_t>(kept));
      }
      trace.events[kept++] = trace.events[i];
    }
  }
  trace.events.resize(kept);
  trace.end_byte_wraps = std::move(wraps);
}

// Reads the whole stream. The content must start (after an optional UTF-8 BOM and white space) with
// '{' (Kineto: {"traceEvents": [...]}) or '[' (legacy array). Throws InputError(path, problem, byte
// offset in the (decompressed) data) for anything else, any JSON syntax error (raw quotes or control
// characters in strings, invalid UTF-8) and truncation; a gzip fault comes from ByteSource. A JSON string
// longer than input_limits().max_string_bytes is an InputError before it is held in memory; an event name
// longer than max_name_bytes is cut (cut_name()) and counted.
RawTrace read_kineto_trace(ByteSource& source);

// A name longer than `max_bytes` cut at a UTF-8 boundary at most `max_bytes` long, followed by a marker that
// keeps cut names apart: "…[cut: 10000 bytes, sha256 1a2b3c4d5e6f7a8b]". Shorter names are returned as they are.
std::string cut_name(const std::string& name, std::uint64_t max_bytes);

}  // namespace neuron_gate
