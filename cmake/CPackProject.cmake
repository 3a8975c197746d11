# Read by cpack at packaging time (CPACK_PROJECT_CONFIG_FILE, cmake/Install.cmake): puts the git commit
# the binary was built from (cmake/BuildInfo.cmake's output) into the Debian package description, and the
# binary's run-time dependencies (dpkg-shlibdeps on the one ELF file the package holds) into its Depends.
set(_commit "unknown")
if(EXISTS "${CPACK_NEURON_GATE_BUILD_INFO_FILE}")
  file(STRINGS "${CPACK_NEURON_GATE_BUILD_INFO_FILE}" _line REGEX "return \"[^\"]*\"")
  if(_line MATCHES "return \"([^\"]*)\"")
    set(_commit "${CMAKE_MATCH_1}")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}
 ${CPACK_PACKAGE_DESCRIPTION}
 Built from git commit ${_commit}.")

if(CPACK_GENERATOR STREQUAL "DEB" AND NOT CPACK_DEBIAN_PACKAGE_DEPENDS)
  find_program(_shlibdeps dpkg-shlibdeps)
  if(NOT _shlibdeps)
    message(FATAL_ERROR "cpack -G DEB needs dpkg-shlibdeps (Debian: apt-get install dpkg-dev)")
  endif()
  # dpkg-shlibdeps reads debian/control from its working folder: a minimal one.
  file(MAKE_DIRECTORY "${CPACK_NEURON_GATE_SCRATCH}/debian")
  file(WRITE "${CPACK_NEURON_GATE_SCRATCH}/debian/control" "Source: neuron-gate\n\nPackage: neuron-gate\nArchitecture: any\n")
  execute_process(COMMAND "${_shlibdeps}" -O "${CPACK_NEURON_GATE_BINARY}"
                  WORKING_DIRECTORY "${CPACK_NEURON_GATE_SCRATCH}"
                  OUTPUT_VARIABLE _shlibs ERROR_VARIABLE _shlibs_error RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0 OR NOT _shlibs MATCHES "shlibs:Depends=([^\n]*)")
    message(FATAL_ERROR "dpkg-shlibdeps ${CPACK_NEURON_GATE_BINARY} failed: ${_shlibs_error}")
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
endif()
