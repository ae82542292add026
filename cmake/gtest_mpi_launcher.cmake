# The launcher (CROSSCOMPILING_EMULATOR) of GoogleTest executables that run over MPI ranks:
#   cmake -DMPIEXEC=... -DNP_FLAG=... [-DPREFLAGS=...] -P gtest_mpi_launcher.cmake -- EXE ARGS...
# A case registered by copa_add_gtest(... MPI_RANKS n) carries --copa-mpi-ranks=n among its
# arguments: the launcher removes it and starts EXE on n ranks, with COPA_TEST_MPI_RANKS=n. Without it (gtest_discover_tests
# listing the cases) EXE runs alone, as an MPI singleton.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
set(ranks)
set(run)
foreach(arg IN LISTS cmd)
  if(arg MATCHES "^--copa-mpi-ranks=([0-9]+)$")
    set(ranks ${CMAKE_MATCH_1})
  else()
    list(APPEND run "${arg}")
  endif()
endforeach()
if(ranks)
  set(run ${MPIEXEC} ${NP_FLAG} ${ranks} --oversubscribe ${PREFLAGS} ${run})
  set(ENV{COPA_TEST_MPI_RANKS} ${ranks})  # copa::testing::MpiRanksCheck: the cases see n ranks
endif()
execute_process(COMMAND ${run} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}: ${run}")
endif()
