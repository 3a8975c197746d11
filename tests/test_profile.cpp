// Tests for src/profile/ (placeholder until the stage lands).
#include <doctest/doctest.h>
