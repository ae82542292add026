#!/usr/bin/env bash
# ramses-oct H200 benchmarks (README "Results"). Usage: bench/h200.sh BUILD_DIR OUT_DIR
# BUILD_DIR: a CUDA build (binary at BUILD_DIR/ramses-oct/ramses-oct); one JSON per case in OUT_DIR.
# Ordered from most to least important; about 100 s in total on the H200 node.
set -euo pipefail
BUILD_DIR=${1:?usage: h200.sh BUILD_DIR OUT_DIR}
OUT_DIR=${2:?usage: h200.sh BUILD_DIR OUT_DIR}
APP="$BUILD_DIR/ramses-oct/ramses-oct"
mkdir -p "$OUT_DIR"
STEPS=20
VARIANTS="fused subgrid8 subgrid6"

run() {  # run NAME ARGS...: one case, JSON to OUT_DIR/NAME.json, human output to stdout
  local name=$1
  shift
  echo "### $name: $*"
  "$APP" --quiet --json "$OUT_DIR/$name.json" "$@" || echo "### $name: exit code $?"
}

# (a) the seed's table: Sedov 32^3..256^3, GPU-resident and host-resident, every variant, FP64.
for n in 256 128 64 32; do
  for v in $VARIANTS; do
    run "sedov-$n-$v-resident" --problem sedov --n "$n" --steps $STEPS --warmup 2 --backend cuda --variant "$v"
    run "sedov-$n-$v-host-resident" --problem sedov --n "$n" --steps $STEPS --warmup 2 --backend cuda --variant "$v" --host-resident
  done
done

# (b) 512^3 (134M cells) resident with the default (best expected) variant.
run "sedov-512-fused-resident" --problem sedov --size large --steps $STEPS --warmup 2 --backend cuda --variant fused

# (c) block-size sweep at 256^3 (the seed's figure: time per step against threads per block).
for v in fused subgrid8; do
  run "sweep-256-$v" --problem sedov --n 256 --steps 10 --warmup 2 --backend cuda --variant "$v" \
    --sweep 64,96,128,160,192,256,384,512
done
run "sweep-256-subgrid6" --problem sedov --n 256 --steps 10 --warmup 2 --backend cuda --variant subgrid6 \
  --sweep 32,64,96,128,192,256

# (d) the CPU column: OpenMP on the host's 16 cores, a few steps each.
for n in 32 64 128 256; do
  steps=5
  [ "$n" -le 64 ] && steps=10
  run "sedov-$n-openmp" --problem sedov --n "$n" --steps $steps --warmup 1 --backend openmp --threads 16
done
