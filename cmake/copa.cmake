# Helpers every app uses, so that each app's CMakeLists.txt stays a list of its files.
include(${CMAKE_CURRENT_LIST_DIR}/verdict.cmake)

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

# copa_add_test(NAME name COMMAND cmd... LABELS l... [MPI_RANKS n] [TIMEOUT s] [WILL_FAIL] [PASS_EXIT_CODE c]
#               [PASSED metric-regex] [NOT_VERIFIED reason-regex] [SERIAL_NOT_VERIFIED reason-regex]
#               [PASSED_LINES n] [EMPTY_RANKS m] [ALLOW_FALLBACK regex] [EXPECT_FALLBACK regex] [RUNS n]
#               [JUDGED_BY_REGEX])
# A test labelled "gpu" or "mpi" also gets the build-type label of the backend it needs.
# A run of an app that expects success is judged by its verdict (cmake/verdict.cmake), unless
# JUDGED_BY_REGEX: the caller sets PASS_ and FAIL_REGULAR_EXPRESSION (scripts/tests/check_verdict_coverage.py
# checks that it did).
function(copa_add_test)
  cmake_parse_arguments(T "WILL_FAIL;JUDGED_BY_REGEX" "NAME;MPI_RANKS;TIMEOUT;PASSED;NOT_VERIFIED;SERIAL_NOT_VERIFIED;PASSED_LINES;EMPTY_RANKS;ALLOW_FALLBACK;EXPECT_FALLBACK;RUNS"
                        "COMMAND;LABELS" ${ARGN})
  set(launch)
  if(T_MPI_RANKS)
    set(launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_MPI_RANKS} --oversubscribe ${MPIEXEC_PREFLAGS})
  endif()
  set(cmd ${launch} ${T_COMMAND})
  copa_is_app_run(run "${T_COMMAND}")
  if(run AND NOT T_WILL_FAIL AND NOT T_JUDGED_BY_REGEX)
    set(verdict)
    foreach(key PASSED NOT_VERIFIED SERIAL_NOT_VERIFIED PASSED_LINES EMPTY_RANKS ALLOW_FALLBACK EXPECT_FALLBACK RUNS)
      if(DEFINED T_${key})
        list(APPEND verdict ${key} "${T_${key}}")
      endif()
    endforeach()
    if(T_MPI_RANKS)
      list(APPEND verdict RANKS ${T_MPI_RANKS})
    endif()
    copa_verdict_command(OUT cmd NAME ${T_NAME} COMMAND ${T_COMMAND} LAUNCH ${launch} ${verdict})
    set(verdict_checked TRUE)
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
  if(verdict_checked)
    set_tests_properties(${T_NAME} PROPERTIES FAIL_REGULAR_EXPRESSION "check_verdict: FAILED")
  endif()
  copa_sanitizer_environment(${T_NAME})
endfunction()

# The sanitizers' options (cmake/sanitize.cmake) for a test of a COPA_SANITIZE build.
function(copa_sanitizer_environment test)
  if(COPA_SANITIZER_ENVIRONMENT)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${COPA_SANITIZER_ENVIRONMENT})
  endif()
endfunction()

# copa_expect_exit(NAME name CODE c COMMAND cmd... LABELS l...): the command must exit with code c.
function(copa_expect_exit)
  cmake_parse_arguments(T "" "NAME;CODE" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${CMAKE_COMMAND}
    -DEXPECT=${T_CODE} -P ${PROJECT_SOURCE_DIR}/cmake/expect_exit.cmake -- ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  copa_sanitizer_environment(${T_NAME})
endfunction()

# copa_add_gtest(TARGET exe PREFIX p LABELS l... [ARGS a...] [MPI_RANKS n] [TIMEOUT s])
# Registers every GoogleTest case of exe as its own ctest entry "<p>.<Suite>.<case>"
# (gtest_discover_tests lists them when ctest runs, so no case name is repeated here), with the
# arguments ARGS, on n MPI ranks when MPI_RANKS is given. One executable may be registered several
# times (other arguments, ranks or labels) under different prefixes.
# The properties are set by a ctest include file of our own, read after the discovered list:
# gtest_discover_tests' PROPERTIES flattens list values (LABELS "gpu;mpi", ENVIRONMENT).
function(copa_add_gtest)
  cmake_parse_arguments(T "" "TARGET;PREFIX;MPI_RANKS;TIMEOUT" "ARGS;LABELS" ${ARGN})
  get_property(count TARGET ${T_TARGET} PROPERTY COPA_GTEST_REGISTRATIONS)
  if(NOT count)
    set(count 0)
  endif()
  math(EXPR count "${count} + 1")
  set_property(TARGET ${T_TARGET} PROPERTY COPA_GTEST_REGISTRATIONS ${count})
  string(MAKE_C_IDENTIFIER "copa_gtest_${T_TARGET}_${count}" list_var)

  # Bracket arguments keep list values (LABELS "gpu;mpi", ENVIRONMENT) whole in the include file.
  set(args ${T_ARGS})
  set(props " LABELS [==[${T_LABELS}]==]")
  set(env ${COPA_SANITIZER_ENVIRONMENT})
  if("gpu" IN_LIST T_LABELS)
    list(APPEND env COPA_TEST_REQUIRE_GPU=1)  # copa::testing::gpu_required: no device is a failure
  endif()
  if(T_MPI_RANKS)
    list(APPEND args --copa-mpi-ranks=${T_MPI_RANKS})
    string(APPEND props " PROCESSORS ${T_MPI_RANKS}")
    list(APPEND env OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
         NCCL_NVLS_ENABLE=0)
    set_property(TARGET ${T_TARGET} PROPERTY CROSSCOMPILING_EMULATOR ${CMAKE_COMMAND}
      -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP_FLAG=${MPIEXEC_NUMPROC_FLAG} "-DPREFLAGS=${MPIEXEC_PREFLAGS}"
      -P ${PROJECT_SOURCE_DIR}/cmake/gtest_mpi_launcher.cmake --)
  endif()
  if(T_TIMEOUT)
    string(APPEND props " TIMEOUT ${T_TIMEOUT}")
  endif()
  if(env)
    string(APPEND props " ENVIRONMENT [==[${env}]==]")
  endif()

  # PRE_TEST: the cases are listed when ctest runs, never during the build, so a build machine
  # without a GPU (CI's cuda and hip compile checks) never starts a GPU test executable.
  gtest_discover_tests(${T_TARGET} TEST_PREFIX "${T_PREFIX}." EXTRA_ARGS ${args} TEST_LIST ${list_var}
                       DISCOVERY_TIMEOUT 120 DISCOVERY_MODE PRE_TEST)
  set(body "foreach(t IN LISTS ${list_var})\n  set_tests_properties(\"\${t}\" PROPERTIES${props})\nendforeach()\n")
  set(file ${CMAKE_CURRENT_BINARY_DIR}/${list_var}_properties.cmake)
  file(WRITE ${file} "${body}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()
