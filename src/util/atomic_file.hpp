#pragma once
// Reports are written whole or not at all: content goes to a temporary file beside the target and is
// renamed over it only on commit().

#include <signal.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <string>
#include <string_view>

namespace neuron_gate {

// Writes `content` to `path` atomically (temp file in the same folder + rename); a symbolic link is
// followed to its target, and a device or FIFO (e.g. /dev/stdout) is written into, not replaced.
// Throws InputError naming the path and the system's reason ("No space left on device", "Broken
// pipe") when the folder is not writable or the write or close fails; the
// target is then untouched.
void write_file_atomically(const std::string& path, std::string_view content);

// The same, written in pieces: a report too large to hold whole (compare --json with 50,000 ops) is
// streamed into the temporary file and renamed over `path` only by commit(); destroyed uncommitted, the
// temporary file is removed and `path` is untouched. A device or FIFO is written into directly. Every
// call throws InputError naming `path` with the system's reason (as write_file_atomically).
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::string_view piece);
  void commit();  // flushes, closes and renames; once

 private:
  void fail(int error);

  std::string m_path;  // as given, for messages
  std::filesystem::path m_target;
  std::filesystem::path m_temp;  // empty when writing into a device or FIFO
  std::ofstream m_out;
  bool m_done = false;
  std::size_t m_signal_slot = SIZE_MAX;  // where the signal handler finds m_temp (none: SIZE_MAX)
};

// While alive, SIGINT, SIGTERM and SIGHUP wait (blocked in this thread, the only one while reports are
// written): around the commits of several reports, so that a signal leaves all of them replaced or none, and
// around a baseline's git writes (libgit2's temporary object files).
// Without it, such a signal removes the temporary files of AtomicFileWriters not yet committed (a handler
// installed with the first one) and ends the process as the signal would.
class SignalsDeferred {
 public:
  SignalsDeferred();
  ~SignalsDeferred();
  SignalsDeferred(const SignalsDeferred&) = delete;
  SignalsDeferred& operator=(const SignalsDeferred&) = delete;

 private:
  sigset_t m_previous{};
};

// Writes `content` to an output stream (stdout) and flushes it. Throws InputError naming `name`
// (e.g. "stdout") with the system's reason when the write fails: a full disk, or a closed pipe (main()
// ignores SIGPIPE, so a closed pipe is an error, not a silent death by signal).
void write_stream(std::ostream& out, std::string_view content, const std::string& name);

// Checks, before anything is written, that `path` can take a report: not a directory, and its
// folder exists. Throws InputError naming the path otherwise.
void check_writable_destination(const std::string& path);

// True when `a` and `b` name the same file: the same existing file, or (where one is missing) the
// same path once `.`, `..` and symbolic links are resolved (a link to a file not yet written too).
bool same_file(const std::string& a, const std::string& b);

}  // namespace neuron_gate
