#pragma once
// What was built: the version (CMake's project(VERSION)) and the git commit, for `neuron-gate --version`.

namespace neuron_gate {

// The git commit the binary was built from: 12 hex digits, "-dirty" appended when tracked files had
// uncommitted changes, or "unknown" when built outside a git checkout (a source tarball). Written at
// build time by cmake/BuildInfo.cmake; -DNEURON_GATE_GIT_COMMIT=... overrides it.
const char* build_commit();

}  // namespace neuron_gate
