#include "formats/key_averages_table.hpp"

#include "formats/key_averages_cells.hpp"
#include "formats/key_averages_layout.hpp"
#include "input/json_input.hpp"

#include "util/error.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>
#include <utility>

namespace neuron_gate {
using namespace key_averages;  // the layout and cells of a table (key_averages_layout.hpp, key_averages_cells.hpp)
namespace {

constexpr std::size_t k_truncated_name_length = 55;  // PyTorch cuts names of 52+ chars to 52 + "..."

struct Column {
  std::string header;
  ColumnKind kind = ColumnKind::unknown;
  Span span;
  int flops_exponent = 0;  // Total KFLOPs -> 3, MFLOPs -> 6, ...
};

// ----- the parser -----

class TableParser {
 public:
  TableParser(std::string_view text, const std::string& path) : m_path(path), m_lines(split_lines(text)) {}

  std::vector<KeyAveragesTable> parse_all() {
    std::vector<KeyAveragesTable> tables;
    std::size_t floor = 0;  // first line after the previous table, for the caption search
    std::size_t i = 0;
    while (i < m_lines.size()) {
      const bool dash = dash_spans(m_lines[i].text).has_value();
      if (dash && i + 1 < m_lines.size() && is_header_line(m_lines[i + 1].text)) {
        KeyAveragesTable table;
        const std::size_t next = parse_table(i, floor, table);
        tables.push_back(std::move(table));
        floor = next;
        i = next;
        continue;
      }
      if (!dash && is_header_line(m_lines[i].text) && i + 1 < m_lines.size()) {
        const auto below = dash_spans(m_lines[i + 1].text);
        if (below && below->size() == split_header(m_lines[i].text).size()) {
          fail(m_lines[i], 0, "header line is not preceded by a dash line: " + quote(trim(m_lines[i].text)));
        }
      }
      ++i;
    }
    return tables;
  }

  [[noreturn]] void fail(const Line& line, std::size_t column, const std::string& problem) const {
    throw InputError(m_path, line_prefix(line) + problem, line.offset + column);
  }

 private:
  // Parses the table whose opening dash line is m_lines[open]; returns the index after its footer.
  std::size_t parse_table(std::size_t open, std::size_t floor, KeyAveragesTable& table) {
    const Line& open_line = m_lines[open];
    const std::vector<Span> spans = *dash_spans(open_line.text);
    table.first_line = open_line.number;
    read_caption(open, floor, spans, table);

    const Line& header_line = m_lines[open + 1];
    const std::vector<std::string_view> headers = split_header(header_line.text);
    if (headers.size() != spans.size()) {
      fail(header_line, 0,
           "header names " + std::to_string(headers.size()) + " columns but the dash line above has " +
               std::to_string(spans.size()) + ": " + quote(trim(header_line.text)));
    }
    std::vector<Column> columns = classify_columns(header_line, headers, spans, table);

    if (open + 2 >= m_lines.size() || dash_spans(m_lines[open + 2].text) != spans) {
      const Line& found = open + 2 < m_lines.size() ? m_lines[open + 2] : header_line;
      fail(found, 0, "expected a dash line below the header, found: " + quote(trim(found.text)));
    }

    std::size_t i = open + 3;
    for (;; ++i) {
      if (i >= m_lines.size()) {
        const Line& last = m_lines.back();
        fail(last, last.text.size(),
             "text ends before the closing dash line of the table opened on line " + std::to_string(open_line.number));
      }
      const Line& line = m_lines[i];
      if (const auto row_spans = dash_spans(line.text)) {
        if (*row_spans != spans) {
          fail(line, 0, "dash line does not match the table's columns: " + quote(trim(line.text)));
        }
        break;
      }
      if (is_blank(line.text)) {
        continue;
      }
      if (trim(line.text).substr(0, 20) == "Self CPU time total:") {
        fail(line, 0,
             "footer comes before the closing dash line of the table opened on line " +
                 std::to_string(open_line.number));
      }
      parse_row(line, columns, table);
    }
    report_shared_labels(table);
    return read_footer(i + 1, table);
  }

  std::vector<Column> classify_columns(const Line& header_line, const std::vector<std::string_view>& headers,
                                       const std::vector<Span>& spans, KeyAveragesTable& table) {
    std::vector<Column> columns;
    for (std::size_t c = 0; c < headers.size(); ++c) {
      Column column;
      column.header = std::string(headers[c]);
      column.span = spans[c];
      std::string device;
      std::tie(column.kind, column.flops_exponent) = classify_header(headers[c], device);
      if (!device.empty()) {
        if (table.device_backend && *table.device_backend != device) {
          fail(header_line, 0,
               "columns name two device backends, " + quote(*table.device_backend) + " and " + quote(device));
        }
        table.device_backend = device;
      }
      if (column.kind == ColumnKind::name && c != 0) {
        fail(header_line, 0, "column \"Name\" is not the first column");
      }
      if (column.kind == ColumnKind::unknown) {
        table.warnings.push_back(
            {header_line.number, "unknown column " + quote(column.header) + "; its cells are ignored"});
      }
      table.columns.push_back(column.header);
      columns.push_back(std::move(column));
    }
    return columns;
  }

