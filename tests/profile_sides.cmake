# Discovery by content and read_side() on those formats (discover, read_side).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_discover.cpp)
# The input kit: byte source, JSON reader, limits, regular files only (byte_source, json_input).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_input.cpp)
# Limits and data problems (input_limits, kineto_trace guards, read_side gates).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_limits.cpp)
