#pragma once
// The two exceptions neuron-gate throws for bad input or bad usage; everything else is a bug.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace neuron_gate {

// A file that cannot be read as what it claims to be. what() is "PATH[:byte N]: problem",
// the wording of every error message (lowercase, no final period). byte_offset is 0-based.
class InputError : public std::runtime_error {
 public:
  InputError(std::string path, std::string problem, std::optional<std::uint64_t> byte_offset = std::nullopt)
      : std::runtime_error(format(path, problem, byte_offset)), m_path(std::move(path)), m_problem(std::move(problem)),
        m_byte_offset(byte_offset) {}

  const std::string& path() const { return m_path; }
  const std::string& problem() const { return m_problem; }
  std::optional<std::uint64_t> byte_offset() const { return m_byte_offset; }

 private:
  static std::string format(const std::string& path, const std::string& problem,
                            std::optional<std::uint64_t> byte_offset) {
    std::string text = path;
    if (byte_offset) {
      text += ":byte " + std::to_string(*byte_offset);
    }
    return text + ": " + problem;
  }
  std::string m_path;
  std::string m_problem;
  std::optional<std::uint64_t> m_byte_offset;
};

// A command line or rules file that asks for something impossible; what() is the message.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace neuron_gate
