#!/usr/bin/env bash
# mps-density over MPI ranks (README, "Distributed runs"): the P-Flow tank at 10M particles
# (--size medium), GPU default variant, one rank against NRANKS ranks (one GPU each; ranks share the
# GPUs where there are fewer) per ghost-fill transport: strong scaling of the density and the
# halo_exchange row. Every run checks the gathered densities against the one-rank run (rank 0
# recomputes alone). A transport this build or machine cannot use (nccl with ranks sharing a GPU,
# cuda-aware without a CUDA-aware MPI) exits 2 and is reported as skipped.
# Simulation mode (issue 15): P-Flow's 0.22M tank, 5 steps, one rank against NRANKS ranks per
# transport (ghost refresh on the device; migration through the host, README "Simulation mode over
# ranks"); rank 0 then reruns the steps alone and compares (one-rank check line).
# Usage: bench/dist.sh BUILD_DIR OUT_DIR NRANKS   (BUILD_DIR from the cuda-mpi preset; called by
# scripts/gpu-check-dist)
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
BIN="$BUILD/mps-density/mps-density"
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
run() {  # name, ranks, then arguments
  local name=$1 ranks=$2
  shift 2
  echo "=== mps-density $name ($ranks ranks): $*"
  "${MPIRUN[@]}" -np "$ranks" "$BIN" "$@" --json "$OUT/mps-density-$name.json" > "$OUT/mps-density-$name.log" 2>&1 \
    || echo "mps-density $name: exit code $? (skipped: $(grep -m1 error "$OUT/mps-density-$name.log"))"
  grep -E "FOM|VERIFICATION|NOT VERIFIED|one-rank check|migrations" "$OUT/mps-density-$name.log"
}
run medium-1rank 1 --case pflow --size medium --backend cuda --warmup 3 --reps 20
for tr in host ipc nccl cuda-aware; do
  run "medium-${NRANKS}ranks-$tr" "$NRANKS" --case pflow --size medium --backend cuda --transport "$tr" --warmup 3 --reps 20
done
run sim-small-1rank 1 --case pflow --mode simulation --steps 5 --backend cuda --cg-tol 1e-12
for tr in host ipc nccl cuda-aware; do
  run "sim-small-${NRANKS}ranks-$tr" "$NRANKS" --case pflow --mode simulation --steps 5 --backend cuda --cg-tol 1e-12 \
    --transport "$tr"
done
exit 0
