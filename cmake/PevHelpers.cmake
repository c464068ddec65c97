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

# pev_fuzz_test(NAME SEEDS dir... SOURCES target.cc f.cc...)
# A reader's libFuzzer target: scripts/run_fuzzer.sh builds it with clang++ (the project
# builds with g++) and fuzzes it for a bounded time (PEV_FUZZ_SECONDS, default 20) from its seed
# folders, as the ctest NAME; skipped (exit 77) where clang++ or libFuzzer is missing. SOURCES
# are relative to the source root (or absolute): the target first, then every file it links.
function(pev_fuzz_test name)
  cmake_parse_arguments(ARG "" "" "SEEDS;SOURCES" ${ARGN})
  # Compiled by the runner, not by a target: recorded so that the include guard knows them as tests.
  foreach(source IN LISTS ARG_SOURCES)
    if(NOT IS_ABSOLUTE ${source})
      set_property(GLOBAL APPEND PROPERTY PEV_FUZZ_SOURCES ${source})
    endif()
  endforeach()
  add_test(NAME ${name}
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/run_fuzzer.sh ${name} ${PROJECT_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR}/fuzz
                   "${PEV_INCLUDE_ROOT};$<TARGET_PROPERTY:nlohmann_json::nlohmann_json,INTERFACE_INCLUDE_DIRECTORIES>"
                   ${ARG_SEEDS} -- ${ARG_SOURCES})
  set_tests_properties(${name} PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()
