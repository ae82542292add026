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

# copa_dev_full_test(NAME <test> OPTION <option> [LINK <dir/file>] COMMAND <exe> <args>...)
# An output that cannot be written (a full disk: /dev/full) is exit 3 naming the option and the
# file. Without LINK the command gives /dev/full itself; with LINK the app's own file name in a
# fresh directory is made a link to /dev/full first (cmake/expect_dev_full.cmake). Label cpu.
function(copa_dev_full_test)
  cmake_parse_arguments(T "" "NAME;OPTION;LINK" "COMMAND" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${CMAKE_COMMAND} -DOPTION=${T_OPTION} -DLINK=${T_LINK}
           -P ${PROJECT_SOURCE_DIR}/cmake/expect_dev_full.cmake -- ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES LABELS cpu TIMEOUT 120)
  copa_sanitizer_environment(${T_NAME})
endfunction()

# copa_fuzz_target(NAME <name> TEST <test> SOURCES <files...> [INCLUDES <dirs...>] LIBS <targets...>
#                  CORPUS <dir> CRASHES <dir>)
# A libFuzzer target (LLVMFuzzerTestOneInput in SOURCES, with the reader's own sources rather than
# its app's whole library, so the fuzz build compiles little). Every build: <name>-replay (SOURCES with
# common/fuzz/replay_main.cpp, any compiler) and the test <test> (label cpu) that passes the
# committed seed corpus and every crash ever found (CRASHES) through it. With COPA_FUZZ (the fuzz
# preset: clang, -fsanitize=fuzzer-no-link and ASan + UBSan): also <name>, the libFuzzer executable
# that scripts/run-tests runs for a bounded time on a copy of the corpus.
option(COPA_FUZZ "Build the libFuzzer targets (clang; the fuzz preset)" OFF)
function(copa_fuzz_target)
  cmake_parse_arguments(T "" "NAME;TEST;CORPUS;CRASHES" "SOURCES;INCLUDES;LIBS" ${ARGN})
  add_executable(${T_NAME}-replay ${T_SOURCES} ${PROJECT_SOURCE_DIR}/common/fuzz/replay_main.cpp)
  target_include_directories(${T_NAME}-replay PRIVATE ${T_INCLUDES})
  target_link_libraries(${T_NAME}-replay PRIVATE ${T_LIBS})
  add_test(NAME ${T_TEST} COMMAND ${T_NAME}-replay ${T_CORPUS} ${T_CRASHES})
  set_tests_properties(${T_TEST} PROPERTIES LABELS cpu TIMEOUT 120)
  copa_sanitizer_environment(${T_TEST})
  if(COPA_FUZZ)
    add_executable(${T_NAME} ${T_SOURCES})
    target_include_directories(${T_NAME} PRIVATE ${T_INCLUDES})
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS})
    target_link_options(${T_NAME} PRIVATE -fsanitize=fuzzer)
  endif()
endfunction()
