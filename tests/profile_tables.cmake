# Device time counted once when a table lists a kernel in its op and as its own row (issue 13 item 4).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_table_samples.cpp)
