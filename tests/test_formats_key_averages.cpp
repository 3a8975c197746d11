// Tests for src/formats/key_averages_table: printed key_averages() tables, real and hand-written.
#include "formats/key_averages_table.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ng = neuron_gate;
namespace fs = std::filesystem;

namespace {

const std::string k_key_averages_data = std::string(NEURON_GATE_TEST_DATA) + "/key_averages/";
const fs::path k_rmsnorm = fs::path(NEURON_GATE_SOURCE_DIR) / "examples" / "rmsnorm-4x512";
// One run of the bundled example A as it was first generated (3 cycles), kept for the parser tests
// that assert its cells: the bundled examples are regenerated when their design changes.
const fs::path k_rmsnorm_legacy =
    fs::path(NEURON_GATE_SOURCE_DIR) / "tests" / "data" / "key_averages" / "rmsnorm-A-run-01";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot open " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// T1 is tables copied from a tutorial's comments: every line has a "#    " prefix, except one block
// that uses "# ". The prefix of a table is the one of its dash line.
std::string strip_comment_prefix(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  std::string line;
  std::string prefix = "#    ";
  while (std::getline(in, line)) {
    if (line.rfind("# -", 0) == 0) {
      prefix = "# ";
    } else if (line.rfind("#    -", 0) == 0) {
      prefix = "#    ";
    }
    out += line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
    out += '\n';
  }
  return out;
}

const ng::KeyAveragesRow& row_named(const ng::KeyAveragesTable& table, std::string_view name) {
  const auto it = std::find_if(table.rows.begin(), table.rows.end(),
                               [&](const ng::KeyAveragesRow& row) { return row.name == name; });
  REQUIRE_MESSAGE(it != table.rows.end(), "no row " << name);
  return *it;
}

// Half the last printed digit: "us" cells carry ns, "ms" cells µs, "s" cells ms.
ng::Nanoseconds half_resolution(ng::Nanoseconds value) {
  const ng::Nanoseconds magnitude = value < 0 ? -value : value;
  if (magnitude >= 1'000'000'000) {
    return 500'000;
  }
  return magnitude >= 1'000'000 ? 500 : 1;
}

// The footer is PyTorch's sum of the unrounded self CPU times of every row.
void check_self_cpu_sums_to_footer(const ng::KeyAveragesTable& table, const std::string& what) {
  REQUIRE_MESSAGE(table.self_cpu_time_total_ns.has_value(), what);
  ng::Nanoseconds sum = 0;
  ng::Nanoseconds tolerance = half_resolution(*table.self_cpu_time_total_ns);
  for (const ng::KeyAveragesRow& row : table.rows) {
    REQUIRE_MESSAGE(row.self_cpu_ns.has_value(), what);
    sum += *row.self_cpu_ns;
    tolerance += half_resolution(*row.self_cpu_ns);
  }
  const ng::Nanoseconds difference = sum - *table.self_cpu_time_total_ns;
  CHECK_MESSAGE(std::llabs(difference) <= tolerance,
                what << ": rows sum to " << sum << " ns, footer " << *table.self_cpu_time_total_ns);
}

std::string expected_error(const std::string& path, std::size_t byte, const std::string& problem) {
  return path + ":byte " + std::to_string(byte) + ": " + problem;
}

}  // namespace

TEST_SUITE_BEGIN("profile::key_averages_table");

