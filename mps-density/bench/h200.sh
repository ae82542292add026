#!/usr/bin/env bash
# mps-density on the H200: every GPU strategy at 0.22M (P-Flow tank), 10M and 100M particles
# (number density averaged over repetitions, rebucketing in its own row), OpenMP at 0.22M and 10M
# on the host's cores, and a short full MPS simulation of the P-Flow tank.
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
GPU_VARIANTS="sorted-particle sorted-packed warp-particle verlet bucket-block bucket-thread"

# 1. P-Flow case (224k particles, 70 x 70 x 14 buckets): target <= 50 us per evaluation incl. rebucketing.
for v in $GPU_VARIANTS; do run "pflow-cuda-$v" --case pflow --backend cuda --variant "$v" --warmup 5 --reps 50; done
run pflow-cuda-sorted-particle-fp32 --case pflow --backend cuda --variant sorted-particle --precision fp32 --warmup 5 --reps 50
run pflow-cuda-sorted-particle-noreorder --case pflow --backend cuda --variant sorted-particle --reorder off --warmup 5 --reps 50

# 2. 10M particles: target >= 5e9 evaluations/s for the best variant.
for v in $GPU_VARIANTS; do run "medium-cuda-$v" --case pflow --size medium --backend cuda --variant "$v" --warmup 2 --reps 10; done
run medium-cuda-sorted-particle-fp32 --case pflow --size medium --backend cuda --variant sorted-particle --precision fp32 --warmup 2 --reps 10

# 3. Short full semi-implicit MPS simulation of the P-Flow tank (particle-steps/s).
run pflow-simulation-cuda --case pflow --mode simulation --steps 20 --backend cuda --variant sorted-particle
run pflow-simulation-cuda-verlet --case pflow --mode simulation --steps 20 --backend cuda --variant verlet

# 4. 100M particles (about 15 GB on the device at FP64): the strategies that scale.
for v in $GPU_VARIANTS; do run "large-cuda-$v" --case pflow --size large --backend cuda --variant "$v" --warmup 1 --reps 5; done
run large-cuda-sorted-particle-fp32 --case pflow --size large --backend cuda --variant sorted-particle --precision fp32 --warmup 1 --reps 5

# 5. OpenMP on the host's cores (sorted particles with the SIMD row loop; P-Flow's bucket-thread).
for v in sorted-particle bucket-thread verlet; do run "pflow-openmp-$v" --case pflow --backend openmp --variant "$v" --warmup 1 --reps 5; done
run medium-openmp-sorted-particle --case pflow --size medium --backend openmp --variant sorted-particle --warmup 1 --reps 3
