#pragma once
// Traces read from bytes in memory: the samples read_trace_samples gives, or the InputError it throws.

#include "input/byte_source.hpp"
#include "profile/trace_samples.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>

namespace neuron_gate::testing {

// `bytes` (JSON or gzip) read as the trace file `name`.
inline TraceSamples read_bytes(const std::string& name, std::string bytes, const TraceReadOptions& options = {}) {
  ByteSource source(name, std::move(bytes));
  return read_trace_samples(source, options);
}

// The InputError reading `bytes` as `name` throws; fails the test when none is thrown.
inline InputError read_error(const std::string& name, std::string bytes) {
  try {
    read_bytes(name, std::move(bytes));
  } catch (const InputError& error) {
    return error;
  }
  FAIL("no InputError for " << name);
  return InputError(name, "unreachable");
}

}  // namespace neuron_gate::testing
