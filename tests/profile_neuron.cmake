# Neuron device artifacts (NEFF/NTFF completeness) and the run manifest neuron-gate.json.
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_neuron.cpp)
