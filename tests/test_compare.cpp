// Tests for src/compare/ (placeholder until the stage lands).
#include <doctest/doctest.h>
