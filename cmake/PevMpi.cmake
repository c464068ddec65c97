# `mpirun -np N peverify sweep` needs MPI (OpenMPI from Debian: libopenmpi-dev, openmpi-bin).
# PEV_ENABLE_MPI: AUTO (use it when found), ON (required), OFF. Sets PEV_HAVE_MPI and, when
# mpirun is found, PEV_MPIEXEC (the MPI tests skip themselves without it).
set(PEV_ENABLE_MPI AUTO CACHE STRING "Build peverify sweep with MPI (AUTO, ON, OFF)")
set_property(CACHE PEV_ENABLE_MPI PROPERTY STRINGS AUTO ON OFF)

set(PEV_HAVE_MPI OFF)
set(PEV_MPIEXEC "")
if(PEV_ENABLE_MPI STREQUAL "ON")
  find_package(MPI REQUIRED COMPONENTS CXX)
elseif(PEV_ENABLE_MPI STREQUAL "AUTO")
  find_package(MPI QUIET COMPONENTS CXX)
elseif(NOT PEV_ENABLE_MPI STREQUAL "OFF")
  message(FATAL_ERROR "PEV_ENABLE_MPI must be AUTO, ON or OFF, not '${PEV_ENABLE_MPI}'")
endif()
if(MPI_CXX_FOUND AND NOT PEV_ENABLE_MPI STREQUAL "OFF")
  set(PEV_HAVE_MPI ON)
  if(MPIEXEC_EXECUTABLE)
    set(PEV_MPIEXEC ${MPIEXEC_EXECUTABLE})
  endif()
endif()
message(STATUS "peverify sweep with MPI: ${PEV_HAVE_MPI} (PEV_ENABLE_MPI=${PEV_ENABLE_MPI})")