  // The caller's `header=` text sits between an '=' line and the dash line; with
  // top_level_events_only a second '=' line and a fixed sentence follow it.
  void read_caption(std::size_t open, std::size_t floor, const std::vector<Span>& spans,
                    KeyAveragesTable& table) const {
    const std::size_t width = spans.back().end;
    std::size_t end = open;  // caption lines are [start, end)
    if (end >= floor + 2 && trim(m_lines[end - 1].text) == "This report only display top-level ops statistics" &&
        is_equals_line(m_lines[end - 2].text, width)) {
      table.top_level_events_only = true;
      end -= 2;
    }
    for (std::size_t i = end; i > floor; --i) {
      if (is_equals_line(m_lines[i - 1].text, width)) {
        if (i < end) {
          std::string caption;
          for (std::size_t k = i; k < end; ++k) {
            caption += (k == i ? "" : "\n");
            caption.append(m_lines[k].text);
          }
          table.caption = caption;
        }
        return;
      }
    }
  }

  struct Cell {
    std::string_view text;   // trimmed
    std::size_t column = 0;  // character index of the cell's first character in the line
  };

  // Cuts a row into cells at the dash-line spans. A value wider than its column (a header-like
  // overflow, a time printed with a fixed unit) pushes the rest of the line right, as Python's
  // "{:>12}" does: extend the cell to the next space and shift the later spans by the excess.
  static std::vector<Cell> cut_cells(std::string_view line, const std::vector<Column>& columns) {
    std::vector<Cell> cells;
    std::size_t shift = 0;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::size_t begin = columns[c].span.begin + shift;
      std::size_t end = columns[c].span.end + shift;
      if (c + 1 == columns.size()) {
        end = std::max(end, line.size());
      } else {
        while (end < line.size() && line[end] != ' ') {
          ++end;
        }
      }
      shift = end - columns[c].span.end;
      if (begin >= line.size()) {
        cells.push_back(Cell{{}, line.size()});
        continue;
      }
      const std::string_view raw = line.substr(begin, std::min(end, line.size()) - begin);
      const std::string_view text = trim(raw);
      const std::size_t lead = text.empty() ? 0 : static_cast<std::size_t>(text.data() - raw.data());
      cells.push_back(Cell{text, begin + lead});
    }
    return cells;
  }

  void parse_row(const Line& line, const std::vector<Column>& columns, KeyAveragesTable& table) {
    const std::vector<Cell> cells = cut_cells(line.text, columns);
    if (cells.front().text.empty()) {
      // A `group_by_stack_n` row continues on lines that fill only the Source Location column.
      std::optional<std::size_t> source;
      for (std::size_t c = 1; c < columns.size(); ++c) {
        if (columns[c].kind == ColumnKind::source_location) {
          source = c;
        } else if (!cells[c].text.empty()) {
          fail(line, cells[c].column, "row has no name: " + quote(trim(line.text)));
        }
      }
      if (!source || table.rows.empty() || !table.rows.back().source_location) {
        fail(line, 0, "row has no name: " + quote(trim(line.text)));
      }
      std::string& location = *table.rows.back().source_location;
      location += (location.empty() ? "" : "\n");
      location.append(valid_utf8(cells[*source].text, &table.names_with_invalid_utf8));
      return;
    }

    KeyAveragesRow row;
    row.line = line.number;
    if (table.device_backend && std::any_of(columns.begin(), columns.end(),
                                            [](const Column& column) { return is_device_time_column(column.kind); })) {
      row.device = KeyAveragesDeviceTimes{};
    }
    for (std::size_t c = 0; c < columns.size(); ++c) {
      fill_cell(line, columns[c], cells[c], row, table);
    }
    table.rows.push_back(std::move(row));
  }

  void fill_cell(const Line& line, const Column& column, const Cell& cell, KeyAveragesRow& row,
                 KeyAveragesTable& table) const {
    const std::string_view text = cell.text;
    switch (column.kind) {
    case ColumnKind::name:
      row.name = valid_utf8(text, &table.names_with_invalid_utf8);
      row.name_truncated = text.size() == k_truncated_name_length && text.substr(text.size() - 3) == "...";
      return;
    case ColumnKind::overload_name:
      row.overload_name = valid_utf8(text, &table.names_with_invalid_utf8);
      return;
    case ColumnKind::input_shapes:
      row.input_shapes = valid_utf8(text, &table.names_with_invalid_utf8);
      return;
    case ColumnKind::source_location:
      row.source_location = std::string(text);
      return;
    case ColumnKind::unknown:
      return;
    default:
      break;
    }
    if (text.empty()) {
      fail(line, cell.column, "column " + quote(column.header) + " is empty");
    }
    const CellRead read{column.kind, column.flops_exponent, text, line.number};
    if (const std::optional<std::string> expected = read_number_cell(read, row, table)) {
      fail(line, cell.column, "column " + quote(column.header) + " is not " + *expected + ": " + quote(text));
    }
  }

