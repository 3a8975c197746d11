set(NEURON_GATE_TESTS_COMPARE test_compare.cpp)
