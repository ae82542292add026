# Runs the command after "--" and fails unless it exits with the code EXPECT.
# Used for the exit-code conventions (2 bad input, 3 runtime failure) of every app.
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT "${rc}" STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if("${EXPECT}" STREQUAL "2" AND "${err}" STREQUAL "")
  message(FATAL_ERROR "exit code 2 without a message on stderr")
endif()
message(STATUS "exit ${rc} as expected: ${err}")
