#!/usr/bin/env bash
# The P-Flow step (rebucketing + number density) of the CUDA default, fine-lean-cellrows, under
# its tunings: step=launches (default) or graph (the step's kernels replayed as one graph), and
# blocks-per-sm=5 (default), 6 or 8 (the density kernel's register bound): the tank at 0.22M
# particles and the 10M case. Each run times the rows rebucket and number-density alone and the
# two in one region (end_to_end(...)). The 0.22M default and graph runs are made twice, first and
# last, so that a drift of the machine shows as a difference between the two runs of one setting.
# About two minutes on an H200.
# Usage: bench/cellrows-tunings.sh BUILD_DIR OUT_DIR   (BUILD_DIR from the cuda preset)
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output dir}
BIN="$BUILD/mps-density/mps-density"
mkdir -p "$OUT"
run() {  # name, then arguments
  local name=$1
  shift
  echo "=== mps-density $name: $*"
  "$BIN" "$@" --quiet --json "$OUT/$name.json" || echo "mps-density $name: exit code $?"
}
TANK=(--case pflow --backend cuda --variant fine-lean-cellrows --warmup 5 --reps 50)
MEDIUM=(--case pflow --size medium --backend cuda --variant fine-lean-cellrows --warmup 2 --reps 10)
START=$SECONDS
run pflow-default-1 "${TANK[@]}"
run pflow-graph-1 "${TANK[@]}" --tuning step=graph
run pflow-blocks6 "${TANK[@]}" --tuning blocks-per-sm=6
run pflow-blocks8 "${TANK[@]}" --tuning blocks-per-sm=8
run pflow-graph-blocks6 "${TANK[@]}" --tuning step=graph --tuning blocks-per-sm=6
run pflow-graph-blocks8 "${TANK[@]}" --tuning step=graph --tuning blocks-per-sm=8
run pflow-graph-fused "${TANK[@]}" --tuning step=graph --rebucket fused
run pflow-default-2 "${TANK[@]}"
run pflow-graph-2 "${TANK[@]}" --tuning step=graph
echo "=== mps-density 0.22M: $((SECONDS - START)) s"
run medium-default "${MEDIUM[@]}"
run medium-graph "${MEDIUM[@]}" --tuning step=graph
run medium-blocks6 "${MEDIUM[@]}" --tuning blocks-per-sm=6
run medium-blocks8 "${MEDIUM[@]}" --tuning blocks-per-sm=8
echo "=== mps-density cellrows tunings: $((SECONDS - START)) s"

echo "=== run: rebucket us, density us, their sum us, one region us, evaluations/s (density), N / one region"
for f in "$OUT"/*.json; do
  python3 - "$f" <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
m = d.get("mps", {})
if "step_seconds_median" in m:
    tb, td, ts = m["rebucket_seconds_median"], m["density_seconds_median"], m["step_seconds_median"]
    print(f"{sys.argv[1].split('/')[-1]:<28} {tb*1e6:9.1f} {td*1e6:9.1f} {(tb+td)*1e6:9.1f} {ts*1e6:9.1f} "
          f"{m['evaluations_per_second']:10.3e} {m['evaluations_per_second_step']:10.3e}")
PY
done
