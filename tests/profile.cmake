set(NEURON_GATE_TESTS_PROFILE test_profile.cpp test_profile_op_totals.cpp)
include(profile_trace.cmake)
include(profile_tables.cmake)
include(profile_neuron.cmake)
include(profile_sides.cmake)
# Every device event counted: attributed + unattributed per step, shares vs tests/tools/device_share.py (issue 12).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_device_share.cpp)
