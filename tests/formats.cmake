# Stage formats (tests_formats): the readers of one file kind each, and discovery.
# Benchmark-tool and Neuron summary readers (benchmark_formats, neuron_summary).
set(NEURON_GATE_TESTS_FORMATS test_formats_benchmarks.cpp)
# The one directory walk and its symlink policy (walk).
list(APPEND NEURON_GATE_TESTS_FORMATS test_formats_walk.cpp)
# key_averages table tests.
list(APPEND NEURON_GATE_TESTS_FORMATS test_formats_key_averages.cpp)
# The table of file kinds: one row each, discovery in row order (file_kinds).
list(APPEND NEURON_GATE_TESTS_FORMATS test_formats_kinds.cpp)
