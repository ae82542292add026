#!/usr/bin/env bash
# mps-density over MPI ranks (README, "Distributed runs"), one rank against NRANKS ranks (one GPU
# each; ranks share the GPUs where there are fewer) per ghost-fill transport (ipc, nccl, host,
# cuda-aware), the P-Flow tank scaled by --particles at the same l0, variant fine-lean on a GPU:
#   density, strong: 100M particles (the large size) and 10M (medium), 20 reps after 3 (100M: 10
#     after 2), the density row and the halo_exchange row;
#   density, weak: 10M particles per rank (--particles 10M x NRANKS; baseline: the 10M one-rank run);
#   density at P-Flow's own 224,910 particles (latency-bound: the ghost fill is a large share);
#   simulation mode at P-Flow's tank, 12 steps, --cg-tol 1e-12 (ghost refresh on the device, migration
#     through the host, README "Simulation mode over ranks").
# Every multi-rank run checks itself against one rank: rank 0 gathers the densities (or the state)
# and recomputes the whole set-up alone (the "one-rank check" line; that costs rank 0 one more
# evaluation, and every rank builds the whole set-up on the host: the set-up, not the GPU work,
# dominates a run's wall time at 100M). A transport this build or machine cannot use exits 2 (or is
# known unavailable from gpu-check-dist's probe) and is listed as skipped with the reason; runs past
# the campaign's budget (COPA_DEADLINE, scripts/dist-bench.sh) are skipped or stopped and listed so.
# Order (what a short budget keeps): 10M strong and weak, 0.22M density, simulation, 100M strong
# last (its runs are the longest: ~30 s each, mostly host set-up).
# MPS_DIST_BACKEND (default cuda), MPS_DIST_PARTICLES ("LARGE MEDIUM", default "100000000
# 10000000"; at least the tank's 224910) and MPS_DIST_SIM_STEPS (default 12; a serial step of the
# tank takes ~35 s on a CI core) make a CPU smoke run.
# One JSON and one log per run in OUT (the log ends with the run's wall time), and OUT/scaling.md.
# Usage: bench/dist.sh BUILD_DIR OUT_DIR NRANKS   (BUILD_DIR from the cuda-mpi preset; called by
# scripts/gpu-check-dist)
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
BACKEND=${MPS_DIST_BACKEND:-cuda}
read -r LARGE MEDIUM <<< "${MPS_DIST_PARTICLES:-100000000 10000000}"
[[ "$LARGE" =~ ^[0-9]+$ && "$MEDIUM" =~ ^[0-9]+$ ]] ||
  { echo "dist.sh: MPS_DIST_PARTICLES must be two particle counts, 'LARGE MEDIUM'" >&2; exit 2; }
BIN="$BUILD/mps-density/mps-density"
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
source "$(dirname "$0")/../../scripts/dist-bench.sh"
TRANSPORTS=(ipc nccl host cuda-aware) VARIANT=(--variant fine-lean)
# One variant on 1 and on NRANKS ranks: the CUDA default differs between them (one rank:
# fine-lean-cellrows; over ranks: fine-lean, README "Strategies"), and the efficiency must compare
# the same kernels.
[[ "$BACKEND" == cuda || "$BACKEND" == hip ]] || TRANSPORTS=(host) VARIANT=()

# Seconds per run (the GPU work is small: 10M density 2.6 ms, 100M 26 ms): 4 s of start-up, the host
# set-up that every rank repeats (0.25 s per million particles), and on NRANKS ranks rank 0's one-rank
# check, 0.5 s per million. Measured on two H200s (results/h200-x2/20261128): 10M 5.2 s on one rank,
# 8.8-9.4 s on two; 20M on two 17.0 s; so 100M on two ranks is expected at ~80 s.
estimate() {  # particles, ranks
  echo $((4 + $1 / 4000000 + ($2 > 1 ? $1 / 2000000 + 1 : 0)))
}

run() {  # run NAME RANKS TRANSPORT PARTICLES ARGS...
  local name=$1 np=$2 tr=$3 n=$4
  shift 4
  echo "=== mps-density $name ($np ranks, transport $tr): $*"
  dist_unavailable "$tr" "$OUT/$name.log" && return
  dist_timed "$(estimate "$n" "$np")" "$OUT/$name.log" "${MPIRUN[@]}" -np "$np" "$BIN" --backend "$BACKEND" \
    "${VARIANT[@]}" --transport "$tr" "$@" --json "$OUT/$name.json"
  local rc=$?
  [ $rc -eq 0 ] || { echo "mps-density $name: exit code $rc (skipped)"; tail -3 "$OUT/$name.log"; rm -f "$OUT/$name.json"; }
  grep -E "^FOM|VERIFICATION|NOT VERIFIED|one-rank check" "$OUT/$name.log"
}

density() {  # density NAME PARTICLES REPS WARMUP RANKS TRANSPORT
  run "$1-$5${6:+-$6}" "$5" "${6:-host}" "$2" --case pflow --particles "$2" --reps "$3" --warmup "$4"
}
density_all() {  # density_all NAME PARTICLES REPS WARMUP (one rank, then NRANKS ranks per transport)
  density "$@" 1 ""
  for tr in "${TRANSPORTS[@]}"; do density "$@" "$NRANKS" "$tr"; done
}

