#pragma once
// Reports are written whole or not at all: content goes to a temporary file beside the target and is
// renamed over it only on commit().

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

} // namespace neuron_gate
