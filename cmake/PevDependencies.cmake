# Every dependency comes from Debian's packages (scripts/setup installs them); nothing is
# downloaded at build time.
find_package(PkgConfig REQUIRED)
pkg_check_modules(MPFR REQUIRED IMPORTED_TARGET mpfr)
pkg_check_modules(GMP REQUIRED IMPORTED_TARGET gmp)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(hwy REQUIRED)
# Boost.Multiprecision's mpfr_float (header-only): the oracle's reference rotation.
find_package(Boost 1.74 REQUIRED)
pkg_check_modules(SLEEF REQUIRED IMPORTED_TARGET GLOBAL sleef)

# The property suite is a library for other projects too: it always needs these.
find_package(GTest REQUIRED)
find_package(rapidcheck REQUIRED)

if(PEV_BUILD_TESTS)
  # Arb (FLINT) is the oracle's independent referee in tests.
  find_library(ARB_LIBRARY NAMES flint-arb arb REQUIRED)
  find_library(FLINT_LIBRARY NAMES flint REQUIRED)
  find_path(ARB_INCLUDE_DIR arb.h REQUIRED)
  add_library(pev_arb INTERFACE)
  target_link_libraries(pev_arb INTERFACE ${ARB_LIBRARY} ${FLINT_LIBRARY} PkgConfig::MPFR
                                          PkgConfig::GMP)
  target_include_directories(pev_arb INTERFACE ${ARB_INCLUDE_DIR} ${ARB_INCLUDE_DIR}/flint)
endif()
# `peverify bench` runs Google Benchmark, so it is always needed.
find_package(benchmark REQUIRED)
