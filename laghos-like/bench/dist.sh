#!/usr/bin/env bash
# laghos-like distributed scaling (README "Distributed runs"). Usage: bench/dist.sh BUILD OUT NRANKS
# BUILD: a CUDA + MPI build (cmake --preset cuda-mpi; binary at BUILD/laghos-like/laghos-like).
# 3D Sedov Q2Q1, RK2Avg, 20 steps (verified by total-energy conservation, as --size large):
#   strong: N^3 zones on 1 and NRANKS ranks;  weak: N^3 zones per rank (--zones-per-rank, Laghos -epm).
# N = 44 (the large size); LAGHOS_DIST_N and LAGHOS_DIST_BACKEND override it and the backend (cuda),
# for a CPU smoke run. Every transport is tried; one this build or machine cannot use exits 2 and is
# listed as skipped. One JSON and one log per run in OUT, and OUT/scaling.md: ranks, FOM (Laghos's
# major-kernels rate, global dofs over the slowest rank's time) and efficiency FOM_p / (p FOM_1)
# (= T1 / (p Tp) strong, T1(N) / Tp(pN) weak), and the communication fraction (run.decomposition.comm_fraction).
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
N=${LAGHOS_DIST_N:-44}
BACKEND=${LAGHOS_DIST_BACKEND:-cuda}
APP="$BUILD/laghos-like/laghos-like"
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
COMMON=(--backend "$BACKEND" --problem 1 --dim 3 --ode rk2avg --max-steps 20 --tf 10 --quiet)
# One variant on 1 and on NRANKS ranks: the GPU default differs between them (one rank:
# block-xy-atomic-qlean-flean on CUDA; over ranks: block-xy-atomic, README "Variants"), and the
# efficiency must compare the same kernels.
case "$BACKEND" in cuda | hip) COMMON+=(--variant block-xy-atomic) ;; esac
# LAGHOS_DIST_OVERLAP=1: every run with --overlap (a no-op on one rank), to compare with a plain OUT.
[ "${LAGHOS_DIST_OVERLAP:-0}" = 1 ] && COMMON+=(--overlap)

run() {  # run NAME RANKS TRANSPORT ARGS...
  local name=$1 np=$2 tr=$3
  shift 3
  echo "### $name: $np ranks, transport $tr: $*"
  "${MPIRUN[@]}" -np "$np" "$APP" "${COMMON[@]}" --transport "$tr" \
    --json "$OUT/$name.json" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "### $name: exit code $rc (skipped)"; tail -2 "$OUT/$name.log"; rm -f "$OUT/$name.json"; }
}

run strong-1 1 host --nx "$N"
run weak-1 1 host --zones-per-rank $((N * N * N))
for tr in host ipc nccl cuda-aware; do
  run "strong-$NRANKS-$tr" "$NRANKS" "$tr" --nx "$N"
  run "weak-$NRANKS-$tr" "$NRANKS" "$tr" --zones-per-rank $((N * N * N))
done

/usr/bin/env python3 - "$OUT" "$NRANKS" <<'PY' | tee "$OUT/scaling.md"
import json, os, sys
out, p = sys.argv[1], int(sys.argv[2])
def load(name):
    path = os.path.join(out, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None
print("| run | ranks | grid | zones | FOM (megadofs x steps / s) | efficiency | comm fraction | verdict |")
print("|---|---|---|---|---|---|---|---|")
for mode in ("strong", "weak"):
    one = load(mode + "-1")
    names = [mode + "-1"] + [f"{mode}-{p}-{tr}" for tr in ("host", "ipc", "nccl", "cuda-aware")]
    for name in names:
        d = load(name)
        if d is None:
            print(f"| {name} | | | | skipped | | | |")
            continue
        ranks = d["run"].get("mpi_ranks", 1)
        grid = (d["run"].get("decomposition") or {}).get("ranks", [1])
        fom = d["fom"]["value"]
        eff = fom / (ranks * one["fom"]["value"]) if one else float("nan")
        comm = (d["run"].get("decomposition") or {}).get("comm_fraction")
        comm = f"{comm:.3f}" if comm is not None else "-"
        print(f"| {name} | {ranks} | {'x'.join(map(str, grid))} | {d['run']['problem']['zones']:.0f} | {fom:.4g} | "
              f"{eff:.3f} | {comm} | {d['verification']['passed']} |")
PY
