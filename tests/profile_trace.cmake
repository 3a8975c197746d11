# Trace reader tests (kineto_trace, self_time, device_attribution, trace_samples).
list(APPEND NEURON_GATE_TESTS_PROFILE
  test_profile_trace_units.cpp
  test_profile_trace.cpp
  test_profile_trace_nesting.cpp
  test_profile_trace_corpus.cpp
  test_profile_trace_parser.cpp
)
