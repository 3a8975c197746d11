// Tests for src/report/ (placeholder until the stage lands).
#include <doctest/doctest.h>
