# Two spellings of one run give the same run: runs the command after "--" split at the word VERSUS
# (COMMAND ARGS_A... VERSUS ARGS_B...: COMMAND ARGS_A, then COMMAND ARGS_B), each with
# --json RUN_DIR/<a|b>.json, and requires the same accepted steps, the same |e| and the same
# final-state checksum (solution.step, e_norm, state_checksum): bit for bit the same run; with
# REL_TOL the same steps and |e| within it.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/command_after_dashes.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/run_json.cmake)
list(FIND cmd VERSUS split)
if(split LESS 2)
  message(FATAL_ERROR "same_run.cmake: expected -- COMMAND ARGS_A... VERSUS ARGS_B...")
endif()
list(SUBLIST cmd 0 ${split} cmd_a)
list(GET cmd 0 program)
math(EXPR first_b "${split} + 1")
list(SUBLIST cmd ${first_b} -1 args_b)
set(cmd_b ${program} ${args_b})
file(MAKE_DIRECTORY "${RUN_DIR}")
foreach(run a b)
  run_json("run ${run} (${cmd_${run}})" "${RUN_DIR}/${run}.json" doc ${cmd_${run}})
  foreach(key step e_norm state_checksum h1_cg_iterations)
    string(JSON ${key}_${run} GET "${doc}" solution ${key})
  endforeach()
  message(STATUS "run ${run}: step ${step_${run}}, |e| ${e_norm_${run}}, checksum ${state_checksum_${run}}, "
                 "H1 CG iterations ${h1_cg_iterations_${run}}")
endforeach()
# REL_TOL (FP64 atomics: the order of additions differs from run to run): the same accepted steps,
# |e| within REL_TOL; otherwise bit for bit.
set(keys step e_norm state_checksum)
if(REL_TOL)
  set(keys step)
  relative_difference("${e_norm_a}" "${e_norm_b}" "${REL_TOL}" rel within)
  message(STATUS "relative |e| difference: ${rel} (bound ${REL_TOL})")
  if(NOT within)
    message(FATAL_ERROR "the two command lines differ by ${rel} in |e|, more than ${REL_TOL}")
  endif()
endif()
foreach(key ${keys})
  if(NOT "${${key}_a}" STREQUAL "${${key}_b}")
    message(FATAL_ERROR "the two command lines give different runs: ${key} ${${key}_a} vs ${${key}_b}")
  endif()
endforeach()
