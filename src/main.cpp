#include "cli.hpp"

#include <csignal>
#include <iostream>

int main(int argc, char** argv) {
  // A closed pipe on stdout (`neuron-gate compare ... | head -n 1`) is a write error with a message and
  // exit code 2 (util/atomic_file.hpp write_stream), not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  return neuron_gate::run_cli(argc, argv, std::cout, std::cerr);
}
