# Benchmark-tool and Neuron summary readers (benchmark_formats, neuron_summary).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_formats.cpp)
# Discovery by content and read_side() on those formats (discover, read_side).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_discover.cpp)
# The input kit: byte source, JSON reader, limits, regular files only (byte_source, json_input).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_input.cpp)
# The one directory walk and its symlink policy (walk).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_walk.cpp)
# Limits and data problems (input_limits, kineto_trace guards, read_side gates).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_limits.cpp)
