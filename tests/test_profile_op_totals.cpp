// Tests for profile/op_totals: per-step op totals, dense (one array for the trace) or hashed by slot.
#include "profile/op_totals.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace neuron_gate;

TEST_SUITE_BEGIN("profile::op_totals");

TEST_CASE("dense totals: calls, self and device time by slot, ops sorted, absent ops left out") {
  OpTotals totals(3, 4, 100);  // 12 cells <= 2 x 100 events: dense
  totals.add_call(0, 2, 500);
  totals.add_call(0, 2, -20);
  totals.add_call(0, 0, 7);
  totals.add_device(1, 3, 900);  // present with no calls
  totals.add_call(2, 1, 3);
  totals.add_device(2, 1, 40);
  CHECK(totals.take(0) == std::vector<OpSample>{{0, {7, 0, 1}}, {2, {480, 0, 2}}});
  CHECK(totals.take(1) == std::vector<OpSample>{{3, {0, 900, 0}}});
  CHECK(totals.take(2) == std::vector<OpSample>{{1, {3, 40, 1}}});
}

TEST_CASE("a key beyond those counted up front is kept beside the dense arrays, in key order") {
  OpTotals totals(2, 2, 100);
  totals.add_call(1, 5, 11);
  totals.add_call(1, 1, 4);
  totals.add_device(1, 5, 6);
  CHECK(totals.take(0).empty());
  CHECK(totals.take(1) == std::vector<OpSample>{{1, {4, 0, 1}}, {5, {11, 6, 1}}});
}

TEST_CASE("hashed totals (many slots of many keys, few events) give the same values") {
  OpTotals totals(1000, 1000, 10);  // 10^6 cells > 65,536: hashed
  totals.add_call(999, 998, 1);
  totals.add_call(999, 3, 2);
  totals.add_call(999, 3, 2);
  totals.add_device(5, 7, 9);
  CHECK(totals.take(999) == std::vector<OpSample>{{3, {4, 0, 2}}, {998, {1, 0, 1}}});
  CHECK(totals.take(5) == std::vector<OpSample>{{7, {0, 9, 0}}});
  CHECK(totals.take(0).empty());
}

TEST_CASE("a dense cell that outgrows 16-bit calls or 48-bit self time moves to the hash map, exact") {
  OpTotals totals(2, 3, 100);
  for (int call = 0; call < 70000; ++call) {  // past 65,534 calls
    totals.add_call(0, 1, 3);
  }
  totals.add_device(0, 1, 5);
  totals.add_call(0, 2, Nanoseconds{1} << 46);
  totals.add_call(0, 2, Nanoseconds{1} << 46);  // 2^47 ns: past the cell's self time
  totals.add_device(1, 0, 8);
  totals.add_call(1, 0, -(Nanoseconds{1} << 50));  // a negative self time (a data problem) beyond 2^47
  totals.add_call(1, 2, -4);
  CHECK(totals.take(0) == std::vector<OpSample>{{1, {210000, 5, 70000}}, {2, {Nanoseconds{1} << 47, 0, 2}}});
  CHECK(totals.take(1) == std::vector<OpSample>{{0, {-(Nanoseconds{1} << 50), 8, 1}}, {2, {-4, 0, 1}}});
}
