# The verdict of an app run is part of its test (docs/CONVENTIONS.md "Tests"). copa_add_test routes
# every run of an app executable that expects success through check_verdict.cmake (exit 0, its
# verdict lines, the one-rank result, no unnamed fallback, the MPI split); a new app-run test gets
# the check by construction. The mutation checks show that the checked tests fail when a check is
# skipped.

set(COPA_VERDICT_APPS laghos-like ramses-oct mom-efie mps-density)
# Apps whose `--backend all` runs every built backend once per variant (nothing skipped): their
# `runs:` line must count exactly that. ramses-oct's GPU backends run every uniform variant that
# fits the mesh, so there the count is the test's RUNS where given; its host backends (one
# variant each, on every mesh) and its AMR runs (one variant per backend) run each backend once.
set(COPA_RUNS_EVERY_BACKEND_APPS laghos-like mom-efie mps-density)

# Backends a `--backend all` run goes through: serial, then every other one built.
set(COPA_BUILT_BACKEND_COUNT 1)
foreach(flag COPA_ENABLE_OPENMP COPA_ENABLE_CUDA COPA_ENABLE_HIP)
  if(${flag})
    math(EXPR COPA_BUILT_BACKEND_COUNT "${COPA_BUILT_BACKEND_COUNT} + 1")
  endif()
endforeach()

# copa_app_of(out token): the app name when token is an app target or its $<TARGET_FILE:...>, else "".
function(copa_app_of out token)
  set(app "")
  if(token MATCHES "^\\$<TARGET_FILE:([^>]+)>$")
    set(token ${CMAKE_MATCH_1})
  endif()
  if(token IN_LIST COPA_VERDICT_APPS)
    set(app ${token})
  endif()
  set(${out} "${app}" PARENT_SCOPE)
endfunction()

# copa_is_app_run(out command...): TRUE when the command runs an app (not --list, --help, --version,
# which print and exit without a verdict).
function(copa_is_app_run out)
  set(cmd ${ARGN})
  list(GET cmd 0 first)
  copa_app_of(app "${first}")
  set(run FALSE)
  if(app AND NOT ";${cmd};" MATCHES ";(--list|--help|-h|--version);")
    set(run TRUE)
  endif()
  set(${out} ${run} PARENT_SCOPE)
endfunction()

