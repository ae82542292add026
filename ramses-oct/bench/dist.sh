#!/usr/bin/env bash
# ramses-oct distributed scaling (README "Distributed runs"). Usage: bench/dist.sh BUILD OUT NRANKS
# BUILD: a CUDA + MPI build (cmake --preset cuda-mpi; binary at BUILD/ramses-oct/ramses-oct).
# Sedov, FP64, periodic, 20 steps (2 warm-up), variant balanced everywhere (zmarch runs on one rank
# only, so the one-rank baseline uses the same kernel as the distributed runs):
#   strong: 256^3 on 1 and NRANKS ranks;  weak: 256^3 per rank, the x axis grown to 256 * ranks.
# Every transport is tried; one this build or machine cannot use (nccl with ranks sharing a GPU,
# cuda-aware without a CUDA-aware MPI) exits 2 and is listed as skipped. One JSON and one log per
# run in OUT, and OUT/scaling.md: ranks, time per step (max over ranks), compute max/mean, halo,
# allreduce, comm fraction, FOM, efficiency (strong T1/(p Tp), weak T1/Tp).
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
APP="$BUILD/ramses-oct/ramses-oct"
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
COMMON=(--problem sedov --steps 20 --warmup 2 --backend cuda --variant balanced --quiet)

run() {  # run NAME RANKS TRANSPORT ARGS...
  local name=$1 np=$2 tr=$3
  shift 3
  echo "### $name: $np ranks, transport $tr: $*"
  "${MPIRUN[@]}" -np "$np" "$APP" "${COMMON[@]}" --transport "$tr" \
    --json "$OUT/$name.json" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "### $name: exit code $rc (skipped)"; tail -2 "$OUT/$name.log"; rm -f "$OUT/$name.json"; }
}

run strong-1 1 host --n 256
run weak-1 1 host --n 256
for tr in host ipc nccl cuda-aware; do
  run "strong-$NRANKS-$tr" "$NRANKS" "$tr" --n 256
  run "weak-$NRANKS-$tr" "$NRANKS" "$tr" --nx $((256 * NRANKS)) --ny 256 --nz 256
done

/usr/bin/env python3 - "$OUT" "$NRANKS" <<'PY' | tee "$OUT/scaling.md"
import json, os, sys
out, nranks = sys.argv[1], int(sys.argv[2])
def load(name):
    p = os.path.join(out, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
print("| mode | transport | ranks | step max (ms) | compute max / mean (ms) | halo (ms) | allreduce (ms) | comm fraction | FOM (cell updates/s) | efficiency |")
print("|---|---|---|---|---|---|---|---|---|---|")
for mode in ("strong", "weak"):
    base = load(f"{mode}-1")
    t1 = base["rank_times"]["step_median_s"]["max"] if base else None
    for tr in ("host", "ipc", "nccl", "cuda-aware"):
        for p, name in ((1, f"{mode}-1"), (nranks, f"{mode}-{nranks}-{tr}")):
            d = load(name)
            if p == 1 and tr != "host":
                continue
            if d is None:
                print(f"| {mode} | {tr} | {p} | skipped (see {name}.log) | | | | | | |")
                continue
            rt = d["rank_times"]
            step = rt["step_median_s"]["max"]
            comp = rt["compute_median_s"]
            halo = rt["halo_exchange_median_s"]["max"]
            allr = rt["allreduce_median_s"]["max"]
            eff = (t1 / (p * step) if mode == "strong" else t1 / step) if t1 else float("nan")
            print(f"| {mode} | {d['run'].get('transport') or tr} | {p} | {step*1e3:.3f} | {comp['max']*1e3:.3f} / {comp['mean']*1e3:.3f} | "
                  f"{halo*1e3:.3f} | {allr*1e3:.3f} | {(halo + allr) / step:.3f} | {d['fom']['value']:.3e} | {eff:.3f} |")
PY
