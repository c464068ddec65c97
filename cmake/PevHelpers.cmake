# pev_test(NAME SOURCES f.cc... LIBS t... LABELS unit|property|exhaustive|cuda|mpi...
#          [TIMEOUT seconds])
# A GoogleTest executable whose tests are registered one by one, with the given labels, so that
# `ctest -L LABEL` selects them and a red test names what broke.
include(GoogleTest)

# Registers a GoogleTest executable's tests one by one with ctest, run from the repository root
# (test data paths are relative to it), sharing one oracle cache per build directory.
function(pev_discover_tests target labels)
  set(timeout 1500)
  if(ARGC GREATER 2)
    set(timeout ${ARGV2})
  endif()
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES LABELS "${labels}" TIMEOUT ${timeout}
                                  ENVIRONMENT "PEV_ORACLE_CACHE=${CMAKE_BINARY_DIR}/oracle-cache")
endfunction()

function(pev_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 1500)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  pev_discover_tests(${name} "${ARG_LABELS}" ${ARG_TIMEOUT})
endfunction()
