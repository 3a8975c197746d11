#include "util/atomic_file.hpp"

#include "util/error.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>

namespace neuron_gate {
namespace {

// "cannot write: <why>": the system's reason when the failed call left one (ENOSPC: "No space left on
// device", EPIPE: "Broken pipe"), else "write failed".
std::string write_failure(int error) {
  return std::string("cannot write: ") + (error != 0 ? std::strerror(error) : "write failed");
}

// `content` into the open stream, flushed and closed; false with errno's reason in `error` on failure.
bool write_all(std::ofstream& out, std::string_view content, int& error) {
  errno = 0;
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  if (out) {
    out.close();  // a deferred error (full disk on close) shows here
  }
  error = errno;
  return !out.fail();
}

// `path` made absolute with every symbolic link followed, also a link whose target does not exist
// yet (weakly_canonical leaves such a link unresolved); `.` and `..` removed. Gives up after 40 links
// (a loop), returning what it has.
std::filesystem::path resolved_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path current = fs::absolute(path, ec);
  for (int hops = 0; hops < 40 && !ec; ++hops) {
    const fs::path canonical = fs::weakly_canonical(current, ec);
    if (ec) {
      break;
    }
    if (!fs::is_symlink(fs::symlink_status(canonical, ec)) || ec) {
      return canonical;
    }
    const fs::path target = fs::read_symlink(canonical, ec);
    current = target.is_absolute() ? target : canonical.parent_path() / target;
  }
  return current.lexically_normal();
}

// Temporary files being written, for the signal handler: a fixed table of paths (no allocation, nothing
// but atomics and unlink in the handler). A slot is claimed (0 -> 1), filled, then published (1 -> 2).
constexpr std::size_t k_temp_slots = 16;
constexpr std::size_t k_temp_path_bytes = 4096;
std::array<std::atomic<int>, k_temp_slots> g_temp_state{};
std::array<std::array<char, k_temp_path_bytes>, k_temp_slots> g_temp_paths{};

extern "C" void remove_temporary_files_and_die(int signal_number) {
  for (std::size_t slot = 0; slot < k_temp_slots; ++slot) {
    if (g_temp_state[slot].load() == 2) {
      ::unlink(g_temp_paths[slot].data());
    }
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void install_signal_cleanup() {
  static const bool installed = [] {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction action {};
      action.sa_handler = remove_temporary_files_and_die;
      sigemptyset(&action.sa_mask);
      struct sigaction previous {};
      if (::sigaction(signal_number, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) {
        continue;  // ignored by whoever started us (nohup): keep it so
      }
      ::sigaction(signal_number, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

// The slot now holding `path`, or k_temp_slots when the table is full or the path too long (then a
// signal leaves that one file behind, as before).
std::size_t register_temporary(const std::filesystem::path& path) {
  const std::string& text = path.native();
  if (text.size() >= k_temp_path_bytes) {
    return k_temp_slots;
  }
  install_signal_cleanup();
  for (std::size_t slot = 0; slot < k_temp_slots; ++slot) {
    int free = 0;
    if (g_temp_state[slot].compare_exchange_strong(free, 1)) {
      std::memcpy(g_temp_paths[slot].data(), text.c_str(), text.size() + 1);
      g_temp_state[slot].store(2);
      return slot;
    }
  }
  return k_temp_slots;
}

void unregister_temporary(std::size_t slot) {
  if (slot < k_temp_slots) {
    g_temp_state[slot].store(0);
  }
}

}  // namespace

SignalsDeferred::SignalsDeferred() {
  sigset_t deferred;
  sigemptyset(&deferred);
  sigaddset(&deferred, SIGINT);
  sigaddset(&deferred, SIGTERM);
  sigaddset(&deferred, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &deferred, &m_previous);
}

SignalsDeferred::~SignalsDeferred() {
  ::pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
}

void write_stream(std::ostream& out, std::string_view content, const std::string& name) {
  errno = 0;
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  if (!out) {
    throw InputError(name, write_failure(errno));
  }
}

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

AtomicFileWriter::AtomicFileWriter(const std::string& path) : m_path(path) {
  namespace fs = std::filesystem;
  std::error_code status_error;
  // Through a symbolic link to its target; a device or FIFO (/dev/null, /dev/stdout) is written into,
  // never replaced by a regular file.
  const fs::path resolved = fs::weakly_canonical(fs::path(path), status_error);
  m_target = status_error ? fs::path(path) : resolved;
  const fs::file_status status = fs::status(m_target, status_error);
  if (!(fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status))) {
    const fs::path folder = m_target.has_parent_path() ? m_target.parent_path() : fs::path(".");
    std::random_device entropy;
    m_temp = folder / (".neuron-gate-" + m_target.filename().string() + "." + std::to_string(entropy()) + ".tmp");
    m_signal_slot = register_temporary(m_temp);
  }
  errno = 0;
  m_out.open(m_temp.empty() ? m_target : m_temp, std::ios::binary | std::ios::trunc);
  if (!m_out) {
    const int error = errno;
    unregister_temporary(m_signal_slot);
    m_temp.clear();  // nothing was created
    m_done = true;
    throw InputError(path, write_failure(error));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!m_done && !m_temp.empty()) {
    m_out.close();
    std::error_code ignored;
    std::filesystem::remove(m_temp, ignored);
  }
  unregister_temporary(m_signal_slot);
}

void AtomicFileWriter::fail(int error) {
  m_done = true;
  m_out.close();
  if (!m_temp.empty()) {
    std::error_code ignored;
    std::filesystem::remove(m_temp, ignored);
  }
  throw InputError(m_path, write_failure(error));
}

void AtomicFileWriter::write(std::string_view piece) {
  errno = 0;
  m_out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  if (!m_out) {
    fail(errno);
  }
}

void AtomicFileWriter::commit() {
  int error = 0;
  if (!write_all(m_out, {}, error)) {
    fail(error);
  }
  m_done = true;
  if (m_temp.empty()) {
    return;
  }
  std::error_code ec;
  std::filesystem::rename(m_temp, m_target, ec);
  unregister_temporary(m_signal_slot);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(m_temp, ignored);
    throw InputError(m_path, "cannot write: " + ec.message());
  }
}

void write_file_atomically(const std::string& path, std::string_view content) {
  AtomicFileWriter out(path);
  out.write(content);
  out.commit();
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
  // Not both existing: compare the paths with `.`, `..` and links (dangling ones too) resolved.
  return resolved_path(a) == resolved_path(b);
}

}  // namespace neuron_gate
