# The matrix over MPI ranks (src/distributed/): included from tests/CMakeLists.txt.

# mom_efie_pliris_random_tests(PREFIX p [ENGINE gpu] LABELS l... [TIMEOUT s] CASES c...): the
# random-matrix LU check (pliris_random_check.cpp) once per case "ranks;grid;n;nb;crossed;lookahead"
# (six values a case; crossed: the fewest interchanges across process rows the run must make), as
# p.pliris-random-<grid>-n<n>-nb<nb>-lookahead<lookahead> on <ranks> ranks; ENGINE gpu runs the
# GPU engine instead of the host one.
function(mom_efie_pliris_random_tests)
  cmake_parse_arguments(T "" "PREFIX;ENGINE;TIMEOUT" "LABELS;CASES" ${ARGN})
  set(cases ${T_CASES})
  while(cases)
    list(POP_FRONT cases ranks grid n nb crossed lookahead)
    copa_add_test(NAME ${T_PREFIX}.pliris-random-${grid}-n${n}-nb${nb}-lookahead${lookahead} MPI_RANKS ${ranks}
                  COMMAND $<TARGET_FILE:mom_efie_pliris_random_check> ${grid} ${n} ${nb} ${crossed} ${lookahead} ${T_ENGINE}
                  LABELS ${T_LABELS} TIMEOUT ${T_TIMEOUT})
  endwhile()
endfunction()

mom_efie_test(mom_efie_distributed_unit_tests test_block_cyclic.cpp test_owned_fill.cpp test_interchanges.cpp)
copa_add_gtest(TARGET mom_efie_distributed_unit_tests PREFIX mom-efie LABELS cpu)
# A bad block size is refused on one rank too.
copa_expect_exit(NAME mom-efie.exit-block-size-0 CODE 2 COMMAND ${_app} --block-size 0 LABELS cpu)
copa_expect_exit(NAME mom-efie.exit-proc-grid-one-rank CODE 2 COMMAND ${_app} --proc-grid 1x2 LABELS cpu)
copa_expect_exit(NAME mom-efie.exit-lookahead CODE 2 COMMAND ${_app} --lookahead 2 LABELS cpu)

