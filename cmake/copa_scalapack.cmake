# ScaLAPACK (with its BLACS) for MPI builds: mom-efie's distributed CPU LU. Optional: AUTO uses it
# when found, ON requires it, OFF never looks. Non-MPI builds never look for it. Debian/Ubuntu:
# libscalapack-openmpi-dev (pkg-config scalapack-openmpi); elsewhere a library named scalapack.
# Defines the imported target copa::scalapack and COPA_WITH_SCALAPACK.
set(COPA_ENABLE_SCALAPACK AUTO CACHE STRING "ScaLAPACK for mom-efie's distributed CPU LU: AUTO (MPI builds, when found), ON, OFF")
set(COPA_WITH_SCALAPACK OFF)
if(COPA_ENABLE_MPI AND NOT COPA_ENABLE_SCALAPACK STREQUAL "OFF" AND NOT TARGET copa::scalapack)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(COPA_SCALAPACK_PC QUIET scalapack-openmpi)
  endif()
  find_library(COPA_SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack-mpi scalapack
               HINTS ${COPA_SCALAPACK_PC_LIBRARY_DIRS})
  if(COPA_SCALAPACK_LIBRARY)
    add_library(copa::scalapack UNKNOWN IMPORTED)
    set_target_properties(copa::scalapack PROPERTIES IMPORTED_LOCATION ${COPA_SCALAPACK_LIBRARY})
    set(COPA_WITH_SCALAPACK ON)
  endif()
endif()
if(TARGET copa::scalapack)
  set(COPA_WITH_SCALAPACK ON)
elseif(COPA_ENABLE_SCALAPACK STREQUAL "ON")
  message(FATAL_ERROR "COPA_ENABLE_SCALAPACK=ON needs COPA_ENABLE_MPI and a ScaLAPACK library (libscalapack-openmpi-dev; "
                      "or set COPA_SCALAPACK_LIBRARY)")
endif()
