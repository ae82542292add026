#!/usr/bin/env bash
# laghos-like H200 benchmark: 3D Sedov on the generated unit cube (Laghos's peer runs in
# shared/references/laghos.md use -p 1 -dim 3 -nx N -rs 0 -ok K -ot K-1 -ms 40 -pa -d cuda).
# Usage: bench/h200.sh BUILD_DIR OUT_DIR   (CUDA build; one JSON per case in OUT_DIR)
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output dir}
BIN="$BUILD/laghos-like/laghos-like"
mkdir -p "$OUT"
run() {  # name, time limit (s), arguments...
  local name=$1 limit=$2
  shift 2
  echo "=== laghos-like $name: $*"
  timeout "$limit" "$BIN" "$@" --quiet --json "$OUT/laghos-like_$name.json" || echo "case $name exited with $?"
}
# Most important first. Fewer steps than Laghos's -ms 40 to stay within the time budget; the
# rates are per step, so they compare with Laghos's.
run q2q1_n44_xy   30 --backend cuda --variant block-xy  --problem 1 --dim 3 --nx 44 --order-k 2 --order-t 1 --tf 10 --max-steps 10
run q3q2_n30_xy   30 --backend cuda --variant block-xy  --problem 1 --dim 3 --nx 30 --order-k 3 --order-t 2 --tf 10 --max-steps 10
run q2q1_n44_xyz  20 --backend cuda --variant block-xyz --problem 1 --dim 3 --nx 44 --order-k 2 --order-t 1 --tf 10 --max-steps 10
run laghos_run3   15 --backend cuda --laghos-run 3
run q2q1_n88_xy   20 --backend cuda --variant block-xy  --problem 1 --dim 3 --nx 88 --order-k 2 --order-t 1 --tf 10 --max-steps 2
run omp_q2q1_n16  10 --backend openmp --problem 1 --dim 3 --nx 16 --order-k 2 --order-t 1 --tf 10 --max-steps 5
