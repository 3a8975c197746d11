set(NEURON_GATE_TESTS_STATS
  test_stats_reference.cpp
)
