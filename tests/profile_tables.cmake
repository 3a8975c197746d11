# key_averages table tests.
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_key_averages.cpp)
