// One libFuzzer binary per target (fuzz/CMakeLists.txt defines NEURON_GATE_FUZZ_FUNCTION, e.g.
// neuron_gate::fuzz::trace). Built only with -DNEURON_GATE_FUZZ=ON (clang, -fsanitize=fuzzer).
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  NEURON_GATE_FUZZ_FUNCTION(std::span<const std::uint8_t>(data, size));
  return 0;
}
