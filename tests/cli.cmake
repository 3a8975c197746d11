set(NEURON_GATE_TESTS_CLI test_cli.cpp)
