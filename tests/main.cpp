// doctest's main for every test binary; tests find their files through NEURON_GATE_TEST_DATA.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
