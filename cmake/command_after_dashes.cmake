# For the test scripts run as `cmake -D... -P script.cmake -- COMMAND ARGS...`: sets `cmd` to the
# command line after "--" (included by each script, so they parse it one way).
set(cmd)
set(after FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(after)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after TRUE)
  endif()
endforeach()

# copa_run_ok(): runs `cmd` and fails the script, with the exit code and both streams, unless it
# exits 0; leaves its stdout in `out` and its stderr in `err`.
macro(copa_run_ok)
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the run exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endmacro()
