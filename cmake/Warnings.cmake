# Warnings for our own targets only (linked PRIVATE), never for third-party code.
add_library(neuron_gate_warnings INTERFACE)
target_compile_options(neuron_gate_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wnull-dereference -Wdouble-promotion -Wformat=2)
if(NEURON_GATE_WERROR)
  target_compile_options(neuron_gate_warnings INTERFACE -Werror)
endif()
target_compile_definitions(neuron_gate_warnings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)
