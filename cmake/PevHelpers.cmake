# pev_test(NAME SOURCES f.cc... LIBS t... LABELS unit|property|exhaustive|cuda|mpi...)
# A GoogleTest executable whose tests are registered one by one, with the given labels, so that
# `ctest -L LABEL` selects them and a red test names what broke.
include(GoogleTest)

function(pev_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS "${ARG_LABELS}"
                       WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
