# Reliability tests shared by the apps (docs/CONVENTIONS.md, "Input and output rules").
include_guard(GLOBAL)

# copa_bad_input_test(APP <name> TARGET <executable target> [READMES file...])
# One ctest entry "<name>.bad-input-table" (label cpu) that asks the executable for its options and
# runs every numeric one with -1, 0, nan, inf and a value past its declared range (exit 2 naming the
# option), fails on a numeric option without a declared range, and checks the ranges stated in
# READMES against the declared ones (common/tests/check_bad_input.py).
function(copa_bad_input_test)
  cmake_parse_arguments(T "" "APP;TARGET" "READMES" ${ARGN})
  find_package(Python3 COMPONENTS Interpreter QUIET)  # directory-scoped results: found again per app
  if(NOT Python3_Interpreter_FOUND)
    return()
  endif()
  set(readmes)
  foreach(r IN LISTS T_READMES)
    list(APPEND readmes --readme ${r})
  endforeach()
  add_test(NAME ${T_APP}.bad-input-table
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/common/tests/check_bad_input.py
                   $<TARGET_FILE:${T_TARGET}> ${readmes})
  set_tests_properties(${T_APP}.bad-input-table PROPERTIES LABELS cpu TIMEOUT 300)
  copa_sanitizer_environment(${T_APP}.bad-input-table)
endfunction()
