#!/usr/bin/env bash
# Does low precision pay off for the method of moments? usage: bench/precision-study.sh BUILD OUT
# (CUDA build; sized for about 2-3 minutes on one H200, not yet timed there).
# For every ka (1, 2, 4, 8), mesh density (10, 20 elements per wavelength) and formulation (efie,
# cfie, mfie: the sphere is closed) the PEC sphere is solved with every --solver irs-* (GMRES
# refinement, fallback on); each run also solves the same matrix with the FP64 LU, so one JSON
# holds both times, both residuals, the solution and RCS errors against the LU, both dB errors
# against Mie and the condition estimate. Classical refinement is added for the EFIE at 10 per
# wavelength. The largest case (ka 8, 20 per wavelength, about 28,000 unknowns) runs without the
# MFIE and without a warm-up. OUT gets one JSON per run, precision-study.log,
# precision-study.json (the table) and precision-study.png (time to solution and errors per
# precision against N, and the condition estimates).
# Overrides for a smoke test on a CPU build: BACKEND=openmp SOLVERS=irs-fp32 REFINEMENTS=classical
# KAS="1" DENSITIES="10" FORMULATIONS="efie".
set -euo pipefail
BUILD=${1:?usage: precision-study.sh BUILD OUT}
OUT=${2:?usage: precision-study.sh BUILD OUT}
APP="$BUILD/mom-efie/mom-efie"
HERE=$(cd "$(dirname "$0")" && pwd)
BACKEND=${BACKEND:-cuda}
SOLVERS=${SOLVERS:-irs-fp32 irs-tf32 irs-fp16 irs-bf16}
REFINEMENTS=${REFINEMENTS:-$([[ "$BACKEND" == cuda ]] && echo gmres || echo classical)}
KAS=${KAS:-1 2 4 8}
DENSITIES=${DENSITIES:-10 20}
FORMULATIONS=${FORMULATIONS:-efie cfie mfie}
mkdir -p "$OUT"
LOG="$OUT/precision-study.log"
: > "$LOG"
start=$(date +%s)

# run NAME ARGS...: one run; a failed verdict (exit 1, e.g. the MFIE's accuracy) or a refusal is
# logged with its exit code and the study goes on.
run() {
  local name=$1
  shift
  echo "== $name: $*" >> "$LOG"
  local rc=0
  "$APP" --backend "$BACKEND" --reps 1 "$@" --json "$OUT/$name.json" >> "$LOG" 2>&1 || rc=$?
  echo "== $name: exit $rc" >> "$LOG"
  echo "$name exit $rc"
}

for ka in $KAS; do
  for epw in $DENSITIES; do
    big=0
    if [[ "$ka" == 8 && "$epw" == 20 ]]; then big=1; fi
    for f in $FORMULATIONS; do
      if [[ $big == 1 && "$f" == mfie ]]; then continue; fi
      refinements=$REFINEMENTS
      if [[ "$f" == efie && "$epw" == 10 && "$BACKEND" == cuda ]]; then refinements="gmres classical"; fi
      for s in $SOLVERS; do
        for r in $refinements; do
          refine=()
          if [[ "$BACKEND" == cuda ]]; then refine=(--refinement "$r"); fi
          run "ka${ka}_epw${epw}_${f}_${s}_${r}" --ka "$ka" --elements-per-wavelength "$epw" --formulation "$f" \
            --solver "$s" "${refine[@]}" --warmup $((1 - big))
        done
      done
    done
  done
done
echo "runs took $(( $(date +%s) - start )) s" | tee -a "$LOG"
/usr/bin/python3 "$HERE/precision_study.py" "$OUT"
