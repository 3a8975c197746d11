# Sanitizers for our own targets, e.g. -DNEURON_GATE_SANITIZERS="address;undefined". A UBSan finding
# aborts (-fno-sanitize-recover), so that a test or fuzzer fails on it instead of printing and going on.
# With NEURON_GATE_FUZZ every target is also instrumented for libFuzzer's coverage (fuzzer-no-link).
add_library(neuron_gate_sanitizers INTERFACE)
foreach(_san IN LISTS NEURON_GATE_SANITIZERS)
  target_compile_options(neuron_gate_sanitizers INTERFACE -fsanitize=${_san} -fno-omit-frame-pointer)
  target_link_options(neuron_gate_sanitizers INTERFACE -fsanitize=${_san})
  if(_san STREQUAL "undefined")
    target_compile_options(neuron_gate_sanitizers INTERFACE -fno-sanitize-recover=undefined)
    target_link_options(neuron_gate_sanitizers INTERFACE -fno-sanitize-recover=undefined)
  endif()
endforeach()
if(NEURON_GATE_FUZZ)
  target_compile_options(neuron_gate_sanitizers INTERFACE -fsanitize=fuzzer-no-link)
endif()
