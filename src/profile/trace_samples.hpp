#pragma once
// What one trace file contributes to a side: per-step, per-op samples of self CPU time, device
// time and call counts (DESIGN.md section 2). Produced by read_trace_samples(); plain values. Memory
// follows ops, not events: op keys are interned once per trace (TraceSamples::op_keys) and each step
// holds its ops as a sorted vector of (id, values), 32 bytes an op a step (op_keys.hpp looks them up).

#include "formats/data_problems.hpp"
#include "formats/trace_format.hpp"
#include "util/units.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace neuron_gate {

class ByteSource;

// One op's totals over one step (or over the events outside every step).
struct OpValues {
  Nanoseconds self_cpu_ns = 0;  // sum of self CPU times; negative only when the trace itself is (data problem)
  Nanoseconds device_ns = 0;    // device time (kernel, gpu_memcpy, gpu_memset, ...) attributed to this op
  std::int64_t calls = 0;       // number of CPU events of this op
  bool operator==(const OpValues&) const = default;
};

// One op's totals in one step: `op` indexes the trace's op keys (TraceSamples::op_keys).
struct OpSample {
  std::uint32_t op = 0;
  OpValues values;
  bool operator==(const OpSample&) const = default;
};

// One ProfilerStep#N window of a process, or the whole trace when it has no steps. Ops are ids into the
// trace's op_keys (interned once per trace), so a step costs 32 bytes per op it holds, not a string map.
struct StepSample {
  std::string name;                                   // "ProfilerStep#5", or "whole trace"
  Nanoseconds start_ns = 0;                           // trace-relative start
  Nanoseconds duration_ns = 0;                        // profiled step time
  std::vector<OpSample> ops;                          // the step's ops, sorted by id (= by key), each once;
                                                      // CPU-side events only: ops, user annotations,
                                                      // runtime/driver calls. Look up by key with
                                                      // find_op (op_keys.hpp)
  std::map<std::string, Nanoseconds> device_kernels;  // device time per kernel / memcpy / memset name
  Nanoseconds unattributed_device_ns = 0;             // device time attributed to no op (device_attribution.hpp)
  std::map<std::string, Nanoseconds> unattributed_by_category;  // the same by event category ("kernel",
                                                                // "mtia_ccp_events", "no category")
  bool operator==(const StepSample&) const = default;
};

// Faults in the data that are read around, never silently: each is counted and reported.
struct TraceDataProblems {
  std::int64_t negative_duration_events = 0;              // dur < -1 (missing end timestamp): excluded from every sum
  std::int64_t unfinished_events = 0;                     // dur == -1 (never finished, PyTorch >= 2025): excluded
  std::int64_t malformed_events = 0;                      // ph "X" without a name, ts or dur, or with a time that is
                                                          // not a decimal number of µs, or times beyond a century
                                                          // (ts outside [-2^60, 2^62] ns, dur > 2^60 ns): excluded
  std::map<std::string, Nanoseconds> negative_self_time;  // op -> most negative self time of one event
  std::vector<DataProblem> listed;  // malformed events by kind and cut names, each with its first example
  std::map<std::string, MalformedOp> malformed_by_op;  // op name -> its malformed and its read events
  bool operator==(const TraceDataProblems&) const = default;
};

// Events of one op the event screen excluded from a trace (issue 13 item 2: a data problem marks only the
// metrics it touches): CPU-side events of that op key (self CPU), and device events that the attribution
// rules (device_attribution.hpp) give to that op (device time). A cut-off step counts every op it held,
// in the classes it had time or calls in.
struct ScreenedOp {
  std::int64_t cpu_events = 0;
  std::int64_t device_events = 0;
  // Of cpu_events: those without a usable time (unfinished, negative dur, malformed ts or dur), each a call
  // missing from a kept step's sample; screened_metrics.hpp counts them against the op's calls.
  std::int64_t unusable_cpu_events = 0;
  // Of device_events: launches whose device event is not in the trace (DataProblemKind::device_events_missing).
  std::int64_t missing_device_events = 0;
  bool operator==(const ScreenedOp&) const = default;
};

