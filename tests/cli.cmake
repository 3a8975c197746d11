set(NEURON_GATE_TESTS_CLI test_cli.cpp test_cli_outputs.cpp)
