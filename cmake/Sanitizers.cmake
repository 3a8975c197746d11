# Sanitizers for our own targets, e.g. -DNEURON_GATE_SANITIZERS="address;undefined".
add_library(neuron_gate_sanitizers INTERFACE)
foreach(_san IN LISTS NEURON_GATE_SANITIZERS)
  target_compile_options(neuron_gate_sanitizers INTERFACE -fsanitize=${_san} -fno-omit-frame-pointer)
  target_link_options(neuron_gate_sanitizers INTERFACE -fsanitize=${_san})
endforeach()
