set(NEURON_GATE_TESTS_REPORT test_report.cpp)
