#!/usr/bin/env bash
# laghos-like distributed scaling (README "Distributed runs"). Usage: bench/dist.sh BUILD OUT NRANKS
# BUILD: a CUDA + MPI build (cmake --preset cuda-mpi; binary at BUILD/laghos-like/laghos-like).
# 3D Sedov Q2Q1, RK2Avg, 20 steps (verified by total-energy conservation, as --size large), Laghos's
# performance commands of the README (-p 1 -dim 3 -nx N -ny N -nz N, N = 44 and 88):
#   strong: N^3 zones on 1 and NRANKS ranks, for each N of LAGHOS_DIST_N (default "44 88");
#   weak: N^3 zones per rank (--zones-per-rank, Laghos -epm), N = the first of LAGHOS_DIST_N; its
#   one-rank baseline is the strong N^3 run (on one rank --zones-per-rank N^3 is the same mesh).
# LAGHOS_DIST_OVERLAP: "both" (default: every multi-rank run plain and again with --overlap, which is
# a no-op on one rank, so the one-rank baselines serve both), 0 (plain only) or 1 (--overlap only).
# LAGHOS_DIST_BACKEND (default cuda) and LAGHOS_DIST_N (e.g. 6) make a CPU smoke run.
# Order (what a short budget keeps): plain runs first (strong and weak at the first N, then the
# larger N), the --overlap runs last; transports ipc, nccl, host, cuda-aware. A transport this build
# or machine cannot use exits 2 (or is known unavailable from gpu-check-dist's probe) and is listed
# as skipped with the reason; runs past the campaign's budget (COPA_DEADLINE, scripts/dist-bench.sh)
# are skipped or stopped and listed so. One JSON and one log per run in OUT (the log ends with the
# run's wall time), and OUT/scaling.md: ranks, grid, zones, FOM (Laghos's major-kernels rate, global
# dofs over the slowest rank's time), efficiency FOM_p / (p FOM_1) (= T1 / (p Tp) strong,
# T1(N) / Tp(pN) weak), communication fraction (run.decomposition.comm_fraction), verdict, wall time.
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
read -r -a SIZES <<< "${LAGHOS_DIST_N:-44 88}"
BACKEND=${LAGHOS_DIST_BACKEND:-cuda}
OVERLAP=${LAGHOS_DIST_OVERLAP:-both}
case "$OVERLAP" in 0) MODES=(plain) ;; 1) MODES=(overlap) ;; both) MODES=(plain overlap) ;;
  *) echo "dist.sh: LAGHOS_DIST_OVERLAP must be 0, 1 or both, not '$OVERLAP'" >&2; exit 2 ;; esac
APP="$BUILD/laghos-like/laghos-like"
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
source "$(dirname "$0")/../../scripts/dist-bench.sh"
COMMON=(--backend "$BACKEND" --problem 1 --dim 3 --ode rk2avg --max-steps 20 --tf 10 --quiet)
# One variant on 1 and on NRANKS ranks: the CUDA default differs between them (one rank: lean;
# over ranks: block, README "Variants"), and the efficiency must compare the same kernels.
case "$BACKEND" in cuda | hip) COMMON+=(--variant block --tuning layout=xy --tuning mass=atomic) ;; esac
TRANSPORTS=(ipc nccl host cuda-aware)
[[ "$BACKEND" == cuda || "$BACKEND" == hip ]] || TRANSPORTS=(host)

# Seconds per run on the H200s: 4 s of mpirun and CUDA start-up, 2 s more over ranks, and the set-up
# and 20 steps at about 1 s per 85,184 zones of a rank. Measured on two H200s
# (results/h200-x2/20261128): 44^3 2.6 s on one GPU, 2.5-3.5 s on two; 88^3 13.2 s on one, 8.9 s on two.
estimate() {  # zones per rank, ranks
  echo $((4 + $1 * 12 / 851840 + ($2 > 1 ? 2 : 0)))
}

