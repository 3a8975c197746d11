# key_averages table tests.
list(APPEND NEURON_GATE_TESTS_PROFILE)
