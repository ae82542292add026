#!/usr/bin/env bash
# mps-density on the H200: every GPU strategy at 0.22M (P-Flow tank), 10M and 100M particles
# (number density averaged over repetitions, rebucketing in its own row), OpenMP at 0.22M and 10M
# on the host's cores, and a short full MPS simulation of the P-Flow tank. --variants runs several
# strategies on one set-up (one JSON each: NAME.<variant>.json), so the 100M set-up is built once.
# Usage: bench/h200.sh BUILD_DIR OUT_DIR   (BUILD_DIR from the cuda preset)
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output dir}
BIN="$BUILD/mps-density/mps-density"
mkdir -p "$OUT"
run() {  # name, then arguments
  local name=$1
  shift
  echo "=== mps-density $name: $*"
  "$BIN" "$@" --json "$OUT/mps-density-$name.json" || echo "mps-density $name: exit code $?"
}
GPU_VARIANTS=sorted-particle,sorted-packed,warp-particle,verlet,bucket-block,bucket-thread

# 1. P-Flow case (224k particles, 70 x 70 x 14 buckets): target <= 50 us per evaluation incl. rebucketing.
run pflow-cuda --case pflow --backend cuda --variants $GPU_VARIANTS --warmup 5 --reps 50
run pflow-cuda-fp32 --case pflow --backend cuda --variant sorted-particle --precision fp32 --warmup 5 --reps 50
run pflow-cuda-noreorder --case pflow --backend cuda --variants sorted-particle,bucket-block --reorder off --warmup 5 --reps 50

# 2. 10M particles: target >= 5e9 evaluations/s for the best variant.
run medium-cuda --case pflow --size medium --backend cuda --variants $GPU_VARIANTS --warmup 2 --reps 10
run medium-cuda-fp32 --case pflow --size medium --backend cuda --variant sorted-particle --precision fp32 --warmup 2 --reps 10

# 3. Short full semi-implicit MPS simulation of the P-Flow tank (particle-steps/s).
run pflow-simulation-cuda --case pflow --mode simulation --steps 20 --backend cuda --variants sorted-particle,verlet

# 4. 100M particles (about 20 GB on the device at FP64; verlet about 50 GB).
run large-cuda --case pflow --size large --backend cuda --variants $GPU_VARIANTS --warmup 1 --reps 5
run large-cuda-fp32 --case pflow --size large --backend cuda --variant sorted-particle --precision fp32 --warmup 1 --reps 5

# 5. OpenMP on the host's cores (sorted particles with the SIMD row loop; P-Flow's bucket-thread).
run pflow-openmp --case pflow --backend openmp --variants sorted-particle,bucket-thread,verlet --warmup 1 --reps 5
run medium-openmp --case pflow --size medium --backend openmp --variants sorted-particle,bucket-thread --warmup 1 --reps 3
