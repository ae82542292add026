#!/usr/bin/env bash
# The P-Flow step (rebucketing + number density) of the CUDA default, fine-lean-cellrows, with its
# launches as they are (--tuning step=launches) and replayed as one graph (--tuning
# step=graph, the default): the tank at 0.22M particles and the 10M case. Each run times the rows
# rebucket and number-density alone and the two in one region (end_to_end(...)); the 0.22M runs
# alternate launches, graph, launches, graph, so that a drift of the machine shows as a
# difference between the two runs of one setting. About a minute on an H200.
# Usage: bench/step-graph.sh BUILD_DIR OUT_DIR   (BUILD_DIR from the cuda preset)
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
for round in 1 2; do
  run "pflow-launches-$round" "${TANK[@]}" --tuning step=launches
  run "pflow-graph-$round" "${TANK[@]}" --tuning step=graph
done
run pflow-graph-fused "${TANK[@]}" --tuning step=graph --rebucket fused
run medium-launches "${MEDIUM[@]}" --tuning step=launches
run medium-graph "${MEDIUM[@]}" --tuning step=graph
echo "=== mps-density step-graph: $((SECONDS - START)) s"

echo "=== run: rebucket us, density us, sum us, one region us, evaluations/s (density), N / one region"
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
