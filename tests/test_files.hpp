#pragma once
// Helpers the test sources share: scratch folders and files, gunzipped bytes, substring counts and the
// InputError an action throws. One definition each: the test binaries are unity builds (tests/CMakeLists.txt),
// where two files' helpers of one name collide.

#include "input/byte_source.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <unistd.h>

namespace neuron_gate::testing {

// tests/data, the source tree, and tests/data/bad (each test binary is compiled with the first two).
inline const std::string k_test_data = NEURON_GATE_TEST_DATA;
inline const std::string k_source_dir = NEURON_GATE_SOURCE_DIR;
inline const std::string k_bad_data = k_test_data + "/bad/";

// A fresh scratch folder under the system temp folder. The process id is in its name: ctest -j runs
// each test case as a process of its own, and cases that share a name must not remove each other's files.
inline std::filesystem::path scratch(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("neuron-gate-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Writes `text` to `path` as bytes, creating its folders.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// How often `what` occurs in `text`, overlapping occurrences included.
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// `bytes` as ByteSource reads them: gunzipped when they are gzip, else unchanged.
inline std::string gunzip_text(const std::string& bytes) {
  ByteSource source("x", bytes);
  std::string text;
  for (std::string_view chunk = source.next(); !chunk.empty(); chunk = source.next()) {
    text.append(chunk);
  }
  return text;
}

// The InputError `action` throws, or nullopt when it throws none.
inline std::optional<InputError> input_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error;
  }
  return std::nullopt;
}

}  // namespace neuron_gate::testing
