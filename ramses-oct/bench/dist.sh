#!/usr/bin/env bash
# ramses-oct distributed scaling. Usage: bench/dist.sh BUILD OUT NRANKS
# BUILD: a CUDA + MPI build (cmake --preset cuda-mpi; binary at BUILD/ramses-oct/ramses-oct).
# Sedov, FP64, periodic, 20 steps (2 warm-up: medians over 18 timed steps), variant balanced on a GPU
# (zmarch runs on one rank only, so the one-rank baseline uses the same kernel as the distributed runs):
#   strong: N^3 on 1 and NRANKS ranks;  weak: N^3 per rank, the x axis grown to N * ranks (its
#   one-rank baseline is the strong one: the same N^3 run).
# N = 256; RAMSES_DIST_N and RAMSES_DIST_BACKEND (default cuda) override them for a CPU smoke run.
# Every transport is tried; one this build or machine cannot use (nccl with ranks sharing a GPU,
# cuda-aware without a CUDA-aware MPI) exits 2, or is known unavailable from gpu-check-dist's probe,
# and is listed as skipped with the reason. Runs past the campaign's budget (COPA_DEADLINE,
# scripts/dist-bench.sh) are skipped or stopped and listed so. One JSON and one log per run in OUT
# (the log ends with the run's wall time), and OUT/scaling.md: ranks, time per step (max over
# ranks), compute max/mean, halo, allreduce, comm fraction, halo GB/s against copa-commbench, FOM,
# efficiency (strong T1/(p Tp), weak T1/Tp), verdict, wall time (bench/scaling_table.py, which also
# re-makes the table from a folder of committed results).
# AMR (OUT/amr-scaling.md): Sedov on a base of RAMSES_DIST_AMR_N^3 (default 128) + 2 levels, global
#   dt, strong: 1 and NRANKS ranks; weak: the base grid's x axis grown to N * ranks (the blast, and
#   so the refined region, does not grow with it). A GPU backend over every transport (its own AMR
#   variant, not balanced), a host backend (RAMSES_DIST_BACKEND=openmp) over host.
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
N=${RAMSES_DIST_N:-256}
BACKEND=${RAMSES_DIST_BACKEND:-cuda}
APP="$BUILD/ramses-oct/ramses-oct"
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
source "$(dirname "$0")/../../scripts/dist-bench.sh"
COMMON=(--problem sedov --steps 20 --warmup 2 --backend "$BACKEND" --quiet)
case "$BACKEND" in cuda | hip) COMMON+=(--variant balanced) ;; esac
# Seconds per run on two H200s (results/h200-x2/20261124/x2.log: 5 s per 256^3 run, start-up
# included; nccl's communicator set-up adds about 3 s), scaled with the cells per rank.
EST=$((4 + N * N * N / 16777216 * 2))

run() {  # run NAME RANKS TRANSPORT ARGS...: scripts/dist-bench.sh's dist_run with the estimate EST
  dist_run "$1" "$2" "$3" "$EST" "${@:4}"
}

run strong-1 1 host --n "$N"
for tr in ipc nccl host cuda-aware; do
  run "strong-$NRANKS-$tr" "$NRANKS" "$tr" --n "$N"
  run "weak-$NRANKS-$tr" "$NRANKS" "$tr" --nx $((N * NRANKS)) --ny "$N" --nz "$N"
done

PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(dirname "$0")/../../scripts" /usr/bin/python3 "$(dirname "$0")/scaling_table.py" \
  "$OUT" "$NRANKS" | tee "$OUT/scaling.md"

AMR_N=${RAMSES_DIST_AMR_N:-128}
AMR=(--levels 2)
COMMON=(--problem sedov --steps 20 --warmup 2 --backend "$BACKEND" --quiet)  # the AMR table's variant
case "$BACKEND" in
  serial | openmp)
    AMR_TRANSPORTS=(host)
    # Seconds: 20 steps of at most ~4 N^3 leaf cells at 1.5e6 leaf-cell updates/s (the host AMR's
    # rate on 3 serial ranks sharing 2 cores; more cores run faster).
    EST=$((60 + AMR_N * AMR_N * AMR_N / 18750)) ;;
  *)
    AMR_TRANSPORTS=(ipc nccl host cuda-aware)
    # Seconds: a guess, never measured over ranks: start-up, and per regrid that changes the tree
    # the host's tree download, step lists and exchange patterns (~1 us per oct).
    EST=$((60 + AMR_N * AMR_N * AMR_N / 100000)) ;;
esac
run amr-strong-1 1 host --n "$AMR_N" "${AMR[@]}"
for tr in "${AMR_TRANSPORTS[@]}"; do
  run "amr-strong-$NRANKS-$tr" "$NRANKS" "$tr" --n "$AMR_N" "${AMR[@]}"
  run "amr-weak-$NRANKS-$tr" "$NRANKS" "$tr" --nx $((AMR_N * NRANKS)) --ny "$AMR_N" --nz "$AMR_N" "${AMR[@]}"
done
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(dirname "$0")/../../scripts" /usr/bin/python3 "$(dirname "$0")/scaling_table.py" \
  "$OUT" "$NRANKS" amr- | tee "$OUT/amr-scaling.md"
