#!/usr/bin/env bash
# ramses-oct distributed scaling (README "Distributed runs"). Usage: bench/dist.sh BUILD OUT NRANKS
# BUILD: a CUDA + MPI build (cmake --preset cuda-mpi; binary at BUILD/ramses-oct/ramses-oct).
# Sedov, FP64, periodic, 20 steps (2 warm-up: medians over 18 timed steps), variant balanced on a GPU
# (zmarch runs on one rank only, so the one-rank baseline uses the same kernel as the distributed runs):
#   strong: N^3 on 1 and NRANKS ranks;  weak: N^3 per rank, the x axis grown to N * ranks (its
#   one-rank baseline is the strong one: the same N^3 run).
# N = 256; RAMSES_DIST_N and RAMSES_DIST_BACKEND (default cuda) override them for a CPU smoke run.
# Every transport is tried; one this build or machine cannot use (nccl with ranks sharing a GPU,
# cuda-aware without a CUDA-aware MPI) exits 2, or is known unavailable from gpu-check-dist's probe,
# and is listed as skipped with the reason. Runs past the campaign's budget (COPA_DEADLINE,
# scripts/dist-bench.sh) are skipped or stopped and listed so. One JSON and one log per run in OUT
# (the log ends with the run's wall time), and OUT/scaling.md: ranks, time per step (max over
# ranks), compute max/mean, halo, allreduce, comm fraction, FOM, efficiency (strong T1/(p Tp), weak
# T1/Tp), verdict, wall time.
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
N=${RAMSES_DIST_N:-256}
BACKEND=${RAMSES_DIST_BACKEND:-cuda}
APP="$BUILD/ramses-oct/ramses-oct"
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
source "$(dirname "$0")/../../scripts/dist-bench.sh"
COMMON=(--problem sedov --steps 20 --warmup 2 --backend "$BACKEND" --quiet)
case "$BACKEND" in cuda | hip) COMMON+=(--variant balanced) ;; esac
# Seconds per run on two H200s (results/h200-x2/20261124/x2.log: 5 s per 256^3 run, start-up
# included; nccl's communicator set-up adds about 3 s), scaled with the cells per rank.
EST=$((4 + N * N * N / 16777216 * 2))

run() {  # run NAME RANKS TRANSPORT ARGS...
  local name=$1 np=$2 tr=$3
  shift 3
  echo "### $name: $np ranks, transport $tr: $*"
  dist_unavailable "$tr" "$OUT/$name.log" && return
  dist_timed "$EST" "$OUT/$name.log" "${MPIRUN[@]}" -np "$np" "$APP" "${COMMON[@]}" --transport "$tr" \
    --json "$OUT/$name.json" "$@"
  local rc=$?
  [ $rc -eq 0 ] || { echo "### $name: exit code $rc (skipped)"; tail -3 "$OUT/$name.log"; rm -f "$OUT/$name.json"; }
}

run strong-1 1 host --n "$N"
for tr in ipc nccl host cuda-aware; do
  run "strong-$NRANKS-$tr" "$NRANKS" "$tr" --n "$N"
  run "weak-$NRANKS-$tr" "$NRANKS" "$tr" --nx $((N * NRANKS)) --ny "$N" --nz "$N"
done

PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(dirname "$0")/../../scripts" /usr/bin/python3 - "$OUT" "$NRANKS" <<'PY' | tee "$OUT/scaling.md"
import json, os, re, sys
from dist_table import RunDir
out, nranks = sys.argv[1], int(sys.argv[2])
runs = RunDir(out)
print("| mode | transport | ranks | step max (ms) | compute max / mean (ms) | halo (ms) | allreduce (ms) | comm fraction | FOM (cell updates/s) | efficiency | verdict | wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
base = runs.load("strong-1")
t1 = base["rank_times"]["step_median_s"]["max"] if base else None
for mode in ("strong", "weak"):
    for tr in ("ipc", "nccl", "host", "cuda-aware"):
        for p, name in ((1, "strong-1"), (nranks, f"{mode}-{nranks}-{tr}")):
            if p == 1 and tr != "ipc":
                continue
            d = runs.load(name)
            wall, why = runs.log_info(name)
            if d is None:
                print(f"| {mode} | {tr} | {p} | skipped: {why} | | | | | | | | {wall} |")
                continue
            rt = d["rank_times"]
            step = rt["step_median_s"]["max"]
            comp = rt["compute_median_s"]
            halo = rt["halo_exchange_median_s"]["max"]
            allr = rt["allreduce_median_s"]["max"]
            eff = (t1 / (p * step) if mode == "strong" else t1 / step) if t1 else float("nan")
            verdict = "PASSED" if d["verification"]["passed"] else "FAILED"
            print(f"| {mode} | {d['run'].get('transport') or tr} | {p} | {step*1e3:.3f} | {comp['max']*1e3:.3f} / {comp['mean']*1e3:.3f} | "
                  f"{halo*1e3:.3f} | {allr*1e3:.3f} | {(halo + allr) / step:.3f} | {d['fom']['value']:.3e} | {eff:.3f} | {verdict} | {wall} |")
print(f"\nOne-rank baseline of both modes: strong-1 ({'%.3f ms per step' % (t1 * 1e3) if t1 else 'missing'}). "
      "Efficiency: strong T1 / (p Tp), weak T1 / Tp (N^3 per rank). Times: medians over the timed steps, the slowest rank's.")
PY
