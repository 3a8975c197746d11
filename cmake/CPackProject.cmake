# Read by cpack at packaging time (CPACK_PROJECT_CONFIG_FILE, cmake/Install.cmake): puts the git commit
# the binary was built from (cmake/BuildInfo.cmake's output) into the Debian package description.
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
