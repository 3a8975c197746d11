// Tests for util/units: exact decimal-µs text -> ns.
#include "util/units.hpp"

#include <doctest/doctest.h>

using neuron_gate::decimal_microseconds_to_ns;

TEST_SUITE_BEGIN("util::units");

TEST_CASE("decimal microseconds convert exactly to nanoseconds") {
  CHECK(decimal_microseconds_to_ns("4817302955.125") == 4817302955125);
  CHECK(decimal_microseconds_to_ns("1704161511420306.491") == 1704161511420306491);
  CHECK(decimal_microseconds_to_ns("0") == 0);
  CHECK(decimal_microseconds_to_ns("-1") == -1000);
  CHECK(decimal_microseconds_to_ns("5.25") == 5250);
  CHECK(decimal_microseconds_to_ns("5.250") == 5250);
  CHECK(decimal_microseconds_to_ns("007.5") == 7500);
  CHECK(decimal_microseconds_to_ns("0.000") == 0);
  CHECK(decimal_microseconds_to_ns("-0.0004") == 0);
}

TEST_CASE("digits below the nanosecond round half away from zero") {
  CHECK(decimal_microseconds_to_ns("13.083999999999989") == 13084);
  CHECK(decimal_microseconds_to_ns("12.77012757357446") == 12770);
  CHECK(decimal_microseconds_to_ns("0.0005") == 1);
  CHECK(decimal_microseconds_to_ns("0.00049999") == 0);
  CHECK(decimal_microseconds_to_ns("-0.0005") == -1);
  CHECK(decimal_microseconds_to_ns("-2.0015") == -2002);
  CHECK(decimal_microseconds_to_ns("0.00005") == 0);
  CHECK(decimal_microseconds_to_ns("1.9995") == 2000);
}

TEST_CASE("exponents shift the decimal point") {
  CHECK(decimal_microseconds_to_ns("1.5e3") == 1500000);
  CHECK(decimal_microseconds_to_ns("1.5E+3") == 1500000);
  CHECK(decimal_microseconds_to_ns("25e-3") == 25);
  CHECK(decimal_microseconds_to_ns("2.5e-3") == 3);
  CHECK(decimal_microseconds_to_ns("2.5e-4") == 0);
  CHECK(decimal_microseconds_to_ns("0e999999999") == 0);
}

TEST_CASE("the int64 range is the limit") {
  CHECK(decimal_microseconds_to_ns("9223372036854775.807") == 9223372036854775807);
  CHECK_FALSE(decimal_microseconds_to_ns("9223372036854775.808").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns("1e30").has_value());
  CHECK(decimal_microseconds_to_ns("-9223372036854775.807") == -9223372036854775807);
}

TEST_CASE("text that is not a number gives nullopt") {
  CHECK_FALSE(decimal_microseconds_to_ns("").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns("-").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns(".").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns("abc").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns("1.2.3").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns("1e").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns(" 1").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns("nan").has_value());
  CHECK_FALSE(decimal_microseconds_to_ns("inf").has_value());
}

TEST_SUITE_END();
