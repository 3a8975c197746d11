#include "util/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

namespace neuron_gate {
namespace {

std::atomic<std::size_t> g_threads{0};  // 0: the default
thread_local bool t_inside_task = false;

std::size_t default_threads() {
  if (const char* text = std::getenv("NEURON_GATE_THREADS")) {
    std::size_t value = 0;
    const char* end = text + std::strlen(text);
    const auto [next, error] = std::from_chars(text, end, value);
    if (error == std::errc() && next == end && value > 0) {
      return value;
    }
  }
  return std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

}  // namespace

std::size_t worker_threads() {
  static const std::size_t from_environment = default_threads();
  const std::size_t set = g_threads.load();
  return std::min(set > 0 ? set : from_environment, k_max_worker_threads);
}

void set_worker_threads(std::size_t threads) {
  g_threads.store(threads);
}

std::vector<std::exception_ptr> parallel_for(std::size_t count, const std::function<void(std::size_t)>& task) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    const bool was_inside = t_inside_task;
    t_inside_task = true;
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
    t_inside_task = was_inside;
  };
  const std::size_t threads = t_inside_task ? 1 : std::min(worker_threads(), count);
  std::vector<std::jthread> helpers;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: the ones running (and this one) take the rest
    }
  }
  work();
  helpers.clear();  // joins
  return errors;
}

}  // namespace neuron_gate
