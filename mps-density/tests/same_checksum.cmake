# Two runs that must give the same bits: runs the command after "--" once with the extra options
# FIRST and once with SECOND (;-lists), each with --json NAME.<1|2>.json, and fails unless both exit
# 0 with the same mps.checksum (e.g. --rebucket stable vs --rebucket cub: the same bucket order).
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/command_after_dashes.cmake)
foreach(run 1 2)
  if(run EQUAL 1)
    set(extra ${FIRST})
  else()
    set(extra ${SECOND})
  endif()
  set(json "${NAME}.${run}.json")
  file(REMOVE "${json}")
  execute_process(COMMAND ${cmd} ${extra} --json "${json}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${run} (${extra}) exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  file(READ "${json}" doc)
  string(JSON sum${run} GET "${doc}" mps checksum)
  string(JSON rebucket${run} ERROR_VARIABLE no_row GET "${doc}" mps rebucket_seconds_median)  # density mode only
endforeach()
if(NOT sum1 STREQUAL sum2)
  message(FATAL_ERROR "the runs differ: checksum ${sum1} (${FIRST}) vs ${sum2} (${SECOND})")
endif()
message(STATUS "same checksum ${sum1}; rebucket median ${rebucket1} s (${FIRST}) vs ${rebucket2} s (${SECOND})")