multi_rank() {  # multi_rank MODE N: the NRANKS-rank runs at N^3 (plain or --overlap), weak too at the first N
  local mode=$1 n=$2 z=$(($2 * $2 * $2)) tr flag=() suffix=""
  local order=("${TRANSPORTS[@]}")
  # --overlap: ipc first, the transport it gains most with (README "Overlap"), then nccl and host.
  [[ $mode == overlap ]] && { flag=(--overlap); suffix="-overlap"; order=(ipc nccl host cuda-aware); }
  [[ "$BACKEND" == cuda || "$BACKEND" == hip ]] || order=(host)
  for tr in "${order[@]}"; do
    dist_run "strong$n-$NRANKS-$tr$suffix" "$NRANKS" "$tr" "$(estimate $((z / NRANKS)) "$NRANKS")" --nx "$n" "${flag[@]}"
    [[ $n == "${SIZES[0]}" ]] &&
      dist_run "weak$n-$NRANKS-$tr$suffix" "$NRANKS" "$tr" "$(estimate "$z" "$NRANKS")" --zones-per-rank "$z" "${flag[@]}"
  done
}

for n in "${SIZES[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "dist.sh: LAGHOS_DIST_N takes positive integers, not '$n'" >&2; exit 2; }
done
for n in "${SIZES[@]}"; do
  dist_run "strong$n-1" 1 host "$(estimate $((n * n * n)) 1)" --nx "$n"
  [[ " ${MODES[*]} " == *" plain "* ]] && multi_rank plain "$n"
done
if [[ " ${MODES[*]} " == *" overlap "* ]]; then
  for n in "${SIZES[@]}"; do multi_rank overlap "$n"; done
fi

PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(dirname "$0")/../../scripts" /usr/bin/python3 - "$OUT" "$NRANKS" "${SIZES[0]}" <<'PY' | tee "$OUT/scaling.md"
import glob, json, os, re, sys
from dist_table import RunDir
out, p, weak_n = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs = RunDir(out)
order = {"ipc": 0, "nccl": 1, "host": 2, "cuda-aware": 3}
def key(name):
    m = re.match(r"(strong|weak)(\d+)-(\d+)(?:-([a-z-]+?))?(-overlap)?$", name)
    mode, n, ranks, tr, ov = m.groups()
    return (int(n), mode != "strong", int(ranks), bool(ov), order.get(tr or "", -1))
names = sorted((os.path.basename(f)[:-4] for f in glob.glob(os.path.join(out, "*.log"))
                if re.match(r"(strong|weak)\d+-\d+", os.path.basename(f))), key=key)
print("| run | ranks | grid | zones | overlap | FOM (megadofs x steps / s) | efficiency | comm fraction | verdict | wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name in names:
    mode, n = re.match(r"(strong|weak)(\d+)", name).groups()
    one = runs.load(f"strong{n}-1")
    d = runs.load(name)
    wall, why = runs.log_info(name)
    if d is None:
        print(f"| {name} | | | | | skipped: {why} | | | | {wall} |")
        continue
    ranks = d["run"].get("mpi_ranks", 1)
    dec = d["run"].get("decomposition") or {}
    grid = dec.get("ranks", [1])
    fom = d["fom"]["value"]
    eff = fom / (ranks * one["fom"]["value"]) if one else float("nan")
    comm = dec.get("comm_fraction")
    comm = f"{comm:.3f}" if comm is not None else "-"
    verdict = "PASSED" if d["verification"]["passed"] else "FAILED"
    print(f"| {name} | {ranks} | {'x'.join(map(str, grid))} | {d['run']['problem']['zones']:.0f} | {'yes' if dec.get('overlap') else 'no'} | "
          f"{fom:.4g} | {eff:.3f} | {comm} | {verdict} | {wall} |")
print(f"\nEfficiency: FOM_p / (p FOM_1) against strongN-1 of the same N (weak{weak_n}: strong{weak_n}-1, the same "
      "mesh on one rank), = T1 / (p Tp) strong and T1(N) / Tp(pN) weak. --overlap is a no-op on one rank.")
PY
