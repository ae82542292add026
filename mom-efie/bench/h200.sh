#!/usr/bin/env bash
# mom-efie on the H200: usage  bench/h200.sh BUILD_DIR OUT_DIR   (CUDA build; about 60-100 s)
# Cases, most important first:
#   1. the ~30,000-unknown sphere from mesh to RCS (cuSOLVER LU at N >= 20,000; end_to_end row)
#   2. every GPU fill variant on the large and medium spheres (fill only, sampled-entry oracle)
#   3. OpenMP fill + LAPACK LU on 16 host cores, small and medium
set -euo pipefail
BUILD=${1:?usage: h200.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: h200.sh BUILD_DIR OUT_DIR}
APP="$BUILD/mom-efie/mom-efie"
mkdir -p "$OUT"

echo "== mom-efie: large sphere end to end (cuda, triangle-pair fill + cuSOLVER LU + RCS)"
"$APP" --backend cuda --variant triangle-pair --size large --reps 2 --warmup 1 \
  --json "$OUT/mom-efie_large_e2e_cuda.json" --rcs "$OUT/mom-efie_large_rcs.csv"

for size in large medium; do
  for v in triangle-pair block basis-pair blas; do
    # basis-pair and block evaluate 4 triangle pairs per entry (about 9x the kernel values): fewer reps
    reps=3
    if [[ "$size" == large && ( "$v" == basis-pair || "$v" == block ) ]]; then reps=1; fi
    echo "== mom-efie: fill $v, $size sphere"
    "$APP" --backend cuda --variant "$v" --size "$size" --fill-only --reps "$reps" --warmup 1 \
      --json "$OUT/mom-efie_${size}_fill_${v}.json"
  done
done

for size in small medium; do
  echo "== mom-efie: openmp fill + LU, $size sphere, 16 threads"
  OPENBLAS_NUM_THREADS=16 "$APP" --backend openmp --threads 16 --size "$size" --reps 1 --warmup 0 \
    --json "$OUT/mom-efie_${size}_openmp.json"
done
