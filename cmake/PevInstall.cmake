# `cmake --install build --prefix P`: the peverify command, and what a project of yours needs to
# run the property suite on its own kernel:
#   find_package(peverify CONFIG REQUIRED)
#   target_link_libraries(my_test PRIVATE peverify::properties)
# The suite's libraries (the contract, the measurement, the oracle, the properties) are exported
# with their headers; the registry (core/) and its math libraries are not: a user's kernel test
# never links them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PEV_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/peverify)
set(PEV_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/peverify)
set(pev_exported pev_support pev_encoding pev_measure pev_oracle pev_properties)

# The folders' CMakeLists give the source tree as include directory; installed, it is P/include/
# peverify, where the headers keep their folder ("properties/peverify_properties.h").
foreach(target pev_support pev_encoding)
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
               "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>;$<INSTALL_INTERFACE:${PEV_INSTALL_INCLUDEDIR}>")
endforeach()
# The headers are C++20: a project that links the suite compiles as C++20 at least.
set_property(TARGET pev_encoding APPEND PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_20)
foreach(target ${pev_exported})
  string(REPLACE "pev_" "" name ${target})
  set_property(TARGET ${target} PROPERTY EXPORT_NAME ${name})
endforeach()

install(TARGETS peverify RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${pev_exported} EXPORT peverifyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(folder support encoding measure oracle properties)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${PEV_INSTALL_INCLUDEDIR}/${folder}
          FILES_MATCHING PATTERN "*.h"
          PATTERN "*_testutil.h" EXCLUDE PATTERN "testdata" EXCLUDE)
endforeach()
install(EXPORT peverifyTargets NAMESPACE peverify:: DESTINATION ${PEV_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/peverifyConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/peverifyConfig.cmake
                              INSTALL_DESTINATION ${PEV_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/peverifyConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/peverifyConfig.cmake
              ${PROJECT_BINARY_DIR}/peverifyConfigVersion.cmake
        DESTINATION ${PEV_INSTALL_CMAKEDIR})
