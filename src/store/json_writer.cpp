#include "store/json_writer.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <utility>

namespace neuron_gate {
namespace {

constexpr std::size_t k_piece_bytes = 64 * 1024;

// True when nlohmann writes `text` between the quotes unchanged: printable ASCII but '"' and '\'.
bool plain_ascii(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f || byte == '"' || byte == '\\') {
      return false;
    }
  }
  return true;
}

template <class Integer>
void append_integer(std::string& out, Integer value) {
  char digits[24];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end.ptr);
}

}  // namespace

JsonWriter::JsonWriter(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {
  buffer_.reserve(k_piece_bytes + 4096);
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back() != 0) {
      buffer_ += ',';
    }
    has_element_.back() = 1;
  }
}

void JsonWriter::after_value() {
  if (buffer_.size() >= k_piece_bytes) {
    flush();
  }
}

void JsonWriter::append_string(std::string_view text) {
  if (plain_ascii(text)) {
    buffer_ += '"';
    buffer_ += text;
    buffer_ += '"';
    return;
  }
  // Escapes, non-ASCII and invalid UTF-8: nlohmann's own serializer, as the whole document's dump used it.
  buffer_ += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonWriter::begin_object() {
  before_value();
  buffer_ += '{';
  has_element_.push_back(0);
}

void JsonWriter::end_object() {
  has_element_.pop_back();
  buffer_ += '}';
  after_value();
}

void JsonWriter::begin_array() {
  before_value();
  buffer_ += '[';
  has_element_.push_back(0);
}

void JsonWriter::end_array() {
  has_element_.pop_back();
  buffer_ += ']';
  after_value();
}

void JsonWriter::key(std::string_view name) {
  if (has_element_.back() != 0) {
    buffer_ += ',';
  }
  has_element_.back() = 1;
  append_string(name);
  buffer_ += ':';
  after_key_ = true;
}

void JsonWriter::string(std::string_view text) {
  before_value();
  append_string(text);
  after_value();
}

void JsonWriter::integer(std::int64_t value) {
  before_value();
  append_integer(buffer_, value);
  after_value();
}

void JsonWriter::unsigned_integer(std::uint64_t value) {
  before_value();
  append_integer(buffer_, value);
  after_value();
}

void JsonWriter::number(double value) {
  before_value();
  buffer_ += nlohmann::json(value).dump();  // nlohmann's digits, ".0" and null for NaN and infinities
  after_value();
}

void JsonWriter::boolean(bool value) {
  before_value();
  buffer_ += value ? "true" : "false";
  after_value();
}

void JsonWriter::null() {
  before_value();
  buffer_ += "null";
  after_value();
}

void JsonWriter::flush() {
  if (!buffer_.empty()) {
    sink_(buffer_);
    buffer_.clear();
  }
}

void write_json(JsonWriter& out, const std::string& value) {
  out.string(value);
}

void write_json(JsonWriter& out, std::int64_t value) {
  out.integer(value);
}

void write_json(JsonWriter& out, const std::vector<std::string>& values) {
  out.begin_array();
  for (const std::string& value : values) {
    out.string(value);
  }
  out.end_array();
}

void write_json(JsonWriter& out, const std::set<std::string>& values) {
  out.begin_array();
  for (const std::string& value : values) {
    out.string(value);
  }
  out.end_array();
}

}  // namespace neuron_gate
