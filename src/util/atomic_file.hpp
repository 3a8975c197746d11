#pragma once
// Reports are written whole or not at all: content goes to a temporary file beside the target and is
// renamed over it only on commit().

#include <string>
#include <string_view>

namespace neuron_gate {

// Writes `content` to `path` atomically (temp file in the same folder + rename). Throws InputError
// naming the path when the folder is not writable or the write fails; the target is then untouched.
void write_file_atomically(const std::string& path, std::string_view content);

// True when `a` and `b` name the same existing file (after resolving links); false if either is missing.
bool same_file(const std::string& a, const std::string& b);

} // namespace neuron_gate
