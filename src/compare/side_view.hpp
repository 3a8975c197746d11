#pragma once
// A side as the comparison reads it: all of a SideSamples, or the traces of it that one half of an A/A
// split holds (calibration.hpp), selected by index so that no trace or step is copied per half; and the
// runs (folders of traces) of either.

#include "profile/read_side.hpp"

#include <optional>
#include <string>
#include <vector>

namespace neuron_gate {

// A side, or the traces of it that one half of an A/A split holds (calibration.hpp), as compare_metrics
// reads it: the samples stay in `side` and are selected by index, never copied per view.
struct SideView {
  const SideSamples* side = nullptr;
  std::vector<std::size_t> traces;                          // indices into side->traces, ascending (path order)
  const std::vector<EndToEndMetric>* end_to_end = nullptr;  // the view's end-to-end metrics
  ScreenedTime screened{};  // the view's screened time (SideSamples::screened; none for a half)
  std::string label;        // "base", "head", "half A", ...: named by check_sample_unit's error
};

// The view of all of `side` (its traces, end-to-end metrics, screened time and label).
SideView whole_side(const SideSamples& side);

// One run of a side: the traces read from one folder (the path up to its last '/'), e.g. the three
// traces of examples/rmsnorm-4x512/A/run-01. `traces` index side.traces, in path order.
struct Run {
  std::string folder;
  std::vector<std::size_t> traces;
  bool operator==(const Run&) const = default;
};

// The runs of a side, ordered by folder name; empty when the side has no traces.
std::vector<Run> side_runs(const SideSamples& side);

// The runs of a view's traces, ordered by folder name; `traces` index view.side->traces.
std::vector<Run> side_runs(const SideView& view);

// Frees what `side`'s traces hold per op once its metrics are built (compare_metrics) and its report facts
// taken (report/report.hpp side_facts): every step's ops and device kernels, the events outside steps' ops
// and the op keys. Step times, problems, screened ops, shapes and metadata stay (findings read them).
// For a compare of many ops: the sides' per-op samples are then not held beside the judged metrics.
void release_op_samples(SideSamples& side);

// Either view holds more than one distinct rank (a trace without one counting as one more): compare
// rank to rank, as compare_per_rank (profile/ranks.hpp) finds it for whole sides.
bool views_per_rank(const SideView& base, const SideView& head);

}  // namespace neuron_gate
