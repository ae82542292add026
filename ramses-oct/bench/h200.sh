#!/usr/bin/env bash
# ramses-oct H200 benchmarks. Usage: bench/h200.sh BUILD_DIR OUT_DIR
# BUILD_DIR: a CUDA build (binary at BUILD_DIR/ramses-oct/ramses-oct); one JSON per case in OUT_DIR
# (and its human output in OUT_DIR/NAME.txt). Ordered from most to least important; about 90 s
# on the H200 node. Ends with the seed-table comparison (ms per step) read from the human output.
set -euo pipefail
BUILD_DIR=${1:?usage: h200.sh BUILD_DIR OUT_DIR}
OUT_DIR=${2:?usage: h200.sh BUILD_DIR OUT_DIR}
APP="$BUILD_DIR/ramses-oct/ramses-oct"
mkdir -p "$OUT_DIR"
STEPS=20
BEST=balanced

run() {  # run NAME ARGS...: one case, JSON to OUT_DIR/NAME.json, human output to stdout and NAME.txt
  local name=$1
  [[ -z "${COPA_BENCH_CASES:-}" || "$name" =~ $COPA_BENCH_CASES ]] || return 0  # gpu-check --bench-cases
  shift
  echo "### $name: $*"
  "$APP" --quiet --json "$OUT_DIR/$name.json" "$@" 2>&1 | tee "$OUT_DIR/$name.txt" || echo "### $name: exit code $?"
}

# (0) the z-marching variants (zmarch, zmarch-col and its reg-cap=80 tuning) next to the best tile
# variant, Sedov 256^3 and 128^3 resident, 512^3, and block-size sweeps.
ZM="zmarch zmarch-col zmarch-col:reg-cap=80"
zm_args() {  # zm_args NAME[:TUNING]: the --variant (and --tuning) arguments of a z-march case
  local v=${1%%:*}
  if [[ $1 == *:* ]]; then echo "--variant $v --tuning ${1#*:}"; else echo "--variant $v"; fi
}
zm_name() { echo "${1/:reg-cap=/-regcap}"; }
for n in 256 128; do
  for v in $ZM; do
    # shellcheck disable=SC2046
    run "sedov-$n-$(zm_name "$v")-resident" --problem sedov --n "$n" --steps $STEPS --warmup 2 --backend cuda $(zm_args "$v")
  done
done
for v in $ZM; do
  # shellcheck disable=SC2046
  run "sedov-512-$(zm_name "$v")-resident" --problem sedov --size large --steps 10 --warmup 2 --backend cuda $(zm_args "$v")
done
run "sweep-256-zmarch" --problem sedov --n 256 --steps 8 --warmup 2 --backend cuda --variant zmarch \
  --sweep 64,96,128,192,256
run "sweep-256-zmarch-col" --problem sedov --n 256 --steps 8 --warmup 2 --backend cuda --variant zmarch-col \
  --sweep 64,96,128,160

# (a) the seed's table: Sedov 32^3..256^3, FP64. Every tile variant GPU-resident; the new design
# also host-resident (the seed's way: the grid copied in and out every step).
for n in 256 128 64 32; do
  for v in $BEST subgrid8 subgrid6 fused; do
    run "sedov-$n-$v-resident" --problem sedov --n "$n" --steps $STEPS --warmup 2 --backend cuda --variant "$v"
  done
  for v in $BEST; do
    run "sedov-$n-$v-host-resident" --problem sedov --n "$n" --steps $STEPS --warmup 2 --backend cuda --variant "$v" \
      --host-resident
  done
done

# (b) 512^3 (134M cells, 11.4 GB on the device) resident with the best variant.
run "sedov-512-$BEST-resident" --problem sedov --size large --steps 10 --warmup 2 --backend cuda --variant $BEST

# (c) block-size sweep at 256^3 (the seed's figure: time per step against threads per block).
run "sweep-256-$BEST" --problem sedov --n 256 --steps 8 --warmup 2 --backend cuda --variant $BEST \
  --sweep 64,96,128,160,192,224,256

# (d) the CPU column: OpenMP on the host's 16 cores, a few steps each.
for n in 32 64 128 256; do
  steps=4
  [ "$n" -le 64 ] && steps=10
  run "sedov-$n-openmp" --problem sedov --n "$n" --steps $steps --warmup 1 --backend openmp --threads 16
done

# Summary: median ms of a row of a case's human table ("-" when absent).
row() { awk -v k="$2" '$1 == k { print $3; found = 1 } END { if (!found) print "-" }' "$OUT_DIR/$1.txt" 2>/dev/null || echo "-"; }
echo
echo "### seed table (Grace Hopper, host-resident) against ramses-oct on the H200, ms per step"
printf '%-6s | %-17s | %-26s | %-17s | %-27s | %-23s | %-16s\n' cells "H2D seed/ours" \
  "integration seed/$BEST/s8" "D2H seed/ours" "GPU total seed/host-res/res" "resident s8/s6/fused" "CPU seed/OpenMP"
declare -A SEED=([32]="0.0409 0.0362 0.0241 0.101 1.16" [64]="0.156 0.156 0.0983 0.410 5.94"
  [128]="0.978 1.15 0.694 2.82 32.67" [256]="4.74 8.96 5.44 19.1 197.49")
for n in 32 64 128 256; do
  read -r sh si sd st sc <<<"${SEED[$n]}"
  hr="sedov-$n-$BEST-host-resident"
  printf '%-6s | %-17s | %-26s | %-17s | %-27s | %-23s | %-16s\n' "$n^3" "$sh/$(row "$hr" h2d)" \
    "$si/$(row "sedov-$n-$BEST-resident" hydro_update)/$(row "sedov-$n-subgrid8-resident" hydro_update)" \
    "$sd/$(row "$hr" d2h)" "$st/$(row "$hr" step)/$(row "sedov-$n-$BEST-resident" step)" \
    "$(row "sedov-$n-subgrid8-resident" step)/$(row "sedov-$n-subgrid6-resident" step)/$(row "sedov-$n-fused-resident" step)" \
    "$sc/$(row "sedov-$n-openmp" step)"
done
echo "512^3 $BEST resident step: $(row "sedov-512-$BEST-resident" step) ms (target at 256^3: <= 3.4 ms per step)"
echo "### zmarch against $BEST, resident step ms (128^3 / 256^3 / 512^3)"
for v in $BEST $ZM; do
  echo "$v: $(row "sedov-128-$v-resident" step) / $(row "sedov-256-$v-resident" step) / $(row "sedov-512-$v-resident" step)"
done
