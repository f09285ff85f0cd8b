# How fast a cold build is: a newcomer's first result and every CI run start from one.
# Measured on a 2-core machine (docs/building.md has the figures). Two levers, both build-wide
# defaults that a developer may switch off for a tree of their own:
#
# 1. Unity (jumbo) builds: each target compiles its sources in batches, one translation unit per
#    batch, so the heavy headers (SimGrid's s4u, LibTorch, Catch2, fmt, yaml-cpp, nlohmann-json,
#    CLI11) are parsed once per batch instead of once per file. Files that must stay alone carry
#    SKIP_UNITY_BUILD_INCLUSION (their reason is beside them). A developer editing one file
#    rebuilds its batch; -DGEOTRAIN_UNITY_BUILD=OFF gives one object per file again.
# 2. Less debug information: -g1 (line tables and function names) instead of -g. Backtraces,
#    sanitizer reports and perf still name file:line; locals and types are not described, which is
#    most of -g's cost in compile and link time and in disk.
option(GEOTRAIN_UNITY_BUILD "Compile each target's sources in batches (faster cold builds)" ON)
set(GEOTRAIN_UNITY_BATCH_SIZE 16 CACHE STRING "Sources per unity batch")
if(GEOTRAIN_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE ${GEOTRAIN_UNITY_BATCH_SIZE})
endif()

set(GEOTRAIN_DEBUG_INFO "-g1" CACHE STRING
    "Debug information in RelWithDebInfo builds (-g1: line tables for backtraces; -g: full)")
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 ${GEOTRAIN_DEBUG_INFO} -DNDEBUG")

# ccache, when the machine has it: a developer's rebuild after a branch switch costs nothing.
# (CI starts from a clean clone and an empty cache, so its figures do not depend on it.)
find_program(GEOTRAIN_CCACHE ccache)
if(GEOTRAIN_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${GEOTRAIN_CCACHE})
endif()
