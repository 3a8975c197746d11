#pragma once
// The command line: parses argv with CLI11 and runs a command. Callable in process, for tests.

#include <iosfwd>

namespace neuron_gate {

// Runs neuron-gate with `argv`; reports go to `out`, diagnostics to `err`. Returns the exit code:
// 0 pass, 1 regression, 2 usage or input error, 3 not comparable, 4 no decision under --strict.
// Never throws.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace neuron_gate
