#include "formats/key_averages_cells.hpp"

#include "formats/key_averages_layout.hpp"

#include <array>
#include <cctype>
#include <map>
#include <numeric>

namespace neuron_gate::key_averages {
namespace {

bool all_digits(std::string_view text) {
  if (text.empty()) {
    return false;
  }
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> scale_decimal(std::string_view text, std::int64_t numerator, std::int64_t denominator) {
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  const std::size_t dot = text.find('.');
  const std::string_view integer_part = text.substr(0, dot);
  const std::string_view fraction_part = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
  if (!all_digits(integer_part) || (dot != std::string_view::npos && !all_digits(fraction_part))) {
    return std::nullopt;
  }
  std::int64_t mantissa = 0;
  std::int64_t divisor = denominator;
  for (const char c : integer_part) {
    if (__builtin_mul_overflow(mantissa, 10, &mantissa) || __builtin_add_overflow(mantissa, c - '0', &mantissa)) {
      return std::nullopt;
    }
  }
  for (const char c : fraction_part) {
    if (__builtin_mul_overflow(mantissa, 10, &mantissa) || __builtin_add_overflow(mantissa, c - '0', &mantissa) ||
        __builtin_mul_overflow(divisor, 10, &divisor)) {
      return std::nullopt;
    }
  }
  const std::int64_t common = std::gcd(numerator, divisor);
  std::int64_t product = 0;
  if (__builtin_mul_overflow(mantissa, numerator / common, &product)) {
    return std::nullopt;
  }
  divisor /= common;
  std::int64_t quotient = product / divisor;
  const std::int64_t remainder = product % divisor;
  if (remainder >= divisor - remainder) {
    ++quotient;
  }
  return negative ? -quotient : quotient;
}

std::int64_t power_of(std::int64_t base, int exponent) {
  std::int64_t result = 1;
  for (int i = 0; i < exponent; ++i) {
    result *= base;
  }
  return result;
}

namespace {

// "12.34%", "-0.08%", "NaN" (total was 0), "0" (async events): checked, not kept.
bool is_percentage(std::string_view cell) {
  if (cell == "NaN") {
    return true;
  }
  if (!cell.empty() && cell.back() == '%') {
    cell.remove_suffix(1);
  }
  return scale_decimal(cell, 1, 1).has_value();
}

// "572 b", "19.53 Kb", "94.79 Mb", "1.20 Gb" (1024-based), possibly negative -> bytes.
std::optional<std::int64_t> parse_memory_bytes(std::string_view cell) {
  static constexpr std::array<std::pair<std::string_view, int>, 4> k_units{
      {{" Gb", 3}, {" Mb", 2}, {" Kb", 1}, {" b", 0}}};
  for (const auto& [suffix, exponent] : k_units) {
    if (cell.size() > suffix.size() && cell.substr(cell.size() - suffix.size()) == suffix) {
      return scale_decimal(cell.substr(0, cell.size() - suffix.size()), power_of(1024, exponent), 1);
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> parse_integer(std::string_view cell) {
  if (cell.find('.') != std::string_view::npos) {
    return std::nullopt;
  }
  return scale_decimal(cell, 1, 1);
}

}  // namespace

// A device backend word: upper case as PyTorch prints `use_device.upper()`, not CPU.
bool is_device_word(std::string_view word) {
  if (word.empty() || word == "CPU") {
    return false;
  }
  for (const char c : word) {
    if (c == ' ' || std::islower(static_cast<unsigned char>(c)) != 0) {
      return false;
    }
  }
  return true;
}

bool strip_prefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) {
    return false;
  }
  text.remove_prefix(prefix.size());
  return true;
}

bool strip_suffix(std::string_view& text, std::string_view suffix) {
  if (text.size() < suffix.size() || text.substr(text.size() - suffix.size()) != suffix) {
    return false;
  }
  text.remove_suffix(suffix.size());
  return true;
}

std::pair<ColumnKind, int> classify_header(std::string_view header, std::string& device) {
  static const std::map<std::string_view, ColumnKind> k_fixed{
      {"Name", ColumnKind::name},
      {"Overload Name", ColumnKind::overload_name},
      {"Self CPU %", ColumnKind::self_cpu_percent},
      {"Self CPU total %", ColumnKind::self_cpu_percent},  // PyTorch <= 1.6
      {"Self CPU", ColumnKind::self_cpu},
      {"Self CPU total", ColumnKind::self_cpu},  // PyTorch <= 1.6
      {"CPU total %", ColumnKind::cpu_total_percent},
      {"CPU total", ColumnKind::cpu_total},
      {"CPU time avg", ColumnKind::cpu_time_avg},
      {"CPU Mem", ColumnKind::cpu_memory},
      {"Self CPU Mem", ColumnKind::self_cpu_memory},
      {"# of Calls", ColumnKind::calls},
      {"Number of Calls", ColumnKind::calls},  // PyTorch <= 1.6
      {"Node ID", ColumnKind::node_id},
      {"Input Shapes", ColumnKind::input_shapes},
      {"Source Location", ColumnKind::source_location},
  };
  if (const auto it = k_fixed.find(header); it != k_fixed.end()) {
    return {it->second, 0};
  }
  static constexpr std::array<std::string_view, 6> k_flops{"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
  for (std::size_t i = 0; i < k_flops.size(); ++i) {
    if (header.substr(0, 6) == "Total " && header.substr(6) == k_flops[i]) {
      return {ColumnKind::flops, static_cast<int>(3 * i)};
    }
  }
  std::string_view rest = header;
  ColumnKind kind = ColumnKind::unknown;
  if (strip_prefix(rest, "Self ")) {
    if (strip_suffix(rest, " %")) {
      kind = ColumnKind::self_device_percent;
    } else if (strip_suffix(rest, " Mem")) {
      kind = ColumnKind::self_device_memory;
    } else {
      strip_suffix(rest, " total");
      kind = ColumnKind::self_device;
    }
  } else if (strip_suffix(rest, " total %")) {
    kind = ColumnKind::device_total_percent;
  } else if (strip_suffix(rest, " total")) {
    kind = ColumnKind::device_total;
  } else if (strip_suffix(rest, " time avg")) {
    kind = ColumnKind::device_time_avg;
  } else if (strip_suffix(rest, " Mem")) {
    kind = ColumnKind::device_memory;
  }
  if (kind == ColumnKind::unknown || !is_device_word(rest)) {
    return {ColumnKind::unknown, 0};
  }
  device = std::string(rest);
  return {kind, 0};
}

bool is_device_time_column(ColumnKind kind) {
  return kind == ColumnKind::self_device || kind == ColumnKind::self_device_percent ||
         kind == ColumnKind::device_total_percent || kind == ColumnKind::device_total ||
         kind == ColumnKind::device_time_avg;
}

namespace {

// A time cell ("1.234ms", "-10.000us") into `ns`; false when it is no time.
bool read_time(std::string_view text, std::optional<Nanoseconds>& ns) {
  ns = parse_table_time_ns(text);
  return ns.has_value();
}

// A negative self time is in the data of older PyTorch versions: kept, and the reader is told.
void warn_negative(const CellRead& cell, const std::string& what, Nanoseconds ns, const KeyAveragesRow& row,
                   KeyAveragesTable& table) {
  if (ns < 0) {
    table.warnings.push_back(
        {cell.line_number, "negative " + what + " time " + quote(cell.text) + " for " + quote(row.name)});
  }
}

// The time columns; nullopt when `cell` is none of them or was read, else what it failed to be.
std::optional<std::string> read_time_cell(const CellRead& cell, KeyAveragesRow& row, KeyAveragesTable& table,
                                          bool& handled) {
  std::optional<Nanoseconds>* target = nullptr;
  handled = true;
  switch (cell.kind) {
  case ColumnKind::self_cpu:
    target = &row.self_cpu_ns;
    break;
  case ColumnKind::cpu_total:
    target = &row.cpu_total_ns;
    break;
  case ColumnKind::cpu_time_avg:
    target = &row.cpu_time_avg_ns;
    break;
  case ColumnKind::self_device:
    target = &row.device->self_ns;
    break;
  case ColumnKind::device_total:
    target = &row.device->total_ns;
    break;
  case ColumnKind::device_time_avg:
    target = &row.device->avg_ns;
    break;
  default:
    handled = false;
    return std::nullopt;
  }
  if (!read_time(cell.text, *target)) {
    return std::string("a time");
  }
  if (cell.kind == ColumnKind::self_cpu) {
    warn_negative(cell, "self CPU", **target, row, table);
  } else if (cell.kind == ColumnKind::self_device) {
    warn_negative(cell, "self " + *table.device_backend, **target, row, table);
  }
  return std::nullopt;
}

// The memory columns into bytes; "a memory size" when the text is none.
std::optional<std::string> read_memory_cell(const CellRead& cell, std::optional<std::int64_t>& bytes) {
  bytes = parse_memory_bytes(cell.text);
  return bytes ? std::nullopt : std::optional<std::string>("a memory size");
}

}  // namespace

std::optional<std::string> read_number_cell(const CellRead& cell, KeyAveragesRow& row, KeyAveragesTable& table) {
  bool handled = false;
  if (std::optional<std::string> problem = read_time_cell(cell, row, table, handled); handled) {
    return problem;
  }
  const std::string_view text = cell.text;
  switch (cell.kind) {
  case ColumnKind::self_cpu_percent:
  case ColumnKind::cpu_total_percent:
  case ColumnKind::self_device_percent:
  case ColumnKind::device_total_percent:
    return is_percentage(text) ? std::nullopt : std::optional<std::string>("a percentage");
  case ColumnKind::cpu_memory:
    return read_memory_cell(cell, row.cpu_memory_bytes);
  case ColumnKind::self_cpu_memory:
    return read_memory_cell(cell, row.self_cpu_memory_bytes);
  case ColumnKind::device_memory:
    return read_memory_cell(cell, row.device_memory_bytes);
  case ColumnKind::self_device_memory:
    return read_memory_cell(cell, row.self_device_memory_bytes);
  case ColumnKind::calls:
    row.calls = parse_integer(text);
    return row.calls && *row.calls >= 0 ? std::nullopt : std::optional<std::string>("a call count");
  case ColumnKind::node_id:
    row.node_id = parse_integer(text);
    return row.node_id ? std::nullopt : std::optional<std::string>("a node id");
  case ColumnKind::flops:
    if (text != "--") {
      row.total_flops = scale_decimal(text, power_of(10, cell.flops_exponent), 1);
      if (!row.total_flops) {
        return std::string("a FLOP count");
      }
    }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

}  // namespace neuron_gate::key_averages
