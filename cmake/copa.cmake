# Helpers every app uses, so that each app's CMakeLists.txt stays a list of its files.

# Host flags for the code we write (not for the dependencies).
function(copa_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unknown-pragmas>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${COPA_NATIVE}>>:-march=native>
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo>)
endfunction()

# Adds the OpenMP variant files of a target when the OpenMP backend is built.
function(copa_openmp_sources target)
  if(COPA_ENABLE_OPENMP)
    target_sources(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# Adds the GPU variant files (one source for CUDA and HIP) when a GPU backend is built.
# In a HIP build the same .cu files are compiled as HIP.
function(copa_gpu_sources target)
  if(COPA_ENABLE_CUDA)
    target_sources(${target} PRIVATE ${ARGN})
  elseif(COPA_ENABLE_HIP)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE HIP)
    target_sources(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# copa_add_test(NAME name COMMAND cmd... LABELS l... [MPI_RANKS n] [TIMEOUT s] [WILL_FAIL] [PASS_EXIT_CODE c])
# A test labelled "gpu" or "mpi" also gets the build-type label of the backend it needs.
function(copa_add_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;MPI_RANKS;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  set(cmd ${T_COMMAND})
  if(T_MPI_RANKS)
    set(cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_MPI_RANKS} --oversubscribe ${MPIEXEC_PREFLAGS} ${T_COMMAND})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${cmd})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  if(T_TIMEOUT)
    set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
  if(T_WILL_FAIL)
    set_tests_properties(${T_NAME} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_MPI_RANKS)
    set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_MPI_RANKS}
      ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;NCCL_NVLS_ENABLE=0")
  endif()
endfunction()

# copa_expect_exit(NAME name CODE c COMMAND cmd... LABELS l...): the command must exit with code c.
function(copa_expect_exit)
  cmake_parse_arguments(T "" "NAME;CODE" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${CMAKE_COMMAND}
    -DEXPECT=${T_CODE} -P ${PROJECT_SOURCE_DIR}/cmake/expect_exit.cmake -- ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
endfunction()
