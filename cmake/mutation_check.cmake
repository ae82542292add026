# The mutation check (cmake/verdict.cmake, copa_mutation_check):
#   cmake -DMUTATION=m -DCTEST=ctest -DBUILD_DIR=dir -P mutation_check.cmake -- TEST...
# Runs each TEST of the build under COPA_TEST_MUTATION=m and fails unless each one ran and failed.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
set(ENV{COPA_TEST_MUTATION} ${MUTATION})
set(survivors)
foreach(test IN LISTS cmd)
  string(REGEX REPLACE "([.+])" "\\\\\\1" re "${test}")
  execute_process(COMMAND ${CTEST} --test-dir ${BUILD_DIR} -R "^${re}$" --no-tests=error
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT out MATCHES "tests passed, 1 tests failed out of 1")
    list(APPEND survivors ${test})
    message(STATUS "${test} did not fail under COPA_TEST_MUTATION=${MUTATION}:\n${out}${err}")
  else()
    message(STATUS "${test}: fails under COPA_TEST_MUTATION=${MUTATION}, as it must")
  endif()
endforeach()
if(survivors)
  message(FATAL_ERROR "passed under COPA_TEST_MUTATION=${MUTATION} (or did not run): ${survivors}")
endif()
