# The memory model against a measurement: runs the command after "--" with --json JSON and requires
# the estimate of WHICH (host or device; run.problem.memory_estimate.<WHICH>_bytes) to lie within
# LOW..HIGH percent of the measured peak (memory.<WHICH>_peak_bytes: the host's peak resident set,
# which also holds the executable and libraries, or the device pool's peak).
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/command_after_dashes.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/run_json.cmake)
run_json("the run" "${JSON}" doc ${cmd})
string(JSON estimate GET "${doc}" run problem memory_estimate ${WHICH}_bytes)
string(JSON measured GET "${doc}" memory ${WHICH}_peak_bytes)
string(REGEX REPLACE "\\..*$" "" estimate "${estimate}")
math(EXPR percent "${estimate} * 100 / ${measured}")
message(STATUS "${WHICH} estimate ${estimate} B, measured peak ${measured} B: ${percent} %")
if(percent LESS ${LOW} OR percent GREATER ${HIGH})
  message(FATAL_ERROR "the estimate is ${percent} % of the measured peak, outside ${LOW}..${HIGH} %")
endif()
