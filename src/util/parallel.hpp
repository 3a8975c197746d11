#pragma once
// Worker threads for the parts that are independent per item: reading the trace files of the sides
// (profile/read_side.hpp read_sides) and the random halvings of calibration (compare/calibration.hpp).
// Every caller merges the results in item order, so what is printed never depends on the thread count.

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

namespace neuron_gate {

// The thread count in force: the last set_worker_threads(n) with n >= 1, else NEURON_GATE_THREADS when
// it holds a positive decimal integer (read once), else std::thread::hardware_concurrency() (1 when it
// is unknown). Capped at k_max_worker_threads.
std::size_t worker_threads();

// Sets the thread count (the CLI's --threads); 0 returns to the default above. Call before any work
// starts, not from a worker.
void set_worker_threads(std::size_t threads);

// Largest thread count accepted (more is taken as this).
inline constexpr std::size_t k_max_worker_threads = 256;

// Runs task(i) for every i in [0, count) on min(worker_threads(), count) threads, the calling thread
// being one of them, and returns when all are done. Items are taken in increasing order as threads
// free up. An exception thrown by task(i) is caught and returned at index i (the other items still
// run); nullptr where task(i) returned. Called from inside a task, it runs the items on the calling
// thread only (no nested thread pools). A thread that cannot be started leaves its share to the others.
std::vector<std::exception_ptr> parallel_for(std::size_t count, const std::function<void(std::size_t)>& task);

}  // namespace neuron_gate
