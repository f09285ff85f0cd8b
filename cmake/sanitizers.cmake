# geotrain_sanitizers: the compile and link options of GEOTRAIN_SANITIZE and GEOTRAIN_FUZZ, as an
# INTERFACE target that geotrain_warnings passes on to every geotrain target (no global flags).
add_library(geotrain_sanitizers INTERFACE)

if(GEOTRAIN_SANITIZE)
  # -fno-sanitize-recover: a UBSan finding aborts, so the test that hit it fails instead of
  # printing a line nobody reads. Frame pointers keep the reported stacks whole.
  target_compile_options(geotrain_sanitizers INTERFACE
    -fsanitize=${GEOTRAIN_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(geotrain_sanitizers INTERFACE -fsanitize=${GEOTRAIN_SANITIZE})
endif()

if(GEOTRAIN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GEOTRAIN_FUZZ needs clang (libFuzzer), e.g. -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  # Coverage feedback for libFuzzer in every library; the fuzz targets add -fsanitize=fuzzer
  # (libFuzzer's main) themselves.
  target_compile_options(geotrain_sanitizers INTERFACE -fsanitize=fuzzer-no-link)
endif()
