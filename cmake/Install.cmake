# `cmake --install` layout (GNU dirs under CMAKE_INSTALL_PREFIX) and `cpack -G DEB`.
#   bin/neuron-gate
#   share/neuron-gate/rules/default.json          the default rules (also compiled in), to copy and edit
#   share/doc/neuron-gate/{LICENSE,README.md}      licence and manual
#   share/doc/neuron-gate/examples/                the bundled example profiles (README quick start)
# tests/install/test_install.sh checks this layout from a scratch prefix (ctest: install-tree).
include(GNUInstallDirs)

install(TARGETS neuron-gate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES rules/default.json DESTINATION ${CMAKE_INSTALL_DATADIR}/neuron-gate/rules)
install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

set(CPACK_PACKAGE_NAME neuron-gate)
set(CPACK_PACKAGE_VENDOR "the neuron-gate developers")
set(CPACK_PACKAGE_CONTACT "the neuron-gate developers <neuron-gate@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "gate pull requests on performance regressions in PyTorch profiles")
set(CPACK_PACKAGE_DESCRIPTION
    "neuron-gate compares a base and a head PyTorch (TorchNeuron) profile statistically and exits non-zero on a regression.")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_FILE_NAME "neuron-gate_${PROJECT_VERSION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_LICENSE MIT)
# Depends: computed by dpkg-shlibdeps from the binary alone (libgit2, libssl/libcrypto, zlib, libstdc++, libc)
# in cmake/CPackProject.cmake; CPack's own SHLIBDEPS runs `file` on each of the ~1,800 example files (90 s).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_NEURON_GATE_BINARY "${PROJECT_BINARY_DIR}/src/neuron-gate")
set(CPACK_NEURON_GATE_SCRATCH "${PROJECT_BINARY_DIR}/cpack-shlibdeps")
# The commit goes into the package description at cpack time, read from the build_info.cpp the binary
# was compiled with (cmake/CPackProject.cmake), so the package names the commit it was built from.
set(CPACK_NEURON_GATE_BUILD_INFO_FILE "${PROJECT_BINARY_DIR}/src/generated/build_info.cpp")
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_SOURCE_DIR}/cmake/CPackProject.cmake")
include(CPack)