  // Two rows with the same label are two ops PyTorch could not tell apart in print (names cut at
  // 52 characters); both rows stay, and the reader is told.
  static void report_shared_labels(KeyAveragesTable& table) {
    std::map<std::tuple<std::string, std::string, std::string, std::string>, std::size_t> seen;
    for (const KeyAveragesRow& row : table.rows) {
      auto key = std::make_tuple(row.name, row.overload_name.value_or(""), row.input_shapes.value_or(""),
                                 row.source_location.value_or(""));
      const auto [it, inserted] = seen.emplace(std::move(key), row.line);
      if (inserted) {
        continue;
      }
      const std::string first = std::to_string(it->second);
      if (row.name_truncated) {
        table.warnings.push_back({row.line, "truncated name " + quote(row.name) + " also labels the row on line " +
                                                first + "; the rows are kept apart"});
      } else {
        table.warnings.push_back({row.line, "row " + quote(row.name) + " repeats the label of the row on line " +
                                                first + "; the rows are kept apart"});
      }
    }
  }

  // `Self CPU time total: <t>`, then `Self <DEV> time total: <t>` (old: `<DEV> time total:`).
  std::size_t read_footer(std::size_t i, KeyAveragesTable& table) const {
    for (; i < m_lines.size(); ++i) {
      const Line& line = m_lines[i];
      std::string_view text = trim(line.text);
      const std::size_t colon = text.find(": ");
      if (colon == std::string_view::npos) {
        break;
      }
      std::string_view label = text.substr(0, colon);
      const std::string_view value = trim(text.substr(colon + 2));
      if (!strip_suffix(label, " time total")) {
        break;
      }
      const bool self = strip_prefix(label, "Self ");
      if (label != "CPU" && !is_device_word(label)) {
        break;
      }
      const std::optional<Nanoseconds> ns = parse_table_time_ns(value);
      if (!ns) {
        table.warnings.push_back(
            {line.number, "footer " + quote(text.substr(0, colon)) + " is not a time: " + quote(value) + "; ignored"});
      }
      if (label == "CPU") {
        if (self) {
          table.self_cpu_time_total_ns = ns;
        }
        continue;
      }
      if (!table.device_backend) {
        table.device_backend = std::string(label);
      } else if (*table.device_backend != label) {
        table.warnings.push_back({line.number, "footer names device " + quote(label) + " but the columns name " +
                                                   quote(*table.device_backend)});
      }
      (self ? table.self_device_time_total_ns : table.device_time_total_ns) = ns;
    }
    return i;
  }

  const std::string& m_path;
  std::vector<Line> m_lines;
};

}  // namespace

std::optional<Nanoseconds> parse_table_time_ns(std::string_view cell) {
  static constexpr std::array<std::pair<std::string_view, std::int64_t>, 4> k_units{
      {{"ms", 1'000'000}, {"us", 1'000}, {"ns", 1}, {"s", 1'000'000'000}}};
  for (const auto& [suffix, ns_per_unit] : k_units) {
    if (cell.size() > suffix.size() && cell.substr(cell.size() - suffix.size()) == suffix) {
      return scale_decimal(cell.substr(0, cell.size() - suffix.size()), ns_per_unit, 1);
    }
  }
  return std::nullopt;
}

std::vector<KeyAveragesTable> parse_key_averages_tables(std::string_view text, const std::string& path) {
  return TableParser(text, path).parse_all();
}

KeyAveragesTable parse_key_averages_table(std::string_view text, const std::string& path) {
  std::vector<KeyAveragesTable> tables = parse_key_averages_tables(text, path);
  if (tables.empty()) {
    throw InputError(path, "no key_averages table found (a dash line, then a header line starting with \"Name\")");
  }
  if (tables.size() > 1) {
    const std::size_t line = tables[1].first_line;
    std::size_t offset = 0;
    for (std::size_t number = 1; number < line; ++number) {
      offset = text.find('\n', offset) + 1;
    }
    throw InputError(path, "line " + std::to_string(line) + ": a second key_averages table starts here", offset);
  }
  return std::move(tables.front());
}

KeyAveragesTable parse_key_averages_table(const std::filesystem::path& file) {
  const std::string path = file.string();
  return parse_key_averages_table(read_input_text(path).text, path);
}

bool looks_like_key_averages_table(std::string_view text) {
  // Walks the lines without storing them: discovery may hand over a large trace.
  bool previous_is_dash = false;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (previous_is_dash && is_header_line(line)) {
      return true;
    }
    previous_is_dash = dash_spans(line).has_value();
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return false;
}

}  // namespace neuron_gate