// Everything read from one trace file.
struct TraceSamples {
  std::string path;
  TraceFormat format = TraceFormat::kineto;
  // Op keys of the steps (OpSample::op indexes it): op name ("ProfilerStep#N" -> "ProfilerStep*"), or name +
  // shapes when read by shape (TraceReadOptions::by_shape); sorted, unique, each held by some step or
  // outside_steps. Id order is key order, so a step's ops iterate by key.
  std::vector<std::string> op_keys;
  std::vector<StepSample> steps;  // ordered by start time; a trace without ProfilerStep has one "whole trace" step
  bool has_profiler_steps = false;
  StepSample outside_steps;          // events starting in no step window: counted and shown, never compared
  std::int64_t event_count = 0;      // ph "X" events read
  std::set<std::string> categories;  // event categories seen ("cpu_op", "kernel", ...; "" for none)
  bool has_device_events = false;    // any device event (EventKind::device)
  std::map<std::string, std::set<std::string>> input_shapes;  // op name -> distinct "Input Dims" texts seen,
                                                              // as Python prints lists: "[[4, 512], []]"
  std::map<std::string, std::string> metadata;  // top-level scalars: schemaVersion, record_shapes, with_stack,
                                                // distributedInfo.rank, ... as JSON text
  TraceDataProblems problems;
  // Time kept in the samples and excluded by the event screen (event_screen.hpp); the screened events'
  // problems are in problems.listed.
  ScreenedTime screened{};
  // Op key (as in op_keys) -> its screened events; read_side adds the unattributed rows'
  // entries (k_unattributed_row) from screened_unattributed.
  std::map<std::string, ScreenedOp> screened_ops;
  // Op keys read from runtime calls (EventKind::runtime: cudaLaunchKernel, nrt_execute, ...): host-side
  // calls whose self CPU time is a family of its own, never gating by default (issue 38 item 6).
  std::set<std::string> runtime_calls;
  // Event category ("kernel", "no category") -> screened device events no op is found for.
  std::map<std::string, std::int64_t> screened_unattributed;
  // A step of this trace was cut off (cut_off_steps()) or a ProfilerStep event itself was unusable: the
  // step-time samples lack a step.
  bool steps_screened = false;
  // The rank (process of a distributed run) this trace belongs to, set by read_side (ranks.hpp);
  // nullopt when nothing tells. rank_source: "distributedInfo.rank", "file name", "folder name", "manifest" or "".
  std::optional<unsigned> rank;
  std::string rank_source;
  bool operator==(const TraceSamples&) const = default;
};

// How to read a trace.
struct TraceReadOptions {
  // Key ops by name + input shapes and dtypes: "<name> <Input Dims> <Input type>", both lists as
  // Python prints them (", " between items, strings in single quotes), e.g.
  // "aten::mm [[16, 32], [32, 8]] ['float', 'float']". Without Input type: "<name> <Input Dims>";
  // with Input type only: "<name> [] <Input type>"; an event with neither keeps the bare name.
  // "Input dims" (2021 traces) counts as Input Dims; an empty list is written "[]".
  bool by_shape = false;
};

// Reads one Kineto or legacy trace (plain or gzip, optional BOM) streaming with a SAX parser, screens
// its events (event_screen.hpp: excluded before any sample is made, counted in problems.listed) and
// leaves out a last step cut off when the profiler stopped (cut_off_steps()).
// Throws InputError naming the path and byte offset for anything that is not a complete JSON trace.
// Rules (DESIGN.md section 2): self CPU time by PyTorch's nesting (self_time.hpp); a step is a
// ProfilerStep#N window [start, end) of its whole process, holding the events that start in it
// (device events: the step of their launch, see device_attribution.hpp; device time with no launch:
// the step of any process holding its start); utility ops PyTorch's key_averages drops
// (profiler::_record_function_*, aten::is_leaf, aten::output_nr, aten::_version) are left out.
TraceSamples read_trace_samples(const std::string& path, const TraceReadOptions& options = {});

// The same from an open byte source (a git blob, bytes in memory); path() names it in errors.
TraceSamples read_trace_samples(ByteSource& source, const TraceReadOptions& options = {});

}  // namespace neuron_gate