TEST_CASE("a time cell converts from its decimal text to exact nanoseconds") {
  CHECK(ng::parse_table_time_ns("1.200ms") == 1'200'000);
  CHECK(ng::parse_table_time_ns("-10.000us") == -10'000);
  CHECK(ng::parse_table_time_ns("15.185s") == 15'185'000'000);
  CHECK(ng::parse_table_time_ns("0.074us") == 74);
  CHECK(ng::parse_table_time_ns("7ns") == 7);
  CHECK(ng::parse_table_time_ns("12345678.000us") == 12'345'678'000);
  SUBCASE("digits below the nanosecond round half away from zero") {
    CHECK(ng::parse_table_time_ns("1.2345us") == 1235);
    CHECK(ng::parse_table_time_ns("-1.2345us") == -1235);
    CHECK(ng::parse_table_time_ns("1.2344us") == 1234);
  }
  SUBCASE("anything else is not a time") {
    for (const char* text : {"", "ms", "1.2", "1.2OOms", "57.549m", "1e3us", "--1us", "1.us", " 1us", "NaN"}) {
      CHECK_MESSAGE(!ng::parse_table_time_ns(text).has_value(), text);
    }
    CHECK(!ng::parse_table_time_ns("99999999999999999999s").has_value());
  }
}

TEST_CASE("every bundled rmsnorm table parses and its self CPU sums to the footer") {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(k_rmsnorm)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && (name.find(".key_averages.txt") != std::string::npos ||
                            name.find(".key_averages_by_shape.txt") != std::string::npos)) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 1120);
  for (const fs::path& file : files) {
    const ng::KeyAveragesTable table = ng::parse_key_averages_table(file);
    const std::string what = file.string();
    // Every line but the three dash lines, the header and the footer is a row.
    const std::string text = read_text(file);
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    const auto blank = static_cast<std::size_t>(text.ends_with("\n\n") ? 1 : 0);
    CHECK_MESSAGE(table.rows.size() == lines - blank - 5, what);
    CHECK_MESSAGE(!table.device_backend.has_value(), what);
    check_self_cpu_sums_to_footer(table, what);
    const bool by_shape = what.find("by_shape") != std::string::npos;
    for (const ng::KeyAveragesRow& row : table.rows) {
      CHECK_MESSAGE(row.input_shapes.has_value() == by_shape, what << " line " << row.line);
      CHECK_MESSAGE(row.calls.value_or(0) >= 1, what << " line " << row.line);
    }
    for (const ng::KeyAveragesWarning& warning : table.warnings) {
      CHECK_MESSAGE(warning.message.rfind("negative self CPU time", 0) == 0, what << ": " << warning.message);
    }
  }
}

TEST_CASE("an rmsnorm table gives its printed values, the negative aten::div_ included") {
  const std::string path = (k_rmsnorm_legacy / "vm_12615.1796061703467.key_averages.txt").string();
  const ng::KeyAveragesTable table = ng::parse_key_averages_table(fs::path(path));
  CHECK(table.columns == std::vector<std::string>{"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                                                  "CPU time avg", "# of Calls"});
  CHECK(table.rows.size() == 18);
  CHECK(table.first_line == 1);
  CHECK(table.self_cpu_time_total_ns == 334'000);
  CHECK(!table.self_device_time_total_ns.has_value());
  CHECK(!table.caption.has_value());

  const ng::KeyAveragesRow& zeros = table.rows.front();
  CHECK(zeros.name == "aten::zeros");
  CHECK(zeros.line == 4);
  CHECK(zeros.self_cpu_ns == 128'000);
  CHECK(zeros.cpu_total_ns == 131'000);
  CHECK(zeros.cpu_time_avg_ns == 65'500);
  CHECK(zeros.calls == 2);
  CHECK(!zeros.name_truncated);
  CHECK(!zeros.device.has_value());
  CHECK(!zeros.input_shapes.has_value());
  CHECK(!zeros.total_flops.has_value());
  CHECK(!zeros.cpu_memory_bytes.has_value());

  CHECK(row_named(table, "aten::to").cpu_time_avg_ns == 10'333);
  CHECK(row_named(table, "ProfilerStep*").cpu_total_ns == 204'000);
  const ng::KeyAveragesRow& div = table.rows.back();
  CHECK(div.name == "aten::div_");
  CHECK(div.self_cpu_ns == -10'000);
  CHECK(div.cpu_total_ns == 36'000);
  REQUIRE(table.warnings.size() == 1);
  CHECK(table.warnings[0] == ng::KeyAveragesWarning{21, "negative self CPU time \"-10.000us\" for \"aten::div_\""});
}

TEST_CASE("a by-shape table keeps the Input Shapes text and one row per name and shapes") {
  const ng::KeyAveragesTable table =
      ng::parse_key_averages_table(k_rmsnorm_legacy / "vm_12615.1796061703467.key_averages_by_shape.txt");
  CHECK(table.columns.back() == "Input Shapes");
  CHECK(table.rows.size() == 20);
  CHECK(table.self_cpu_time_total_ns == 334'000);
  const ng::KeyAveragesRow& pow = row_named(table, "aten::pow");
  CHECK(pow.input_shapes == "[[4, 512], []]");
  CHECK(pow.self_cpu_ns == 62'000);
  CHECK(pow.calls == 1);
  CHECK(row_named(table, "rmsnorm_step").input_shapes == "[]");

  std::vector<std::string> mul_shapes;
  for (const ng::KeyAveragesRow& row : table.rows) {
    if (row.name == "aten::mul") {
      mul_shapes.push_back(*row.input_shapes);
    }
  }
  CHECK(mul_shapes == std::vector<std::string>{"[[4, 512], [512]]", "[[4, 512], [4, 1]]"});
  CHECK(table.warnings.size() == 1);  // aten::div_ only: repeated names with other shapes are not suspicious
}

TEST_CASE("the large transformer table: seconds, big counts and names cut at 52 characters") {
  const ng::KeyAveragesTable table =
      ng::parse_key_averages_table(fs::path(k_key_averages_data + "large-transformer.key_averages.txt"));
  CHECK(table.rows.size() == 95);
  CHECK(table.self_cpu_time_total_ns == 38'073'000'000);
  check_self_cpu_sums_to_footer(table, "large transformer");

  const ng::KeyAveragesRow& mm = table.rows.front();
  CHECK(mm.name == "aten::mm");
  CHECK(mm.self_cpu_ns == 15'185'000'000);
  CHECK(mm.cpu_time_avg_ns == 3'944'000);
  CHECK(mm.calls == 3850);
  CHECK(row_named(table, "aten::_softmax").self_cpu_ns == 933'199'000);
  CHECK(row_named(table, "train_step").cpu_total_ns == 38'071'000'000);
  const ng::KeyAveragesRow& select = row_named(table, "aten::select");
  CHECK(select.calls == 253'440);
  CHECK(select.cpu_time_avg_ns == 182);
  CHECK(row_named(table, "autograd::engine::evaluate_function: AddmmBackward0").cpu_total_ns == 10'537'000'000);

  std::vector<std::string> truncated;
  for (const ng::KeyAveragesRow& row : table.rows) {
    if (row.name_truncated) {
      truncated.push_back(row.name);
    }
  }
  REQUIRE(truncated.size() == 6);
  CHECK(truncated[0] == "autograd::engine::evaluate_function: SoftmaxBackward...");
  CHECK(truncated[0].size() == 55);
  CHECK(table.warnings.empty());
}

TEST_CASE("the six tables of PyTorch's profiler recipe (T1) parse") {
  const std::string path = std::string(NEURON_GATE_TEST_DATA) + "/corpus/T1-profiler-recipe-tables.txt";
  const std::string text = strip_comment_prefix(read_text(path));
  const std::vector<ng::KeyAveragesTable> tables = ng::parse_key_averages_tables(text, path);
  REQUIRE(tables.size() == 6);

  SUBCASE("CPU only, sorted by CPU total, the footer unit mistyped upstream") {
    const ng::KeyAveragesTable& table = tables[0];
    CHECK(table.columns == std::vector<std::string>{"Name", "Self CPU", "CPU total", "CPU time avg", "# of Calls"});
    CHECK(table.rows.size() == 10);
    const ng::KeyAveragesRow& inference = table.rows.front();
    CHECK(inference.name == "model_inference");
    CHECK(inference.self_cpu_ns == 5'509'000);
    CHECK(inference.cpu_total_ns == 57'503'000);
    CHECK(inference.calls == 1);
    CHECK(row_named(table, "aten::mkldnn_convolution").self_cpu_ns == 30'838'000);
    CHECK(row_named(table, "aten::select").cpu_time_avg_ns == 8'988);
    CHECK(row_named(table, "aten::select").calls == 255);
    CHECK(!table.self_cpu_time_total_ns.has_value());
    REQUIRE(table.warnings.size() == 1);
    CHECK(table.warnings[0].message == "footer \"Self CPU time total\" is not a time: \"57.549m\"; ignored");
  }
  SUBCASE("Input Shapes, the same name with other shapes") {
    const ng::KeyAveragesTable& table = tables[1];
    CHECK(table.rows.size() == 10);
    CHECK(table.rows[0].input_shapes == "[]");
    CHECK(table.rows[2].name == "aten::convolution");
    CHECK(table.rows[2].input_shapes == "[[5,64,56,56], [64,64,3,3], [], ..., []]");
    CHECK(table.rows[2].cpu_total_ns == 7'956'000);
    CHECK(!table.rows[2].self_cpu_ns.has_value());
    CHECK(table.rows[9].input_shapes == "[[5,256,14,14], [256,256,3,3], [], ..., []]");
    CHECK(table.self_cpu_time_total_ns == 57'549'000);
    CHECK(table.warnings.empty());
  }
  SUBCASE("CUDA columns and a kernel name cut at 52 characters") {
    const ng::KeyAveragesTable& table = tables[2];
    CHECK(table.device_backend == "CUDA");
    const ng::KeyAveragesRow& im2col = table.rows[7];
    CHECK(im2col.name == "void at::native::im2col_kernel<float>(long, float co...");
    CHECK(im2col.name_truncated);
    REQUIRE(im2col.device.has_value());
    CHECK(*im2col.device == ng::KeyAveragesDeviceTimes{3'844'000, 3'844'000, std::nullopt});
    CHECK(table.rows[0].device->self_ns == 0);
    CHECK(table.rows[0].device->total_ns == 11'666'000);
    CHECK(row_named(table, "aten::thnn_conv2d_forward").device->self_ns == 10'484'000);
    CHECK(table.self_cpu_time_total_ns == 23'015'000);
    CHECK(table.self_device_time_total_ns == 11'666'000);
  }
  SUBCASE("XPU columns, named like the NEURON ones") {
    const ng::KeyAveragesTable& table = tables[3];
    CHECK(table.device_backend == "XPU");
    CHECK(table.columns[2] == "Self XPU %");
    const ng::KeyAveragesRow& overrideable = row_named(table, "aten::convolution_overrideable");
    CHECK(*overrideable.device == ng::KeyAveragesDeviceTimes{1'871'000, 1'871'000, 93'560});
    CHECK(overrideable.calls == 20);
    const ng::KeyAveragesRow& reorder = row_named(table, "conv_reorder");
    CHECK(*reorder.device == ng::KeyAveragesDeviceTimes{386'880, 386'880, 6'448});
    CHECK(reorder.calls == 60);
    CHECK(table.self_cpu_time_total_ns == 712'486'000);
    CHECK(table.self_device_time_total_ns == 2'567'000);
  }
  SUBCASE("memory columns in b, Kb and Mb (1024-based)") {
    const ng::KeyAveragesTable& table = tables[4];
    const ng::KeyAveragesRow& empty = row_named(table, "aten::empty");
    CHECK(empty.cpu_memory_bytes == 99'394'519);  // 94.79 * 1024^2 = 99394519.04
    CHECK(empty.self_cpu_memory_bytes == 99'394'519);
    CHECK(empty.calls == 121);
    CHECK(row_named(table, "aten::max_pool2d_with_indices").cpu_memory_bytes == 12'037'652);  // 11.48 Mb
    CHECK(row_named(table, "aten::addmm").cpu_memory_bytes == 19'999);                        // 19.53 Kb
    const ng::KeyAveragesRow& ne = row_named(table, "aten::ne");
    CHECK(ne.cpu_memory_bytes == 122);
    CHECK(ne.self_cpu_memory_bytes == 53);
    CHECK(!ne.device_memory_bytes.has_value());
    CHECK(!ne.self_cpu_ns.has_value());
    CHECK(table.self_cpu_time_total_ns == 53'064'000);
  }
  SUBCASE("Source Location rows continue over several lines") {
    const ng::KeyAveragesTable& table = tables[5];
    REQUIRE(table.rows.size() == 2);
    CHECK(table.rows[0].name == "aten::thnn_conv2d_forward");
    CHECK(table.rows[0].source_location == ".../torch/nn/modules/conv.py(439): _conv_forward\n"
                                           ".../torch/nn/modules/conv.py(443): forward\n"
                                           ".../torch/nn/modules/module.py(1051): _call_impl\n"
                                           ".../site-packages/torchvision/models/resnet.py(63): forward\n"
                                           ".../torch/nn/modules/module.py(1051): _call_impl");
    CHECK(table.rows[1].source_location->find("resnet.py(59): forward") != std::string::npos);
    CHECK(table.device_backend == "CUDA");  // from the footer only
    CHECK(table.self_device_time_total_ns == 11'659'000);
    CHECK(table.warnings.empty());
  }
  SUBCASE("one-table parsing refuses a text with several") {
    CHECK_THROWS_WITH(ng::parse_key_averages_table(text, path),
                      doctest::Contains("line 21: a second key_averages table starts here"));
  }
}

TEST_CASE("a CUDA table with a caption, a name with spaces and a FLOPs column") {
  const ng::KeyAveragesTable table =
      ng::parse_key_averages_table(fs::path(k_key_averages_data + "cuda-linear-relu.txt"));
  CHECK(table.caption == "linear+relu forward, 2 steps");
  CHECK(!table.top_level_events_only);
  CHECK(table.first_line == 3);
  CHECK(table.device_backend == "CUDA");
  CHECK(table.columns.size() == 12);
  CHECK(table.columns.back() == "Total MFLOPs");
  CHECK(table.rows.size() == 8);
  check_self_cpu_sums_to_footer(table, "cuda fixture");
  CHECK(table.self_cpu_time_total_ns == 4'564'000);
  CHECK(table.self_device_time_total_ns == 6'000'000);

  const ng::KeyAveragesRow& addmm = row_named(table, "aten::addmm");
  CHECK(addmm.self_cpu_ns == 1'450'000);
  CHECK(*addmm.device == ng::KeyAveragesDeviceTimes{12'500, 4'200'000, 210'025});
  CHECK(addmm.total_flops == 671'089'000);
  const ng::KeyAveragesRow& memcpy = row_named(table, "Memcpy HtoD (Pageable -> Device)");
  CHECK(memcpy.self_cpu_ns == 0);
  CHECK(*memcpy.device == ng::KeyAveragesDeviceTimes{1'800'000, 1'800'000, 899'875});
  CHECK(!memcpy.total_flops.has_value());
  CHECK(row_named(table, "cudaLaunchKernel").self_cpu_ns == 1'204'000);
  CHECK(row_named(table, "ampere_sgemm_32x128_tn").device->self_ns == 4'188'000);
  CHECK(table.warnings.empty());
}

TEST_CASE("a NEURON table: overflowing headers, a negative aten::to and ProfilerStep*") {
  const ng::KeyAveragesTable table = ng::parse_key_averages_table(fs::path(k_key_averages_data + "neuron-addmm.txt"));
  CHECK(table.device_backend == "NEURON");
  CHECK(table.columns == std::vector<std::string>{"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                                                  "CPU time avg", "Self NEURON", "Self NEURON %", "NEURON total",
                                                  "NEURON time avg", "# of Calls"});
  REQUIRE(table.rows.size() == 4);
  check_self_cpu_sums_to_footer(table, "neuron fixture");
  CHECK(table.self_cpu_time_total_ns == 3'105'000);
  CHECK(table.self_device_time_total_ns == 1'000'000);

  const ng::KeyAveragesRow& step = row_named(table, "ProfilerStep*");
  CHECK(step.self_cpu_ns == 360'000);
  CHECK(step.cpu_time_avg_ns == 1'552'000);
  CHECK(*step.device == ng::KeyAveragesDeviceTimes{0, 1'000'000, 500'000});
  CHECK(step.calls == 2);
  const ng::KeyAveragesRow& addmm = row_named(table, "aten::addmm");
  CHECK(addmm.self_cpu_ns == 1'200'000);
  CHECK(*addmm.device == ng::KeyAveragesDeviceTimes{800'000, 800'000, 80'000});
  CHECK(addmm.calls == 10);
  const ng::KeyAveragesRow& to = row_named(table, "aten::to");
  CHECK(to.self_cpu_ns == -15'000);
  CHECK(to.calls == 20);
  REQUIRE(table.warnings.size() == 1);
  CHECK(table.warnings[0] == ng::KeyAveragesWarning{7, "negative self CPU time \"-15.000us\" for \"aten::to\""});
}

TEST_CASE("two names cut to the same 52 characters stay two rows and are reported") {
  const ng::KeyAveragesTable table =
      ng::parse_key_averages_table(fs::path(k_key_averages_data + "truncated-names.txt"));
  REQUIRE(table.rows.size() == 3);
  const std::string label = "autograd::engine::evaluate_function: torch::autograd...";
  CHECK(table.rows[0].name == label);
  CHECK(table.rows[1].name == label);
  CHECK(table.rows[0].name_truncated);
  CHECK(table.rows[1].name_truncated);
  CHECK(table.rows[0].calls == 8);
  CHECK(table.rows[1].calls == 2);
  CHECK(table.rows[1].cpu_total_ns == 95'500);
  CHECK(!table.rows[2].name_truncated);
  check_self_cpu_sums_to_footer(table, "truncated names");
  REQUIRE(table.warnings.size() == 1);
  CHECK(table.warnings[0] ==
        ng::KeyAveragesWarning{5, "truncated name \"" + label +
                                      "\" also labels the row on line 4; the rows are kept apart"});
}

TEST_CASE("cells wider than their column (time_unit=\"us\") shift the rest of the row") {
  const std::string text =
      "--------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
      "          Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  \n"
      "--------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
      "    train_step         0.01%    1234.000us       100.00%  12345678.000us  12345678.000us             1  \n"
      "      aten::mm        99.99%  12344444.000us        99.99%  12344444.000us  3086111.000us             4  \n"
      "--------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
      "Self CPU time total: 12345678.000us\n";
  const ng::KeyAveragesTable table = ng::parse_key_averages_table(text, "us.txt");
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[0].cpu_total_ns == 12'345'678'000);
  CHECK(table.rows[0].cpu_time_avg_ns == 12'345'678'000);
  CHECK(table.rows[0].calls == 1);
  CHECK(table.rows[1].self_cpu_ns == 12'344'444'000);
  CHECK(table.rows[1].cpu_time_avg_ns == 3'086'111'000);
  CHECK(table.rows[1].calls == 4);
  check_self_cpu_sums_to_footer(table, "us");
}

TEST_CASE("NaN percentages (zero total) are legal") {
  const std::string text =
      "---------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
      "           Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  \n"
      "---------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
      "    aten::empty           NaN       0.000us           NaN       0.000us       0.000us             3  \n"
      "---------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
      "Self CPU time total: 0.000us\n";
  const ng::KeyAveragesTable table = ng::parse_key_averages_table(text, "nan.txt");
  REQUIRE(table.rows.size() == 1);
  CHECK(table.rows[0].self_cpu_ns == 0);
  CHECK(table.rows[0].calls == 3);
  CHECK(table.self_cpu_time_total_ns == 0);
}

TEST_CASE("a PyTorch 1.6 table: left-aligned cells, old headers, no self device time") {
  const std::string text = "--------------------  ---------------  ---------------  ---------------  ---------------  "
                           "---------------  ---------------  ---------------  ---------------  ---------------  \n"
                           "Name                  Self CPU total %  Self CPU total   CPU total %      CPU total        "
                           "CPU time avg     CUDA total %     CUDA total       CUDA time avg    Number of Calls  \n"
                           "--------------------  ---------------  ---------------  ---------------  ---------------  "
                           "---------------  ---------------  ---------------  ---------------  ---------------  \n"
                           "aten::matmul          0.20%            1.250ms          98.40%           610.500ms        "
                           "6.105ms          50.10%           702.000ms        7.020ms          100              \n"
                           "aten::mm              97.90%           607.800ms        98.20%           609.250ms        "
                           "6.093ms          49.90%           699.500ms        6.995ms          100              \n"
                           "--------------------  ---------------  ---------------  ---------------  ---------------  "
                           "---------------  ---------------  ---------------  ---------------  ---------------  \n"
                           "Self CPU time total: 620.400ms\n"
                           "CUDA time total: 1.402s\n";
  const ng::KeyAveragesTable table = ng::parse_key_averages_table(text, "old.txt");
  CHECK(table.device_backend == "CUDA");
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[0].name == "aten::matmul");
  CHECK(table.rows[0].self_cpu_ns == 1'250'000);
  CHECK(table.rows[0].cpu_total_ns == 610'500'000);
  CHECK(*table.rows[0].device == ng::KeyAveragesDeviceTimes{std::nullopt, 702'000'000, 7'020'000});
  CHECK(table.rows[1].calls == 100);
  CHECK(table.self_cpu_time_total_ns == 620'400'000);
  CHECK(!table.self_device_time_total_ns.has_value());
  CHECK(table.device_time_total_ns == 1'402'000'000);
}

TEST_CASE("top_level_events_only and a caption above the table are recognised") {
  const std::string text = "some log line\n"
                           "=========================================\n"
                           "my header\n"
                           "=========================================\n"
                           "This report only display top-level ops statistics\n"
                           "-------------  ------------  ------------  \n"
                           "         Name      Self CPU    # of Calls  \n"
                           "-------------  ------------  ------------  \n"
                           "      forward       1.000ms             1  \n"
                           "-------------  ------------  ------------  \n"
                           "Self CPU time total: 1.000ms\n";
  const ng::KeyAveragesTable table = ng::parse_key_averages_table(text, "top.txt");
  CHECK(table.caption == "my header");
  CHECK(table.top_level_events_only);
  CHECK(table.first_line == 6);
  CHECK(table.rows.at(0).self_cpu_ns == 1'000'000);

  // An '=' line of another width is the caller's own text, not the frame of a caption.
  const std::string log = "==========\nepoch 3 done\n" + text.substr(text.find("-------------"));
  const ng::KeyAveragesTable plain = ng::parse_key_averages_table(log, "log.txt");
  CHECK(!plain.caption.has_value());
  CHECK(!plain.top_level_events_only);
  REQUIRE(plain.rows.size() == 1);
  CHECK(plain.rows[0].line == 6);
  CHECK(plain.rows[0].self_cpu_ns == 1'000'000);
}

TEST_CASE("malformed tables are input errors naming the path, byte and line") {
  SUBCASE("a non-number in a time column") {
    const std::string path = k_key_averages_data + "bad-time-cell.txt";
    const std::string text = read_text(path);
    const std::size_t byte = text.find("1.2OOms");
    CHECK_THROWS_WITH(ng::parse_key_averages_table(fs::path(path)),
                      expected_error(path, byte, "line 5: column \"Self CPU\" is not a time: \"1.2OOms\"").c_str());
    try {
      ng::parse_key_averages_table(text, path);
      FAIL("no error");
    } catch (const ng::InputError& error) {
      CHECK(error.path() == path);
      CHECK(error.byte_offset() == byte);
    }
  }
  SUBCASE("no dash line below the header") {
    const std::string path = k_key_averages_data + "missing-dash-line.txt";
    const std::string text = read_text(path);
    const std::size_t byte = text.find("            aten::zeros");
    CHECK_THROWS_WITH(ng::parse_key_averages_table(fs::path(path)),
                      expected_error(path, byte,
                                     "line 3: expected a dash line below the header, found: \"aten::zeros        "
                                     "38.32%     128.000us        39.22%     131.000us      65.500u...\"")
                          .c_str());
  }
  const std::string header = "-------------  ------------  ------------  \n"
                             "         Name      Self CPU    # of Calls  \n";
  const std::string dash = "-------------  ------------  ------------  \n";
  SUBCASE("no dash line above the header") {
    const std::string text =
        "         Name      Self CPU    # of Calls  \n" + dash + "      forward       1.000ms             1  \n" + dash;
    CHECK_THROWS_WITH(
        ng::parse_key_averages_table(text, "t.txt"),
        "t.txt:byte 0: line 1: header line is not preceded by a dash line: \"Name      Self CPU    # of Calls\"");
  }
  SUBCASE("no closing dash line before the footer") {
    const std::string text =
        header + dash + "      forward       1.000ms             1  \nSelf CPU time total: 1.000ms\n";
    CHECK_THROWS_WITH(
        ng::parse_key_averages_table(text, "t.txt"),
        "t.txt:byte 176: line 5: footer comes before the closing dash line of the table opened on line 1");
  }
  SUBCASE("text ends inside the table") {
    const std::string text = header + dash + "      forward       1.000ms             1  \n";
    CHECK_THROWS_WITH(ng::parse_key_averages_table(text, "t.txt"),
                      "t.txt:byte 175: line 4: text ends before the closing dash line of the table opened on line 1");
  }
  SUBCASE("a call count that is not an integer") {
    const std::string text = header + dash + "      forward       1.000ms           1.5  \n" + dash;
    CHECK_THROWS_WITH(ng::parse_key_averages_table(text, "t.txt"),
                      "t.txt:byte 170: line 4: column \"# of Calls\" is not a call count: \"1.5\"");
  }
  SUBCASE("a bad percentage") {
    const std::string text = "-------------  ------------  \n"
                             "         Name    Self CPU %  \n"
                             "-------------  ------------  \n"
                             "      forward         12.x%  \n"
                             "-------------  ------------  \n";
    CHECK_THROWS_WITH(ng::parse_key_averages_table(text, "t.txt"),
                      "t.txt:byte 112: line 4: column \"Self CPU %\" is not a percentage: \"12.x%\"");
  }
  SUBCASE("a header with fewer names than the dash line has columns") {
    const std::string text = "-------------  ------------  ------------  \n"
                             "         Name                # of Calls  \n" +
                             dash;
    CHECK_THROWS_WITH(ng::parse_key_averages_table(text, "t.txt"),
                      "t.txt:byte 44: line 2: header names 2 columns but the dash line above has 3: "
                      "\"Name                # of Calls\"");
  }
  SUBCASE("no table at all") {
    CHECK_THROWS_WITH(ng::parse_key_averages_table("[{\"name\": \"x\"}]\n", "t.json"),
                      "t.json: no key_averages table found (a dash line, then a header line starting with \"Name\")");
    CHECK(ng::parse_key_averages_tables("just text\n", "t.txt").empty());
  }
  SUBCASE("a file that cannot be opened") {
    CHECK_THROWS_WITH(ng::parse_key_averages_table(fs::path(k_key_averages_data + "no-such-file.txt")),
                      (k_key_averages_data + "no-such-file.txt: cannot open: No such file or directory").c_str());
  }
}

TEST_CASE("content sniffing finds tables and nothing else") {
  CHECK(ng::looks_like_key_averages_table(
      read_text(k_rmsnorm_legacy / "vm_12615.1796061703467.key_averages_by_shape.txt")));
  CHECK(ng::looks_like_key_averages_table(read_text(k_key_averages_data + "cuda-linear-relu.txt")));
  CHECK(ng::looks_like_key_averages_table(read_text(k_key_averages_data + "neuron-addmm.txt")));
  CHECK(ng::looks_like_key_averages_table(
      strip_comment_prefix(read_text(std::string(NEURON_GATE_TEST_DATA) + "/corpus/T1-profiler-recipe-tables.txt"))));
  CHECK_FALSE(ng::looks_like_key_averages_table(""));
  CHECK_FALSE(ng::looks_like_key_averages_table(read_text(k_rmsnorm_legacy / "vm_12615.1796061703467.pt.trace.json")));
  CHECK_FALSE(ng::looks_like_key_averages_table("Name  Self CPU\n----  --------\n"));
  CHECK_FALSE(ng::looks_like_key_averages_table("----  --------\n  aten::mm  1.000us\n"));
  CHECK_FALSE(ng::looks_like_key_averages_table("---\nName\n"));
}

TEST_SUITE_END();
