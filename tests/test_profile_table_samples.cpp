// key_averages tables as samples: device time counted once when a table lists a kernel both in its
// launching op's Self <DEV> and as a row of its own (issue 13 item 4).
#include "formats/key_averages_table.hpp"
#include "profile/op_keys.hpp"
#include "profile/table_samples.hpp"
#include "test_files.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

namespace ng = neuron_gate;
namespace fs = std::filesystem;

using neuron_gate::testing::k_test_data;

namespace {

ng::Nanoseconds device_sum(const ng::TraceSamples& samples) {
  ng::Nanoseconds sum = 0;
  for (const auto& [name, values] : ng::ops_by_key(samples, samples.steps.at(0))) {
    sum += values.device_ns;
  }
  return sum;
}

// T1's blocks carry a "#    " comment prefix; the CUDA and XPU blocks are tables 3 and 4.
std::vector<ng::KeyAveragesTable> recipe_tables() {
  std::ifstream in(k_test_data + "/corpus/T1-profiler-recipe-tables.txt");
  std::string line, text;
  while (std::getline(in, line)) {
    if (line.rfind("#    ", 0) == 0) {
      line = line.substr(5);
    } else if (line.rfind("# ", 0) == 0) {
      line = line.substr(2);
    }
    text += line + "\n";
  }
  return ng::parse_key_averages_tables(text, "T1");
}

}  // namespace

TEST_SUITE_BEGIN("profile table samples");

TEST_CASE("rows that sum to the footer: every row's device time, once") {
  const auto table = ng::parse_key_averages_table(fs::path(k_test_data + "/key_averages/cuda-linear-relu.txt"));
  CHECK(ng::table_device_rows(table) == ng::TableDeviceRows::all);
  CHECK(ng::table_device_rows_note(table).empty());
  const ng::TraceSamples samples = ng::samples_from_table(table, "t", false);
  CHECK(device_sum(samples) == 6'000'500);  // 12.5 µs + 4.188 ms + 1.800 ms; footer 6.000 ms
  CHECK(ng::ops_by_key(samples, samples.steps[0]).at("ampere_sgemm_32x128_tn").device_ns == 4'188'000);
}

TEST_CASE("kernels listed in their op and as rows: the op rows only, summing to the footer") {
  const auto table =
      ng::parse_key_averages_table(fs::path(k_test_data + "/key_averages/cuda-kernels-listed-twice.txt"));
  REQUIRE(table.self_device_time_total_ns == 5'988'000);
  CHECK(ng::table_device_rows(table) == ng::TableDeviceRows::ops_only);
  CHECK(ng::table_device_rows_note(table).find("device time read from the op rows only") == 0);
  const ng::TraceSamples samples = ng::samples_from_table(table, "t", false);
  CHECK(device_sum(samples) == 5'988'000);  // was 11'976'000: each kernel twice
  CHECK(ng::ops_by_key(samples, samples.steps[0]).at("aten::addmm").device_ns == 4'188'000);
  CHECK(ng::ops_by_key(samples, samples.steps[0]).at("aten::copy_").device_ns == 1'800'000);
  CHECK(ng::ops_by_key(samples, samples.steps[0]).at("ampere_sgemm_32x128_tn").device_ns == 0);
  CHECK(samples.has_device_events);
}

TEST_CASE("PyTorch's profiler recipe (T1): rows past the footer and no CPU columns, so no device time") {
  const auto tables = recipe_tables();
  REQUIRE(tables.size() == 6);
  for (std::size_t i : {std::size_t{2}, std::size_t{3}}) {  // CUDA: 10.484 ms op + its kernels; XPU: gen_conv
    CAPTURE(i);
    CHECK(ng::table_device_rows(tables[i]) == ng::TableDeviceRows::unreadable);
    const ng::TraceSamples samples = ng::samples_from_table(tables[i], "T1", false);
    CHECK(device_sum(samples) == 0);
    CHECK_FALSE(samples.has_device_events);
    CHECK(ng::table_device_rows_note(tables[i]).find("device time not read") == 0);
  }
}

TEST_SUITE_END();