density_all density-medium "$MEDIUM" 20 3
for tr in "${TRANSPORTS[@]}"; do density weak-medium $((MEDIUM * NRANKS)) 20 3 "$NRANKS" "$tr"; done
density_all density-tank 224910 20 3
SIM_STEPS=${MPS_DIST_SIM_STEPS:-12}
[[ "$SIM_STEPS" =~ ^[1-9][0-9]*$ ]] || { echo "dist.sh: MPS_DIST_SIM_STEPS must be a positive integer" >&2; exit 2; }
SIM=(--case pflow --mode simulation --steps "$SIM_STEPS" --cg-tol 1e-12)
run sim-tank-1 1 host 224910 "${SIM[@]}"
for tr in "${TRANSPORTS[@]}"; do run "sim-tank-$NRANKS-$tr" "$NRANKS" "$tr" 224910 "${SIM[@]}"; done
density_all density-large "$LARGE" 10 2

PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(dirname "$0")/../../scripts" /usr/bin/python3 - "$OUT" "$NRANKS" <<'PY' | tee "$OUT/scaling.md"
import glob, json, os, re, sys
from dist_table import RunDir
from copasuite.scaling import efficiency, whole_step_seconds
out, p = sys.argv[1], int(sys.argv[2])
runs = RunDir(out)
def row_median(d, name):
    r = next((k for k in d.get("kernels", []) if k["name"] == name), None)
    return r["time_s"]["median"] if r else 0.0
order = {"ipc": 0, "nccl": 1, "host": 2, "cuda-aware": 3, None: -1}
groups = [("density-medium", "strong", "density-medium-1"), ("weak-medium", "weak", "density-medium-1"),
          ("density-large", "strong", "density-large-1"), ("density-tank", "strong", "density-tank-1"),
          ("sim-tank", "strong", "sim-tank-1")]
print("| run | mode | ranks | particles | time (ms) | halo (ms) | comm fraction | imbalance | FOM | step efficiency | kernel-only efficiency | one-rank check | verdict | wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for prefix, mode, base in groups:
    names = [os.path.basename(f)[:-4] for f in glob.glob(os.path.join(out, prefix + "-*.log"))]
    names.sort(key=lambda n: (int(n.split("-")[2]), order.get(n.split("-", 3)[3] if n.count("-") >= 3 else None, 9)))
    one = runs.load(base)
    for name in names:
        d = runs.load(name)
        wall, why = runs.log_info(name)
        if d is None:
            print(f"| {name} | {mode} | | | skipped: {why} | | | | | | | | | {wall} |")
            continue
        ranks = d["run"].get("mpi_ranks", 1) or 1
        dec = d["run"].get("decomposition") or {}
        mps = d.get("mps", {})
        sim = prefix.startswith("sim")
        has_halo = any(k["name"] == "halo_exchange" for k in d.get("kernels", []))
        if sim:
            # Time per step: global particle-steps over the FOM. The simulation's ghost refreshes are
            # inside its operator rows (no halo_exchange row), so no comm fraction is given.
            t = mps["particles"] / d["fom"]["value"]
            halo = frac = None
        else:
            t = mps["density_seconds_median"]
            halo = row_median(d, "halo_exchange") if has_halo else None
            rebucket = mps.get("rebucket_seconds_median", 0.0)
            frac = halo / (t + rebucket + halo) if has_halo else None
        eff = d["fom"]["value"] / (ranks * one["fom"]["value"]) if one else float("nan")
        # The whole step (rebucket + density + halo rows; the simulation's FOM is its whole step).
        step_eff = eff if sim else efficiency(mode, ranks, whole_step_seconds(one["kernels"]) if one else None,
                                              whole_step_seconds(d["kernels"]))
        step_eff = "-" if step_eff is None else f"{step_eff:.3f}"
        chk = mps.get("one_rank_check") or {}
        chk = ("%.1e" % chk.get("max_rel_difference", chk.get("max_rel_front_difference", float("nan")))) if chk else "-"
        imb = dec.get("imbalance")
        halo = "-" if halo is None else f"{halo*1e3:.3f}"
        frac = "-" if frac is None else f"{frac:.3f}"
        print(f"| {name} | {mode} | {ranks} | {mps.get('particles', 0)} | {t*1e3:.3f} | {halo} | {frac} | "
              f"{'%.3f' % imb if imb is not None else '-'} | {d['fom']['value']:.3e} {d['fom']['unit']} | {step_eff} | {eff:.3f} | {chk} | "
              f"{ {True: 'PASSED', False: 'FAILED'}.get(d['verification'].get('passed'), 'NOT VERIFIED')} | {wall} |")
print("\nTime: density mode the density row's median (slowest rank); simulation the time per step (particles over the FOM). "
      "Comm fraction: density mode halo / (halo + rebucket + density) medians (the simulation's ghost refreshes are inside its operator rows: not given). "
      "Step efficiency: the whole step, rebucket + density + halo rows (strong T1 / (p Tp); weak T1 / Tp against the 10M one-rank run). "
      "Kernel-only efficiency: FOM_p / (p FOM_1), the density row alone. "
      "One-rank check: rank 0's rerun alone, max relative difference (density; simulation: the surge front).")
PY
exit 0
