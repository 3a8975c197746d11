set(NEURON_GATE_TESTS_PROFILE test_profile.cpp)
