set(NEURON_GATE_TESTS_PROFILE test_profile.cpp)
include(profile_trace.cmake)
include(profile_tables.cmake)
include(profile_neuron.cmake)
