set(NEURON_GATE_TESTS_PROFILE test_profile.cpp)
include(profile_trace.cmake)
include(profile_tables.cmake)
include(profile_neuron.cmake)
include(profile_formats.cmake)
# Every device event counted: attributed + unattributed per step, shares vs tests/tools/device_share.py (issue 12).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_device_share.cpp)
# Digests: round trip of every bundled profile, hostile digests, rank combining (issue 20 item 3).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_digest.cpp)
# The digest written as it goes: byte-identical to the nlohmann document it replaced (issue 21 item 4).
list(APPEND NEURON_GATE_TESTS_PROFILE test_profile_digest_writer.cpp)
