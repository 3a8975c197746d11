// Tests for src/stats/ (placeholder until the stage lands).
#include <doctest/doctest.h>
