#include "util/atomic_file.hpp"

#include "util/error.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace neuron_gate {

void check_writable_destination(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(fs::path(path), ec);
  const fs::path resolved = ec ? fs::path(path) : target;
  const fs::file_status status = fs::status(resolved, ec);
  if (fs::is_directory(status)) {
    throw InputError(path, "cannot write a report: it is a directory");
  }
  const fs::path folder = resolved.has_parent_path() ? resolved.parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec)) {
    throw InputError(path, "cannot write a report: folder \"" + folder.string() + "\" does not exist");
  }
}

void write_file_atomically(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  std::error_code status_error;
  // Through a symbolic link to its target; a device or FIFO (/dev/null, /dev/stdout) is written into,
  // never replaced by a regular file.
  const fs::path resolved = fs::weakly_canonical(fs::path(path), status_error);
  const fs::path target = status_error ? fs::path(path) : resolved;
  const fs::file_status status = fs::status(target, status_error);
  if (fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status)) {
    std::ofstream out(target, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      throw InputError(path, "cannot write: write failed");
    }
    return;
  }
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device entropy;
  const fs::path temp = folder / (".neuron-gate-" + target.filename().string() + "." + std::to_string(entropy()) + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw InputError(path, std::string("cannot write: ") + std::strerror(errno));
    }
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw InputError(path, "cannot write: write failed");
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw InputError(path, "cannot write: " + ec.message());
  }
}

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) {
    return false;
  }
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  if (!ec) {
    return same;
  }
  // Not both existing: compare the paths with `.`, `..` and links resolved.
  std::error_code ec_a, ec_b;
  const auto path_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec_a), ec_a);
  const auto path_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec_b), ec_b);
  return !ec_a && !ec_b && path_a == path_b;
}

} // namespace neuron_gate
