#!/usr/bin/env bash
# mps-density over MPI ranks on the 2 x H200 machine (README, "Distributed runs"): the P-Flow tank
# at 10M particles (--size medium), GPU default variant, one rank against two ranks (one GPU each)
# per ghost-fill transport: strong scaling of the density and the halo_exchange row. Every run
# checks the gathered densities against the one-rank run (rank 0 recomputes alone).
# Usage: bench/h200x2.sh BUILD_DIR OUT_DIR   (BUILD_DIR from the cuda-mpi preset)
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output dir}
BIN="$BUILD/mps-density/mps-density"
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on these machines (DISTRIBUTED.md)
MPIRUN=(mpirun --allow-run-as-root --mca btl_vader_single_copy_mechanism cma)
run() {  # name, ranks, then arguments
  local name=$1 ranks=$2
  shift 2
  echo "=== mps-density $name ($ranks ranks): $*"
  "${MPIRUN[@]}" -np "$ranks" "$BIN" "$@" --json "$OUT/mps-density-$name.json" || echo "mps-density $name: exit code $?"
}
run medium-1rank 1 --case pflow --size medium --backend cuda --warmup 3 --reps 20
for tr in host ipc nccl; do
  run medium-2ranks-$tr 2 --case pflow --size medium --backend cuda --transport $tr --warmup 3 --reps 20
done
