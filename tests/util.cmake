set(NEURON_GATE_TESTS_UTIL test_util.cpp)
