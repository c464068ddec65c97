# Optional CUDA (docs/architecture.md §11). PEV_ENABLE_CUDA=AUTO builds the CUDA entries when CMake finds a CUDA
# compiler (check_language), ON requires one, OFF never looks. Included from the top-level
# CMakeLists.txt: the CUDA language has to be enabled at file scope there, above every target
# that links the kernels. Sets PEV_CUDA (ON/OFF) for core/cuda/CMakeLists.txt.
set(PEV_ENABLE_CUDA AUTO CACHE STRING "Build the CUDA entries: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE PEV_ENABLE_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${PEV_ENABLE_CUDA}" _pev_cuda_mode)
if(NOT _pev_cuda_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "PEV_ENABLE_CUDA must be AUTO, ON or OFF, not '${PEV_ENABLE_CUDA}'")
endif()

set(PEV_CUDA OFF)
if(NOT _pev_cuda_mode STREQUAL "OFF")
  # Ampere and Hopper: SASS for sm_80, SASS and PTX for sm_90 (the PTX lets newer GPUs JIT it).
  # Two architectures only, to keep CI's compile time small.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
  endif()
  # nvcc compiles the host side of .cu files with the project's C++ compiler.
  if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(PEV_CUDA ON)
  elseif(_pev_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "PEV_ENABLE_CUDA=ON, but no CUDA compiler was found (put nvcc on PATH "
                        "or set CMAKE_CUDA_COMPILER)")
  endif()
endif()
message(STATUS "peverify: CUDA entries ${PEV_CUDA} (PEV_ENABLE_CUDA=${PEV_ENABLE_CUDA})")

# Device-code flags: part of the entries' identity (Implementation::flags), so spelled out even
# where they are nvcc's defaults. No -use_fast_math anywhere: the fast entries call the
# intrinsics explicitly, and core/cuda/ptx_test.cc checks that nothing approximate reaches the
# accurate kernels.
set(PEV_CUDA_DEVICE_FLAGS -fmad=false -ftz=false -prec-div=true -prec-sqrt=true)

# pev_cuda_library(NAME SOURCES f.cu...): a static library of CUDA sources built with the flags
# above. The project-wide C++ options are handed to the host compiler explicitly instead of being
# inherited (nvcc does not know -Wall).
function(pev_cuda_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  set_property(TARGET ${name} PROPERTY COMPILE_OPTIONS "")
  target_compile_options(${name} PRIVATE ${PEV_CUDA_DEVICE_FLAGS}
                                         -Xcompiler=-ffp-contract=off,-Wall,-Wextra)
  target_include_directories(${name} PRIVATE ${PEV_INCLUDE_ROOT})
  set_target_properties(${name} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                           POSITION_INDEPENDENT_CODE ON)
endfunction()

# pev_cuda_ptx(NAME ARCH sm SOURCES f.cu... [OPTIONS flags...]): the PTX of CUDA sources, for
# inspection (an object library whose objects are .ptx files; $<TARGET_OBJECTS:NAME> names them).
function(pev_cuda_ptx name)
  cmake_parse_arguments(ARG "" "ARCH" "SOURCES;OPTIONS" ${ARGN})
  add_library(${name} OBJECT ${ARG_SOURCES})
  set_property(TARGET ${name} PROPERTY COMPILE_OPTIONS "")
  target_compile_options(${name} PRIVATE ${PEV_CUDA_DEVICE_FLAGS} ${ARG_OPTIONS})
  target_include_directories(${name} PRIVATE ${PEV_INCLUDE_ROOT})
  set_target_properties(${name} PROPERTIES CUDA_PTX_COMPILATION ON CUDA_ARCHITECTURES ${ARG_ARCH}
                                           CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
endfunction()
