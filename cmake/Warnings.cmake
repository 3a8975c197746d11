# Warnings for our own targets only (linked PRIVATE), never for third-party code.
# Not -Wnull-dereference: with g++ 12 at -O2 it fires inside libstdc++'s std::string (false positives).
add_library(neuron_gate_warnings INTERFACE)
target_compile_options(neuron_gate_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wdouble-promotion -Wformat=2
  -Wconversion -Wsign-conversion -Wold-style-cast)
if(NEURON_GATE_WERROR)
  target_compile_options(neuron_gate_warnings INTERFACE -Werror)
  # g++ 12 at -O3 reports -Wrestrict inside libstdc++'s operator+(const char*, std::string)
  # (GCC bug 105329, a false positive): shown, not fatal.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(neuron_gate_warnings INTERFACE -Wno-error=restrict)
  endif()
endif()
target_compile_definitions(neuron_gate_warnings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)

# Precompiled standard and nlohmann/json headers (each target builds its own), for the clang builds of
# scripts/sanitize.sh: parsing them was a quarter of a translation unit's compile time there. Off by
# default: the other builds keep checking that every file includes what it uses.
option(NEURON_GATE_PCH "Precompile the standard and nlohmann/json headers" OFF)
if(NEURON_GATE_PCH)
  target_precompile_headers(neuron_gate_warnings INTERFACE
    <algorithm> <cmath> <cstdint> <functional> <map> <optional> <set> <sstream> <string> <string_view>
    <vector> <nlohmann/json.hpp>)
endif()
