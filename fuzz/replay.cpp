// neuron-gate-fuzz-replay DIR...: runs every file under DIR/<target>/ (e.g. tests/data/fuzz-crashes/trace/)
// through that fuzz target once, so that each crash a fuzzer ever found stays a test in every build,
// with or without libFuzzer. Exit 0 when every file is read or rejected with InputError; exit 1 naming
// the file and the exception otherwise (a crash or sanitizer report ends the process by itself).
// An allocation of more than 1 GiB at once aborts too: no fixture (each under 64 KiB) may ask for
// that much (under ASan the same limit comes from ASAN_OPTIONS=max_allocation_size_mb, see
// fuzz/CMakeLists.txt, since ASan owns operator new there).
#include "formats/file_kinds.hpp"
#include "fuzz/fuzz_targets.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NEURON_GATE_REPLAY_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NEURON_GATE_REPLAY_ASAN 1
#endif

#ifndef NEURON_GATE_REPLAY_ASAN
// The 1 GiB single-allocation limit, like libFuzzer's -malloc_limit_mb.
void* operator new(std::size_t size) {
  if (size > (std::size_t{1} << 30)) {
    std::fprintf(stderr, "neuron-gate-fuzz-replay: allocation of %zu bytes from one small input\n", size);
    std::abort();
  }
  if (void* memory = std::malloc(size == 0 ? 1 : size)) {
    return memory;
  }
  throw std::bad_alloc();
}
void operator delete(void* memory) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}
#endif

namespace {

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int failures = 0;
  int files = 0;
  // Each file kind's fuzz target (its row in formats/file_kinds.hpp) is one of the targets.
  for (const neuron_gate::FileKindRow& row : neuron_gate::file_kinds()) {
    const auto targets = neuron_gate::fuzz::targets();
    const std::string_view wanted = row.fuzz;
    if (!wanted.empty() &&
        std::none_of(targets.begin(), targets.end(), [&](const auto& t) { return t.name == wanted; })) {
      std::cerr << "file kind " << row.id << ": no fuzz target \"" << wanted << "\" in fuzz/fuzz_targets.cpp\n";
      ++failures;
    }
  }
  for (int i = 1; i < argc; ++i) {
    const fs::path root(argv[i]);
    for (const auto& target : neuron_gate::fuzz::targets()) {
      const fs::path folder = root / std::string(target.name);
      if (!fs::is_directory(folder)) {
        continue;
      }
      for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        std::cerr << "replay " << target.name << " " << entry.path().filename().string() << "\n";
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") {
          continue;
        }
        ++files;
        const std::vector<std::uint8_t> bytes = read_bytes(entry.path());
        try {
          target.run(bytes);
        } catch (const std::exception& error) {
          std::cerr << entry.path().string() << ": fuzz target " << target.name << ": " << error.what() << "\n";
          ++failures;
        }
      }
    }
  }
  std::cout << files << " files replayed, " << failures << " failed\n";
  return failures == 0 && files > 0 ? 0 : 1;
}