if(COPA_ENABLE_MPI)
  # ka = 1, 16 elements per wavelength: the f = 3 sphere, N = 270 (a second on 2 cores). Each run
  # checks, on every rank, sampled owned entries against the serial formula (1e-12), on rank 0 the
  # solution against one-rank LAPACK (1e-10 relative) and the RCS against one rank's (1e-8) and
  # Mie (0.5 dB); exit 0 only when all pass. Block sizes 27 (divides 270) and 24, 64, 20, 16 (do not).
  set(_dist --ka 1 --elements-per-wavelength 16 --reps 1 --warmup 0 --compare-one-rank --quiet)
  if(COPA_WITH_SCALAPACK)
    copa_add_test(NAME mom-efie.mpi.solve-2ranks-nb27 MPI_RANKS 2 COMMAND ${_app} --backend serial --block-size 27 ${_dist} LABELS mpi)
    copa_add_test(NAME mom-efie.mpi.solve-2ranks-nb24 MPI_RANKS 2 COMMAND ${_app} --backend openmp --threads 2 --block-size 24 ${_dist} LABELS mpi)
    copa_add_test(NAME mom-efie.mpi.solve-3ranks-nb64 MPI_RANKS 3 COMMAND ${_app} --backend openmp --threads 1 --block-size 64 ${_dist} LABELS mpi)
    # 3x1: pivoting across the process rows.
    copa_add_test(NAME mom-efie.mpi.solve-3ranks-3x1-nb16 MPI_RANKS 3 COMMAND ${_app} --backend serial --proc-grid 3x1 --block-size 16 ${_dist} LABELS mpi)
    copa_add_test(NAME mom-efie.mpi.solve-4ranks-2x2-nb20 MPI_RANKS 4 COMMAND ${_app} --backend serial --block-size 20 ${_dist} LABELS mpi)
    # run.decomposition: one local_work per rank, summing to N^2.
    add_test(NAME mom-efie.mpi.decomposition-3ranks COMMAND ${CMAKE_COMMAND} -DRANKS=3 -DJSON=${CMAKE_CURRENT_BINARY_DIR}/dist3.json
             -P ${CMAKE_CURRENT_SOURCE_DIR}/check_decomposition.cmake -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3
             --oversubscribe --allow-run-as-root ${_app} --backend serial --block-size 30 ${_dist}
             --json ${CMAKE_CURRENT_BINARY_DIR}/dist3.json)
    set_tests_properties(mom-efie.mpi.decomposition-3ranks PROPERTIES LABELS mpi PROCESSORS 3)
  endif()
  # The Pliris-style LU on the host (the GPU engine's algorithm, pliris_lu.hpp): 1 x Q grids, with
  # lookahead (default) and without; with nb = 100 on 4 ranks the last rank owns no block column.
  copa_add_test(NAME mom-efie.mpi.pliris-2ranks-nb16 MPI_RANKS 2 COMMAND ${_app} --backend serial --dist-lu pliris --block-size 16 ${_dist} LABELS mpi)
  copa_add_test(NAME mom-efie.mpi.pliris-2ranks-nb16-no-lookahead MPI_RANKS 2 COMMAND ${_app} --backend serial --dist-lu pliris
                --lookahead 0 --block-size 16 ${_dist} LABELS mpi)
  copa_add_test(NAME mom-efie.mpi.pliris-3ranks-nb27 MPI_RANKS 3 COMMAND ${_app} --backend openmp --threads 1 --dist-lu pliris --block-size 27 ${_dist} LABELS mpi)
  copa_add_test(NAME mom-efie.mpi.pliris-4ranks-nb100 MPI_RANKS 4 COMMAND ${_app} --backend serial --dist-lu pliris --block-size 100 ${_dist} LABELS mpi
                EMPTY_RANKS 1)
  # P x Q grids with P > 1 (pliris_lu_2d.hpp: pivoting across process rows), against one-rank
  # LAPACK (1e-10) and Mie; nb 16 and 20 do not divide N = 270, nb 100 leaves process row 1 of 2x2
  # one block (70 rows) and process column 1 one block.
  copa_add_test(NAME mom-efie.mpi.pliris-2ranks-2x1-nb16 MPI_RANKS 2 COMMAND ${_app} --backend serial --dist-lu pliris --proc-grid 2x1
                --block-size 16 ${_dist} LABELS mpi)
  copa_add_test(NAME mom-efie.mpi.pliris-2ranks-2x1-nb16-no-lookahead MPI_RANKS 2 COMMAND ${_app} --backend serial --dist-lu pliris
                --proc-grid 2x1 --lookahead 0 --block-size 16 ${_dist} LABELS mpi)
  copa_add_test(NAME mom-efie.mpi.pliris-3ranks-3x1-nb27 MPI_RANKS 3 COMMAND ${_app} --backend openmp --threads 1 --dist-lu pliris
                --proc-grid 3x1 --block-size 27 ${_dist} LABELS mpi)
  copa_add_test(NAME mom-efie.mpi.pliris-4ranks-2x2-nb100 MPI_RANKS 4 COMMAND ${_app} --backend serial --dist-lu pliris --proc-grid 2x2
                --block-size 100 ${_dist} LABELS mpi)
  # Random dense matrices (pliris_random_check.cpp: most pivots cross process rows) against LAPACK
  # zgesv: 1x2 (the 1 x Q path), 2x1, 3x1 and 2x2, N and nb that leave partial blocks; the last
  # argument is the fewest interchanges across process rows the run must make (measured 53, 57,
  # 59, 17, 109 on these matrices; 2x2 N 64 nb 64: one block, process row 1 and column 1 own nothing,
  # 0). nb 64 and 100 exceed the panel's inner block of 32 columns (the ZTRSM/ZGEMM inside the panel).
  # Lookahead on (the app's default) except in the 2x1 and one 2x2 case.
  add_executable(mom_efie_pliris_random_check pliris_random_check.cpp)
  target_link_libraries(mom_efie_pliris_random_check PRIVATE mom_efie_core)
  copa_target_defaults(mom_efie_pliris_random_check)
  mom_efie_pliris_random_tests(PREFIX mom-efie.mpi LABELS mpi
    CASES "2;1x2;101;8;0;1" "2;2x1;101;8;25;0" "2;2x1;101;8;25;1" "3;3x1;97;5;25;1" "4;2x2;131;16;25;1" "4;2x2;131;16;25;0"
          "4;2x2;70;64;5;1" "4;2x2;64;64;0;1" "2;2x1;300;100;50;1")
  if(COPA_WITH_SCALAPACK)
    # 2x2 nb 20: the Pliris-style LU and ScaLAPACK on the same grid (both against one rank), and
    # the JSON's proof that rows crossed process rows (check_pliris_2d.cmake).
    add_test(NAME mom-efie.mpi.pliris-4ranks-2x2-nb20-vs-scalapack COMMAND ${CMAKE_COMMAND} -DJSON=${CMAKE_CURRENT_BINARY_DIR}/pliris-2x2.json
             -DREF_JSON=${CMAKE_CURRENT_BINARY_DIR}/scalapack-2x2.json -P ${CMAKE_CURRENT_SOURCE_DIR}/check_pliris_2d.cmake --
             ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --oversubscribe --allow-run-as-root ${_app} --backend serial --dist-lu pliris
             --proc-grid 2x2 --block-size 20 ${_dist} --json ${CMAKE_CURRENT_BINARY_DIR}/pliris-2x2.json)
    set_tests_properties(mom-efie.mpi.pliris-4ranks-2x2-nb20-vs-scalapack PROPERTIES LABELS mpi PROCESSORS 4)
    # bench/dist.sh end to end on 2 CPU ranks with a tiny N (tests/check_dist_bench.sh; about a minute).
    add_test(NAME mom-efie.mpi.bench-dist-2ranks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_dist_bench.sh ${CMAKE_BINARY_DIR}
             ${CMAKE_CURRENT_BINARY_DIR}/bench-dist)
    set_tests_properties(mom-efie.mpi.bench-dist-2ranks PROPERTIES LABELS "mpi;slow" PROCESSORS 2 TIMEOUT 600)
  endif()
  # An open plate has no Mie series: --fill-only checks the owned entries against the serial formula.
  copa_add_test(NAME mom-efie.mpi.fill-only-plate-3ranks MPI_RANKS 3 COMMAND ${_app} --backend serial --geometry plate
                --edge-length 0.25 --fill-only --block-size 10 --reps 1 --warmup 0 --quiet LABELS mpi)
  set(_mpirun ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe --allow-run-as-root)
  copa_expect_exit(NAME mom-efie.mpi.exit-proc-grid-mismatch CODE 2 COMMAND ${_mpirun} ${_app} --proc-grid 2x2 LABELS mpi)
  copa_expect_exit(NAME mom-efie.mpi.exit-block-size-0 CODE 2 COMMAND ${_mpirun} ${_app} --block-size 0 LABELS mpi)
  copa_expect_exit(NAME mom-efie.mpi.exit-formulation CODE 2 COMMAND ${_mpirun} ${_app} --formulation cfie LABELS mpi)
  copa_expect_exit(NAME mom-efie.mpi.exit-variant CODE 2 COMMAND ${_mpirun} ${_app} --backend serial --variant pairs LABELS mpi)
  copa_expect_exit(NAME mom-efie.mpi.exit-cpu-transport CODE 2 COMMAND ${_mpirun} ${_app} --backend serial --transport ipc LABELS mpi)
  copa_expect_exit(NAME mom-efie.mpi.exit-dist-lu CODE 2 COMMAND ${_mpirun} ${_app} --backend serial --dist-lu magic LABELS mpi)
  # ka = 200: each rank's block alone (1.95e6 x 3.9e6 entries) is refused from the options (exit 3).
  copa_expect_exit(NAME mom-efie.mpi.exit-oom-ka200 CODE 3 COMMAND ${_mpirun} ${_app} --backend serial --ka 200 LABELS mpi)
