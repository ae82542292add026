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
