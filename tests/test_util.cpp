// Tests for src/util/ (placeholder until the stage lands).
#include <doctest/doctest.h>
