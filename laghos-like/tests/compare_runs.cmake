# Determinism: runs the command after "--" twice, each with --json RUN_DIR/run<i>.json, and
# compares the final |e| and the bitwise checksum of the final state (solution.e_norm,
# solution.state_checksum). With REL_TOL the runs may differ by that relative |e| (FP64 atomics:
# the order of additions changes from run to run); the difference is printed either way.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/command_after_dashes.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/run_json.cmake)
file(MAKE_DIRECTORY "${RUN_DIR}")
foreach(i 1 2)
  run_json("run ${i}" "${RUN_DIR}/run${i}.json" doc ${cmd})
  string(JSON e${i} GET "${doc}" solution e_norm)
  string(JSON sum${i} GET "${doc}" solution state_checksum)
endforeach()
message(STATUS "run 1: |e| = ${e1}, checksum ${sum1}")
message(STATUS "run 2: |e| = ${e2}, checksum ${sum2}")
if(REL_TOL)
  relative_difference("${e1}" "${e2}" "${REL_TOL}" rel within)
  message(STATUS "relative |e| difference between the runs: ${rel} (bound ${REL_TOL}); checksums ${sum1} ${sum2}")
  if(NOT within)
    message(FATAL_ERROR "the runs differ by ${rel} in |e|, more than ${REL_TOL}")
  endif()
elseif(NOT e1 STREQUAL e2 OR NOT sum1 STREQUAL sum2)
  message(FATAL_ERROR "two runs with the same options differ: |e| ${e1} vs ${e2}, checksum ${sum1} vs ${sum2}")
endif()
