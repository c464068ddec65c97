# `cmake --install build --prefix P`: the peverify command, and what a project of yours needs to
# run the property suite on its own kernel:
#   find_package(peverify CONFIG REQUIRED)                   # peverify::properties
#   find_package(peverify CONFIG REQUIRED COMPONENTS gtest)  # and peverify::properties_gtest
# Only the public headers are installed, under P/include/peverify/: the two umbrella headers and
# the headers they include, transitively, and nothing else (no test helpers, no Arb, no kernel
# internals). The libraries they need are exported; the registry (core/) and its math libraries
# are not: a user's kernel test never links them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PEV_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/peverify)
set(pev_public_headers properties/peverify_properties.h)
set(pev_gtest_headers properties/gtest/register_suite.h)

# pev_header_closure(OUT header...): `header`s and every project header they include,
# transitively ("peverify/<path>" includes), as paths relative to the source root. Configuring
# again when one of them changes keeps the list true.
function(pev_header_closure out)
  set(todo ${ARGN})
  set(seen "")
  while(todo)
    list(POP_FRONT todo header)
    if(header IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${header})
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 ${PROJECT_SOURCE_DIR}/${header})
    file(STRINGS ${PROJECT_SOURCE_DIR}/${header} lines
         REGEX "^[ \t]*#[ \t]*include[ \t]+\"peverify/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"peverify/([^\"]+)\".*" "\\1" included
                           "${line}")
      list(APPEND todo ${included})
    endforeach()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# pev_install_headers(COMPONENT header...): each under P/include/peverify/, in its folder.
function(pev_install_headers component)
  foreach(header ${ARGN})
    get_filename_component(folder ${header} DIRECTORY)
    install(FILES ${PROJECT_SOURCE_DIR}/${header}
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/peverify/${folder} COMPONENT ${component})
  endforeach()
endfunction()

pev_header_closure(pev_suite_closure ${pev_public_headers})
pev_header_closure(pev_gtest_closure ${pev_gtest_headers})
list(REMOVE_ITEM pev_gtest_closure ${pev_suite_closure})
pev_install_headers(Development ${pev_suite_closure})
pev_install_headers(Development ${pev_gtest_closure})

set(pev_exported pev_support pev_encoding pev_measure pev_oracle pev_properties)
# Installed, "peverify/..." resolves from P/include.
foreach(target pev_support pev_encoding)
  target_include_directories(${target} PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
# The headers are C++20: a project that links the suite compiles as C++20 at least.
set_property(TARGET pev_encoding APPEND PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_20)
foreach(target ${pev_exported} pev_properties_gtest)
  string(REPLACE "pev_" "" name ${target})
  set_property(TARGET ${target} PROPERTY EXPORT_NAME ${name})
endforeach()

install(TARGETS peverify RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${pev_exported} EXPORT peverifyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT peverifyTargets NAMESPACE peverify:: DESTINATION ${PEV_INSTALL_CMAKEDIR})
# The GoogleTest adapter in an export set of its own: the `gtest` component loads it, and only
# that component makes the package look for GoogleTest.
install(TARGETS pev_properties_gtest EXPORT peverifyGtestTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT peverifyGtestTargets NAMESPACE peverify:: DESTINATION ${PEV_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/peverifyConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/peverifyConfig.cmake
                              INSTALL_DESTINATION ${PEV_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/peverifyConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/peverifyConfig.cmake
              ${PROJECT_BINARY_DIR}/peverifyConfigVersion.cmake
        DESTINATION ${PEV_INSTALL_CMAKEDIR})
