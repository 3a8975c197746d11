#include "util/input_limits.hpp"

#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace neuron_gate {
namespace {

constexpr std::array<const char*, 6> k_limit_variables = {"NEURON_GATE_MAX_FILE_BYTES",   "NEURON_GATE_MAX_NAME_BYTES",
                                                          "NEURON_GATE_MAX_STRING_BYTES", "NEURON_GATE_MAX_OPS",
                                                          "NEURON_GATE_MAX_WALK_ENTRIES", "NEURON_GATE_MAX_WALK_DEPTH"};

std::optional<std::uint64_t> positive_integer(const char* text) {
  std::uint64_t parsed = 0;
  const char* end = text + std::strlen(text);
  const auto result = std::from_chars(text, end, parsed);
  if (result.ec == std::errc{} && result.ptr == end && parsed > 0) {
    return parsed;
  }
  return std::nullopt;
}

void override_from_env(const char* name, std::uint64_t& value) {
  const char* text = std::getenv(name);
  if (text == nullptr) {
    return;
  }
  if (const auto parsed = positive_integer(text)) {
    value = *parsed;
  }
}

InputLimits from_environment() {
  InputLimits limits;
  override_from_env("NEURON_GATE_MAX_FILE_BYTES", limits.max_file_bytes);
  override_from_env("NEURON_GATE_MAX_NAME_BYTES", limits.max_name_bytes);
  override_from_env("NEURON_GATE_MAX_STRING_BYTES", limits.max_string_bytes);
  override_from_env("NEURON_GATE_MAX_OPS", limits.max_distinct_ops);
  override_from_env("NEURON_GATE_MAX_WALK_ENTRIES", limits.max_walk_entries);
  override_from_env("NEURON_GATE_MAX_WALK_DEPTH", limits.max_walk_depth);
  return limits;
}

InputLimits& current() {
  static InputLimits limits = from_environment();
  return limits;
}

}  // namespace

const InputLimits& input_limits() {
  return current();
}

std::optional<std::string> invalid_limit_variable() {
  for (const char* name : k_limit_variables) {
    const char* text = std::getenv(name);
    if (text != nullptr && !positive_integer(text)) {
      return std::string(name) + "=\"" + text + "\" is not a positive whole number (unset it for the default)";
    }
  }
  return std::nullopt;
}

void reload_input_limits() {
  current() = from_environment();
}

std::string byte_count_text(std::uint64_t bytes) {
  constexpr std::uint64_t gib = std::uint64_t{1} << 30;
  constexpr std::uint64_t mib = std::uint64_t{1} << 20;
  if (bytes >= gib && bytes % gib == 0) {
    return std::to_string(bytes / gib) + " GiB";
  }
  if (bytes >= mib && bytes % mib == 0) {
    return std::to_string(bytes / mib) + " MiB";
  }
  return std::to_string(bytes) + " bytes";
}

}  // namespace neuron_gate