# copa_verdict_command(OUT var COMMAND app args... [PASSED metric-regex] [NOT_VERIFIED reason-regex]
#                      [SERIAL_NOT_VERIFIED reason-regex] [PASSED_LINES n] [LAUNCH mpiexec...]
#                      [NAME test RANKS n [EMPTY_RANKS m]] [ALLOW_FALLBACK regex] [EXPECT_FALLBACK regex]
#                      [RUNS n])
# Sets var to the command that runs `LAUNCH app args` under check_verdict.cmake:
# - PASSED: each PASSED line must read "VERIFICATION PASSED: <metric-regex>" (default: any metric);
# - one verdict line per backend run (`--backend all` runs every one built), times one per variant
#   of --variants; each PASSED unless NOT_VERIFIED is given;
# - NOT_VERIFIED: a run NOT VERIFIED by design: every NOT VERIFIED line must read "NOT VERIFIED:
#   <reason-regex>", and none is PASSED unless PASSED_LINES says how many (`--backend all` where the
#   serial oracle has no reference but each other backend is checked against it);
# - SERIAL_NOT_VERIFIED: with `--backend all`, the serial oracle's runs are NOT VERIFIED by design
#   (reason-regex) and every other backend's PASSED against it;
# - PASSED_LINES: how many PASSED lines, where not every verdict line is one;
# - with --compare-one-rank, a PASSED line must carry the one-rank result ("one_rank_check: ");
# - no "fallback: " line (run.fallbacks) but those matching the ALLOW_FALLBACK regex (a fallback
#   by design, named): a test of a path asserts that it ran;
# - EXPECT_FALLBACK: the fallback the test forces, at least one "fallback: " line matching the
#   regex and as many run.fallbacks entries matching it in the run's JSON documents;
# - `--backend all` or RUNS: the `runs: N ran; skipped ...` line (copa::runs_line) is required;
#   N = RUNS where given, else for COPA_RUNS_EVERY_BACKEND_APPS (also where such a line comes
#   without --backend all, e.g. --variants) the backends the run names times its variants;
# - RANKS n (MPI runs): each JSON document says n ranks and n local_work entries, all above zero
#   but EMPTY_RANKS of them (a split that leaves ranks idle by design).
function(copa_verdict_command)
  cmake_parse_arguments(V "" "OUT;NAME;RANKS;EMPTY_RANKS;PASSED;NOT_VERIFIED;SERIAL_NOT_VERIFIED;PASSED_LINES;ALLOW_FALLBACK;EXPECT_FALLBACK;RUNS"
                        "COMMAND;LAUNCH" ${ARGN})
  list(POP_FRONT V_COMMAND exe)
  copa_app_of(app "${exe}")
  if(app)
    set(exe $<TARGET_FILE:${app}>)
  endif()
  set(lines 1)
  if(";${V_COMMAND};" MATCHES ";--backend;all;")
    set(lines ${COPA_BUILT_BACKEND_COUNT})
  endif()
  set(nvariants 1)
  if(";${V_COMMAND};" MATCHES ";--variants;([^;]+);")  # one verdict per variant of the list
    string(REPLACE "," ";" variants "${CMAKE_MATCH_1}")
    list(LENGTH variants nvariants)
  endif()
  math(EXPR lines "${lines} * ${nvariants}")
  if(DEFINED V_SERIAL_NOT_VERIFIED)
    set(V_NOT_VERIFIED "${V_SERIAL_NOT_VERIFIED}")
    math(EXPR V_PASSED_LINES "${lines} - ${nvariants}")
  endif()
  set(defs -DVERDICT_LINES=${lines})
  # The test's expectations the checker reads under their own names (-DPASSED=..., ...).
  foreach(opt IN ITEMS PASSED_LINES PASSED NOT_VERIFIED ALLOW_FALLBACK EXPECT_FALLBACK)
    if(DEFINED V_${opt})
      list(APPEND defs "-D${opt}=${V_${opt}}")
    endif()
  endforeach()
  if(";${V_COMMAND};" MATCHES ";--compare-one-rank;")
    list(APPEND defs -DONE_RANK=1)
  endif()
  if(";${V_COMMAND};" MATCHES ";--backend;all;" OR DEFINED V_RUNS)
    list(APPEND defs -DRUNS_LINE=1)
  endif()
  set(every_backend_once FALSE)
  if(app IN_LIST COPA_RUNS_EVERY_BACKEND_APPS)
    set(every_backend_once TRUE)
  elseif(app STREQUAL "ramses-oct" AND (NOT (COPA_ENABLE_CUDA OR COPA_ENABLE_HIP) OR ";${V_COMMAND};" MATCHES ";--levels;[1-9]"))
    set(every_backend_once TRUE)
  endif()
  if(NOT DEFINED V_RUNS AND every_backend_once)
    set(V_RUNS ${lines})
  endif()
  if(DEFINED V_RUNS)
    list(APPEND defs -DRUNS=${V_RUNS})
  endif()
  if(V_RANKS OR DEFINED V_EXPECT_FALLBACK)
    # The split (run.mpi_ranks, run.decomposition.local_work) and the fallbacks from the JSON: the
    # run's own --json, or one written for the check.
    if(";${V_COMMAND};" MATCHES ";--json;([^;]+);")
      string(REGEX REPLACE "\\.json$" "" stem "${CMAKE_MATCH_1}")
      list(APPEND defs "-DJSON_GLOB=${stem}*.json")
    else()
      set(dir ${CMAKE_CURRENT_BINARY_DIR}/verdict/${V_NAME})
      list(APPEND V_COMMAND --json ${dir}/result.json)
      list(APPEND defs -DJSON_DIR=${dir} "-DJSON_GLOB=${dir}/result*.json")
    endif()
  endif()
  if(V_RANKS)
    if(NOT DEFINED V_EMPTY_RANKS)
      set(V_EMPTY_RANKS 0)
    endif()
    list(APPEND defs -DRANKS=${V_RANKS} -DEMPTY_RANKS=${V_EMPTY_RANKS})
  endif()
  set(${V_OUT} ${CMAKE_COMMAND} ${defs} -P ${PROJECT_SOURCE_DIR}/cmake/check_verdict.cmake -- ${V_LAUNCH} ${exe}
      ${V_COMMAND} PARENT_SCOPE)
endfunction()

