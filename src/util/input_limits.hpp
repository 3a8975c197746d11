#pragma once
// The resource limits every reader enforces (docs/user-guide.md "Limits"). Each has a default and can be changed
// through an environment variable, read once per process; a limit reached is an InputError naming
// the file and the limit, never an allocation failure.

#include <cstdint>
#include <optional>
#include <string>

namespace neuron_gate {

struct InputLimits {
  // Bytes of one input file after decompression (plain files: the file size). Default 8 GiB;
  // NEURON_GATE_MAX_FILE_BYTES.
  std::uint64_t max_file_bytes = std::uint64_t{8} << 30;
  // Bytes of one op or event name. Default 4096; NEURON_GATE_MAX_NAME_BYTES. A longer name is a
  // data problem: the name is cut at a UTF-8 boundary and a marker with its full length and a hash is
  // added, so names that differ only after the cut stay apart (kineto_trace.hpp cut_name()).
  std::uint64_t max_name_bytes = 4096;
  // Bytes of any one string in a trace (names, args, stacks), escapes as written. Default 1 MiB;
  // NEURON_GATE_MAX_STRING_BYTES. A longer string is an input error, found before it is held in memory.
  std::uint64_t max_string_bytes = std::uint64_t{1} << 20;
  // Distinct op names of one side (all its traces or tables). Default 100000; NEURON_GATE_MAX_OPS.
  std::uint64_t max_distinct_ops = 100000;
  // Files, folders and links one profile walk may visit. Default 100000; NEURON_GATE_MAX_WALK_ENTRIES.
  std::uint64_t max_walk_entries = 100000;
  // Folder depth below the profile root the walk descends to. Default 64; NEURON_GATE_MAX_WALK_DEPTH.
  std::uint64_t max_walk_depth = 64;
};

// The limits in force: the defaults, each replaced by its environment variable when that holds a
// positive decimal integer (any other value is ignored here; the command line refuses it first, see
// invalid_limit_variable()).
const InputLimits& input_limits();

// The first NEURON_GATE_MAX_* variable set to anything but a positive decimal integer, as a message
// ("NEURON_GATE_MAX_OPS=\"abc\" is not a positive whole number ..."); nullopt when all are valid or unset.
std::optional<std::string> invalid_limit_variable();

// Re-reads the environment (tests that change a variable call this). Not thread-safe.
void reload_input_limits();

// "8 GiB" / "4096 bytes" style text of a byte count, for limit messages.
std::string byte_count_text(std::uint64_t bytes);

}  // namespace neuron_gate
