# Helpers of the run-comparing test scripts (compare_runs, overlap_vs_plain, same_run,
# check_comm_rows, check_memory_estimate), included after command_after_dashes.cmake.

# run_json(LABEL JSON DOC_VAR COMMAND...): runs COMMAND... --json JSON (JSON removed first) and
# fails naming LABEL unless it exits 0; DOC_VAR receives the JSON document.
function(run_json label json doc_var)
  file(REMOVE "${json}")
  execute_process(COMMAND ${ARGN} --json "${json}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label} exited with ${rc}\n${out}${err}")
  endif()
  file(READ "${json}" doc)
  set(${doc_var} "${doc}" PARENT_SCOPE)
endfunction()

# relative_difference(A B BOUND REL_VAR WITHIN_VAR): REL_VAR = |A - B| / |A| printed as %.3e, and
# WITHIN_VAR true when it is at most BOUND. CMake's math() is integer-only: awk forms the quotient.
function(relative_difference a b bound rel_var within_var)
  execute_process(COMMAND /usr/bin/env awk "BEGIN { d = (${a}) - (${b}); if (d < 0) d = -d; r = d / (${a}); printf \"%.3e\", r; exit (r <= ${bound}) ? 0 : 1 }"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE rel)
  set(${rel_var} "${rel}" PARENT_SCOPE)
  if(rc EQUAL 0)
    set(${within_var} TRUE PARENT_SCOPE)
  else()
    set(${within_var} FALSE PARENT_SCOPE)
  endif()
endfunction()