endif()

# GPU + MPI (label gpu mpi; the lead runs them with two ranks sharing one H200): the distributed GPU
# fill and Pliris-style LU against one-rank host LAPACK (solution 1e-10, RCS 1e-8) and Mie, per
# panel-broadcast transport built. A transport the machine cannot use is reported skipped: NCCL
# with two ranks on one GPU, cuda-aware with an MPI that does not report CUDA support.
if(COPA_ENABLE_MPI AND COPA_ENABLE_CUDA)
  set(_gpu_transports host ipc cuda-aware)
  if(COPA_WITH_NCCL)
    list(APPEND _gpu_transports nccl)
  endif()
  foreach(tr IN LISTS _gpu_transports)
    copa_add_test(NAME mom-efie.gpu-mpi.solve-2ranks-nb32-${tr} MPI_RANKS 2 COMMAND ${_app} --backend cuda --transport ${tr}
                  --block-size 32 ${_dist} LABELS gpu mpi TIMEOUT 120)
    copa_add_test(NAME mom-efie.gpu-mpi.small-2ranks-nb256-${tr} MPI_RANKS 2 COMMAND ${_app} --backend cuda --transport ${tr}
                  --size small --block-size 256 --reps 1 --warmup 1 --compare-one-rank --quiet LABELS gpu mpi TIMEOUT 300)
    set_tests_properties(mom-efie.gpu-mpi.solve-2ranks-nb32-${tr} mom-efie.gpu-mpi.small-2ranks-nb256-${tr}
                         PROPERTIES SKIP_REGULAR_EXPRESSION "duplicate GPU;does not report CUDA support")
  endforeach()
  # The owned-entry fill kernel alone (open plate: the sampled owned entries against the serial formula).
  copa_add_test(NAME mom-efie.gpu-mpi.fill-only-plate-2ranks MPI_RANKS 2 COMMAND ${_app} --backend cuda --geometry plate
                --edge-length 0.25 --fill-only --block-size 10 --reps 1 --warmup 0 --quiet LABELS gpu mpi TIMEOUT 120)
  copa_add_test(NAME mom-efie.gpu-mpi.solve-3ranks-nb100-host MPI_RANKS 3 COMMAND ${_app} --backend cuda --block-size 100 ${_dist}
                LABELS gpu mpi TIMEOUT 120)
  copa_add_test(NAME mom-efie.gpu-mpi.solve-2ranks-nb32-host-no-lookahead MPI_RANKS 2 COMMAND ${_app} --backend cuda --lookahead 0
                --block-size 32 ${_dist} LABELS gpu mpi TIMEOUT 120)
  # P = 2 (2x1 grid, two ranks sharing one GPU): the panel pivoted across the process rows on the
  # host, the trailing update on cuBLAS; host and ipc transports (the row broadcast is within one
  # rank on 2x1: the transport is exercised, the cross-row traffic is host MPI).
  foreach(tr host ipc)
    copa_add_test(NAME mom-efie.gpu-mpi.solve-2ranks-2x1-nb32-${tr} MPI_RANKS 2 COMMAND ${_app} --backend cuda --proc-grid 2x1
                  --transport ${tr} --block-size 32 ${_dist} LABELS gpu mpi TIMEOUT 120)
    set_tests_properties(mom-efie.gpu-mpi.solve-2ranks-2x1-nb32-${tr} PROPERTIES SKIP_REGULAR_EXPRESSION "duplicate GPU;does not report CUDA support")
  endforeach()
  copa_add_test(NAME mom-efie.gpu-mpi.solve-2ranks-2x1-nb32-host-no-lookahead MPI_RANKS 2 COMMAND ${_app} --backend cuda --proc-grid 2x1
                --lookahead 0 --block-size 32 ${_dist} LABELS gpu mpi TIMEOUT 120)
  copa_add_test(NAME mom-efie.gpu-mpi.small-2ranks-2x1-nb256-host MPI_RANKS 2 COMMAND ${_app} --backend cuda --proc-grid 2x1
                --size small --block-size 256 --reps 1 --warmup 0 --compare-one-rank --quiet LABELS gpu mpi TIMEOUT 300)
  # The GPU engine on the random matrices of pliris_random_check.cpp (most pivots cross process
  # rows: the interchanges' gather kernel, one pinned message per pair of process rows, scatter
  # kernel) against LAPACK zgesv, 1e-10: 2x1 with and without lookahead, 3x1 and 2x2 (ranks share the GPU).
  mom_efie_pliris_random_tests(PREFIX mom-efie.gpu-mpi ENGINE gpu LABELS gpu mpi TIMEOUT 120
    CASES "2;2x1;101;8;25;0" "2;2x1;300;100;50;1" "3;3x1;97;5;25;1" "4;2x2;131;16;25;1")
endif()