# copa_mutation_check(MUTATION m TESTS t... LABELS l...): the test "verdict.mutation-<m>" runs each
# test t of this build under COPA_TEST_MUTATION=m (copa::test_mutation) and passes only if every
# one of them fails: a test that still passes with its oracle or one-rank check disabled could not
# catch that bug.
function(copa_mutation_check)
  cmake_parse_arguments(M "" "MUTATION" "TESTS;LABELS" ${ARGN})
  set(name verdict.mutation-${M_MUTATION})
  set(tests)
  foreach(t IN LISTS M_TESTS)  # the tests of the apps this build has (COPA_APPS)
    string(REGEX MATCH "^[^.]+" app "${t}")
    if(TARGET ${app})
      list(APPEND tests ${t})
    endif()
  endforeach()
  if(NOT tests)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DMUTATION=${M_MUTATION} -DCTEST=${CMAKE_CTEST_COMMAND}
           -DBUILD_DIR=${CMAKE_BINARY_DIR} -P ${PROJECT_SOURCE_DIR}/cmake/mutation_check.cmake -- ${tests})
  set_tests_properties(${name} PROPERTIES LABELS "${M_LABELS}" TIMEOUT 300 RUN_SERIAL TRUE)
endfunction()

# The representative runs of each mutation: cheap ones (seconds), every app that has the check.
function(copa_verdict_mutation_checks)
  copa_mutation_check(MUTATION skip-oracle LABELS cpu
    TESTS laghos-like.rk2avg-energy-sedov3d-q1 ramses-oct.amr.phase-timing-host mps-density.lattice-2d
          mom-efie.app-pmchwt)
  copa_mutation_check(MUTATION force-fallback LABELS cpu
    TESTS mom-efie.solver.app-irs-fp32-serial mom-efie.Solver.irs_fp32_matches_lu)
  if(COPA_ENABLE_MPI)
    copa_mutation_check(MUTATION skip-one-rank LABELS mpi
      TESTS laghos-like.mpi.sedov2d-3ranks ramses-oct.mpi.sedov-24-3ranks)
  endif()
  copa_verdict_checker_checks()
endfunction()

# The checker's own reading of the runs count and of a forced fallback, on a coarse mom-efie
# sphere (a second each): a forced fallback (the force-fallback mutation) is read from the line
# and the JSON entry; the same requirement fails a run without it, and a runs count that is not
# the backends built fails the check.
function(copa_verdict_checker_checks)
  if(NOT TARGET mom-efie)
    return()
  endif()
  set(run mom-efie --ka 1 --edge-length 0.25 --reps 1 --warmup 0 --quiet)
  set(forced "precision: irs-fp32 \\(classical refinement\\) ran as FP64 LU")
  copa_verdict_command(OUT cmd NAME verdict.expect-fallback-reads-json COMMAND ${run} --backend serial --solver irs-fp32
                       EXPECT_FALLBACK "${forced}")
  add_test(NAME verdict.expect-fallback-reads-json COMMAND ${cmd})
  set_tests_properties(verdict.expect-fallback-reads-json PROPERTIES LABELS cpu ENVIRONMENT COPA_TEST_MUTATION=force-fallback
                       FAIL_REGULAR_EXPRESSION "check_verdict: FAILED")
  copa_verdict_command(OUT cmd NAME verdict.expect-fallback-bites COMMAND ${run} --backend serial --solver irs-fp32
                       EXPECT_FALLBACK "${forced}")
  add_test(NAME verdict.expect-fallback-bites COMMAND ${cmd})
  set_tests_properties(verdict.expect-fallback-bites PROPERTIES LABELS cpu
                       PASS_REGULAR_EXPRESSION "check_verdict: FAILED: no 'fallback: ' line matches")
  math(EXPR wrong "${COPA_BUILT_BACKEND_COUNT} + 1")
  copa_verdict_command(OUT cmd NAME verdict.runs-count-bites COMMAND ${run} --backend all RUNS ${wrong})
  add_test(NAME verdict.runs-count-bites COMMAND ${cmd})
  set_tests_properties(verdict.runs-count-bites PROPERTIES LABELS cpu
                       PASS_REGULAR_EXPRESSION "check_verdict: FAILED: the runs line counts ${COPA_BUILT_BACKEND_COUNT} run\\(s\\), expected ${wrong}")
endfunction()
