# Fails when a stage includes a header of a later stage. Order (docs/ARCHITECTURE.md):
#   util -> stats;  util -> input -> formats -> profile -> store -> compare -> report -> commands
# Each stage may include only the stages before it (stats only itself); the command line (src/cli.*,
# src/main.cpp) comes last. Finer rules (issue 11):
# - report/ renders and never decides: of stats/ it may include descriptive.hpp only (medians and
#   summaries to show), never multiple_testing, power, mann_whitney, ... (alpha, p values and verdicts
#   come from compare/judgement.hpp).
# - the command line (src/cli.*) parses and validates options only: it may include commands/commands.hpp,
#   compare/rule_set.hpp (for the option types), util/ and build_info.hpp, no stage that reads or decides.
# - every .cpp and .hpp in src/ lies in a stage folder or in src/ itself, so a new folder is not skipped.
cmake_policy(SET CMP0057 NEW)
set(stages util stats input formats profile store compare report commands)
set(allowed_util util)
set(allowed_stats stats)
set(allowed_input util input)
set(allowed_formats util input formats)
set(allowed_profile util input formats profile)
set(allowed_store util input formats profile store)
set(allowed_compare util stats input formats profile store compare)
set(allowed_report util stats input formats profile store compare report)
set(allowed_commands util stats input formats profile store compare report commands)
set(failed FALSE)
set(checked 0)

# The folder of an #include "dir/file" line, or the line itself for a same-folder include.
function(include_dir line out)
  string(REGEX REPLACE "^#include \"([^/\"]+)/.*" "\\1" dir "${line}")
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

foreach(stage IN LISTS stages)
  file(GLOB files "${SRC}/${stage}/*.hpp" "${SRC}/${stage}/*.cpp")
  foreach(f IN LISTS files)
    math(EXPR checked "${checked} + 1")
    file(STRINGS "${f}" includes REGEX "^#include \"")
    foreach(line IN LISTS includes)
      include_dir("${line}" dir)
      if(dir STREQUAL line)
        continue()  # same-folder include
      endif()
      if(dir IN_LIST stages AND NOT dir IN_LIST allowed_${stage})
        message(SEND_ERROR "${f}: ${stage}/ may not include ${dir}/: ${line}")
        set(failed TRUE)
      endif()
      if(stage STREQUAL "report" AND dir STREQUAL "stats" AND NOT line MATCHES "^#include \"stats/descriptive.hpp\"")
        message(SEND_ERROR "${f}: report/ renders judged values; of stats/ it may include descriptive.hpp only: ${line}")
        set(failed TRUE)
      endif()
    endforeach()
  endforeach()
endforeach()

file(GLOB cli_files "${SRC}/cli.hpp" "${SRC}/cli.cpp")
foreach(f IN LISTS cli_files)
  math(EXPR checked "${checked} + 1")
  file(STRINGS "${f}" includes REGEX "^#include \"")
  foreach(line IN LISTS includes)
    if(NOT line MATCHES "^#include \"(cli.hpp|commands/commands.hpp|build_info.hpp|compare/rule_set.hpp|util/[^\"]+)\"")
      message(SEND_ERROR "${f}: the command line parses options only and may not include: ${line}")
      set(failed TRUE)
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE all_sources RELATIVE "${SRC}" "${SRC}/*.cpp" "${SRC}/*.hpp")
foreach(f IN LISTS all_sources)
  if(NOT f MATCHES "^([^/]+|(util|stats|input|formats|profile|store|compare|report|commands)/[^/]+)$")
    message(SEND_ERROR "src/${f}: not in a stage folder (util, stats, input, formats, profile, store, compare, report, commands) or src/ itself")
    set(failed TRUE)
  endif()
endforeach()

if(failed)
  message(FATAL_ERROR "layering violated")
endif()
message(STATUS "layering ok: ${checked} files")
