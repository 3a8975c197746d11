#include "util/utf8.hpp"

namespace neuron_gate {
namespace {

// Length of the valid UTF-8 sequence at `at`, or 0 when the bytes there are not one; `*consumed` gets
// the length of the maximal invalid subpart to replace (at least 1) when 0 is returned.
std::size_t sequence_length(std::string_view text, std::size_t at, std::size_t* consumed) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  *consumed = 1;
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    if (at + i >= text.size()) {
      *consumed = i;
      return 0;
    }
    const unsigned char c = byte(at + i);
    const bool ok = i == 1 ? (c >= low && c <= high) : (c >= 0x80 && c <= 0xBF);
    if (!ok) {
      *consumed = i;
      return 0;
    }
  }
  return length;
}

}  // namespace

CodePointStep next_code_point(std::string_view text, std::size_t at) {
  std::size_t consumed = 1;
  const std::size_t length = sequence_length(text, at, &consumed);
  if (length == 0) {
    return {0xFFFD, consumed, false};
  }
  const auto byte = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(text[at + k])); };
  switch (length) {
  case 1:
    return {byte(0), 1, true};
  case 2:
    return {((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F), 2, true};
  case 3:
    return {((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F), 3, true};
  default:
    return {((byte(0) & 0x07) << 18) | ((byte(1) & 0x3F) << 12) | ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F), 4, true};
  }
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string valid_utf8(std::string_view text, std::size_t* replaced) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t consumed = 1;
    const std::size_t length = sequence_length(text, at, &consumed);
    if (length > 0) {
      out.append(text.substr(at, length));
      at += length;
    } else {
      out.append("\xEF\xBF\xBD");
      at += consumed;
      if (replaced != nullptr) {
        ++*replaced;
      }
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t consumed = 1;
    const std::size_t length = sequence_length(text, at, &consumed);
    if (length == 0) {
      return false;
    }
    at += length;
  }
  return true;
}

}  // namespace neuron_gate
