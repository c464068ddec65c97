# Every test has one label that says what it is (docs/architecture.md §11.3), and that label sets its
# default timeout:
#   unit        in-process GoogleTest tests, each short
#   property    in-process property runs (RapidCheck, the suite on registry entries and examples)
#   e2e         scripts that run the built command, Chromium, an install, the CLI contract
#   lint        checks of the source tree itself (include directions, function lengths, citations,
#               the docs pages against --help)
#   fuzz        libFuzzer runs of the readers of user input, bounded in time
#   bench       the benchmark programs run once, to prove they run
#   python      the Python module's pytest files
#   mpi         `mpirun peverify sweep`
#   cuda        the CUDA entries' compile, PTX and device tests (device tests skip without a GPU)
#   exhaustive  the long checks, only under `ctest --preset exhaustive`
# A test may carry a second label (ALSO), e.g. python_install is e2e and python.
set(PEV_LABEL_TIMEOUTS unit=120 property=600 e2e=900 lint=120 fuzz=600 bench=300 python=900
                       mpi=300 cuda=600 exhaustive=7200)
# A sanitized build runs several times slower: its preset scales every timeout.
set(PEV_TIMEOUT_SCALE 1 CACHE STRING "Multiplies every test's timeout (a sanitized build's preset sets 4)")

# The timeout of `label` (scaled), or an error for a label that is not one of the above.
function(pev_label_timeout label out)
  foreach(entry IN LISTS PEV_LABEL_TIMEOUTS)
    string(REPLACE "=" ";" pair ${entry})
    list(GET pair 0 name)
    list(GET pair 1 seconds)
    if(name STREQUAL label)
      math(EXPR scaled "${seconds} * ${PEV_TIMEOUT_SCALE}")
      set(${out} ${scaled} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "test label '${label}' is none of ${PEV_LABEL_TIMEOUTS}")
endfunction()

# pev_label(TEST... LABEL label [ALSO label...] [TIMEOUT seconds]): what every test added with
# add_test gets: its labels, its timeout (the label's unless TIMEOUT is given, scaled as the
# label's is), and one CPU slot of the machine's (the test presets run as many tests at once as
# the machine has CPUs: pev-ctest-resources.json, written at configure time).
function(pev_label)
  cmake_parse_arguments(ARG "" "LABEL;TIMEOUT" "ALSO" ${ARGN})
  pev_label_timeout(${ARG_LABEL} timeout)
  if(ARG_TIMEOUT)
    math(EXPR timeout "${ARG_TIMEOUT} * ${PEV_TIMEOUT_SCALE}")
  endif()
  set_property(TEST ${ARG_UNPARSED_ARGUMENTS} PROPERTY LABELS ${ARG_LABEL} ${ARG_ALSO})
  set_property(TEST ${ARG_UNPARSED_ARGUMENTS} PROPERTY TIMEOUT ${timeout})
  set_property(TEST ${ARG_UNPARSED_ARGUMENTS} PROPERTY RESOURCE_GROUPS "cpus:1")
  set_property(GLOBAL APPEND PROPERTY PEV_LABELLED_TESTS ${ARG_UNPARSED_ARGUMENTS})
endfunction()

# pev_test(NAME SOURCES f.cc... LIBS t... LABELS label [TIMEOUT seconds])
# A GoogleTest executable whose tests are registered one by one, so that `ctest -L LABEL` selects
# them and a red test names what broke.
include(GoogleTest)

# Registers a GoogleTest executable's tests one by one with ctest, run from the repository root
# (test data paths are relative to it), sharing one oracle cache per build directory. One label:
# gtest_discover_tests cannot pass a list as a property's value.
function(pev_discover_tests target label)
  set(timeout "")
  if(ARGC GREATER 2)
    set(timeout ${ARGV2})
  endif()
  pev_label_timeout(${label} default)
  if(timeout)
    math(EXPR default "${timeout} * ${PEV_TIMEOUT_SCALE}")
  endif()
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES LABELS ${label} TIMEOUT ${default} RESOURCE_GROUPS "cpus:1"
                                  ENVIRONMENT "PEV_ORACLE_CACHE=${CMAKE_BINARY_DIR}/oracle-cache")
endfunction()

function(pev_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT;LABELS" "SOURCES;LIBS" ${ARGN})
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
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
  pev_label(${name} LABEL fuzz)
endfunction()
