#include "cli.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return neuron_gate::run_cli(argc, argv, std::cout, std::cerr);
}
