// Tests for src/cli/ (placeholder until the stage lands).
#include <doctest/doctest.h>
