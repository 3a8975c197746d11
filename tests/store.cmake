# Stage store (tests_store): digests and their writer.
# Digests: round trip of every bundled profile, hostile digests, rank combining (issue 20 item 3).
set(NEURON_GATE_TESTS_STORE test_store_digest.cpp)
# The digest written as it goes: byte-identical to the nlohmann document it replaced (issue 21 item 4).
list(APPEND NEURON_GATE_TESTS_STORE test_store_digest_writer.cpp)
