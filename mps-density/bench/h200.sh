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
# The measured ceilings (copa-probe) when present: without them the OpenMP rows have no roof.
CEIL=()
[[ -f results/h200/ceilings.json ]] && CEIL=(--ceilings results/h200/ceilings.json)
run() {  # name, then arguments
  local name=$1
  [[ -z "${COPA_BENCH_CASES:-}" || "$name" =~ $COPA_BENCH_CASES ]] || return 0  # gpu-check --bench-cases
  shift
  echo "=== mps-density $name: $*"
  "$BIN" "$@" "${CEIL[@]}" --json "$OUT/mps-density-$name.json" || echo "mps-density $name: exit code $?"
}
GPU_VARIANTS=fine-lean-cellrows,fine-lean,fine-rows,sorted-particle,verlet,bucket-thread,bucket-block
FP32_VARIANTS=fine-rows,sorted-particle
START=$SECONDS

# 1. P-Flow case (224k particles, 70 x 70 x 14 buckets): target <= 50 us per evaluation incl. rebucketing.
run pflow-cuda --case pflow --backend cuda --variants $GPU_VARIANTS --warmup 5 --reps 50
run pflow-cuda-fp32 --case pflow --backend cuda --variants $FP32_VARIANTS --precision fp32 --warmup 5 --reps 50
run pflow-cuda-noreorder --case pflow --backend cuda --variants fine-lean,fine-lean-cellrows,sorted-particle,bucket-block --reorder off --warmup 5 --reps 20
# The rebucket in 3 launches instead of 5 (--rebucket fused), same variants' densities.
run pflow-cuda-rebucket-fused --case pflow --backend cuda --variants fine-lean,fine-lean-cellrows --rebucket fused --warmup 5 --reps 50
echo "=== mps-density: $((SECONDS - START)) s so far"

# 2. 10M particles: target >= 5e9 evaluations/s for the best variant (FP64).
run medium-cuda --case pflow --size medium --backend cuda --variants $GPU_VARIANTS --warmup 2 --reps 10
run medium-cuda-rebucket-fused --case pflow --size medium --backend cuda --variants fine-lean-cellrows --rebucket fused --warmup 2 --reps 10
run medium-cuda-fp32 --case pflow --size medium --backend cuda --variants $FP32_VARIANTS --precision fp32 --warmup 2 --reps 10
echo "=== mps-density: $((SECONDS - START)) s so far"

# 3. 100M particles (about 20 GB on the device at FP64; verlet about 50 GB): one set-up, every variant.
run large-cuda --case pflow --size large --backend cuda --variants $GPU_VARIANTS --warmup 1 --reps 3
echo "=== mps-density: $((SECONDS - START)) s so far"

# 4. Short full semi-implicit MPS simulation of the P-Flow tank (particle-steps/s).
run pflow-simulation-cuda --case pflow --mode simulation --steps 20 --backend cuda --variants fine-lean,sorted-particle,verlet

# 5. OpenMP on the host's cores (sorted particles with the SIMD row loop; P-Flow's bucket-thread).
run pflow-openmp --case pflow --backend openmp --variants fine-rows,sorted-particle,bucket-thread,verlet --warmup 1 --reps 5
run medium-openmp --case pflow --size medium --backend openmp --variants fine-rows,sorted-particle,bucket-thread --warmup 0 --reps 1
echo "=== mps-density: $((SECONDS - START)) s so far"

# 6. FP32 at 100M (a second 100M set-up: last).
if (( SECONDS - START < 95 )); then
  run large-cuda-fp32 --case pflow --size large --backend cuda --variants fine-rows,sorted-particle --precision fp32 --warmup 1 --reps 3
else
  echo "=== mps-density large-cuda-fp32: skipped (over 95 s already, keeping the script near 120 s)"
fi

# Key numbers: per run and variant, density and rebucket medians and evaluations/s.
echo "=== mps-density summary (density us, rebucket us, evaluations/s, with rebucketing)"
for f in "$OUT"/mps-density-*.json; do
  python3 - "$f" <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
m = d.get("mps", {})
if "density_seconds_median" in m:
    print(f"{sys.argv[1].split('/')[-1]:<60} {m['density_seconds_median']*1e6:10.1f} {m['rebucket_seconds_median']*1e6:10.1f} "
          f"{m['evaluations_per_second']:10.3e} {m['evaluations_per_second_with_rebucket']:10.3e}")
PY
done
echo "=== mps-density: $((SECONDS - START)) s in all"
