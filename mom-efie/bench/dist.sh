#!/usr/bin/env bash
# mom-efie over MPI ranks (README, "More than one MPI rank"): the PEC sphere at ka = 2
# on one rank and on NRANKS ranks, for every process grid P x Q with P Q = NRANKS, the Pliris-style
# LU with every panel-broadcast transport and ScaLAPACK (CPU ranks), at a fixed N and at the largest
# N that fits. Every run is verified against Mie (and the owned entries against the serial formula).
#
#   fixed N (--size, default large: N = 30,720): one rank, then per grid the Pliris-style LU with
#     each transport (GPU backends: host ipc nccl cuda-aware; CPU backends: host) and ScaLAPACK
#     (--dist-lu scalapack on CPU ranks: --backend openmp for a GPU backend; only where the build has
#     ScaLAPACK, which the GPU machines do not). A run the app refuses (exit 2: nccl on P > 1 or on
#     ranks sharing a GPU, cuda-aware without a CUDA-aware MPI, no ScaLAPACK) is listed as skipped
#     with the app's reason.
#   largest N: grids 1 x NRANKS and the squarest P x Q with P > 1, transport ipc (host on CPU
#     backends), and one rank for the efficiency; only with a GPU per rank (GPU backends). The sphere
#     of frequency f has N = 30 f^2 unknowns; f starts at the largest the app's own per-rank estimate
#     allows in the free memory (gpu_dist_device_bytes / require_rank_memory, copied below) and goes
#     down by one while the app refuses it (exit 3, before it allocates), at most 4 times.
#     --max-frequency caps f (the CPU check of the script); --largest-grids "1x8 2x4" replaces the
#     grids. P > 1 factors each panel on the host (README): at the largest N a 2D grid's LU is
#     bounded by the host panels (about 2 N^2 nb / P host FLOPs in all), so --timeout S (per run,
#     exit 124: listed as timed out) keeps a slow run from taking the node's whole budget.
#   Order (what a short budget keeps): one rank at the fixed N; the 1 x Q grids (panels on the GPU);
#   the largest N on the grids; the P > 1 grids at the fixed N, with a GPU backend without a warm-up
#   LU (host panels: a minute or more per LU, estimated); the largest N on one rank (the baseline of
#   the largest-N efficiency, the least asked for) last. A transport known
#   unavailable from gpu-check-dist's probe is listed as skipped with that reason without a launch;
#   runs past the campaign's budget (COPA_DEADLINE, scripts/dist-bench.sh) are skipped or stopped and
#   listed so. Every log ends with the run's wall time.
#
# Writes OUT/mom-efie-*.json, *.log, *.rc and OUT/scaling.md: per run N, grid, transport, LU time
# (median, slowest rank), LU TFLOP/s, and the efficiency against one rank: TFLOP/s over (ranks x one
# rank's TFLOP/s at the same N; at the largest N: one rank's own largest N), which at a fixed N is
# T1 / (p Tp).
# Usage: bench/dist.sh BUILD_DIR OUT_DIR NRANKS [--backend cuda|serial|openmp] [--size small|medium|large]
#                      [--max-frequency F] [--largest-grids "PxQ ..."] [--reps R (default 1, after 1 warm-up)]
#                      [--timeout S]
# (BUILD_DIR from the cuda-mpi preset, called by scripts/gpu-check-dist; or from the mpi preset with
# --backend serial for a CPU check of the script.)
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS [--backend B] [--size S] [--max-frequency F] [--reps R]}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
shift 3
BACKEND=cuda SIZE=large MAXF=0 REPS=1 LARGEST_GRIDS="" TIMEOUT=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --backend) BACKEND=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --max-frequency) MAXF=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --largest-grids) LARGEST_GRIDS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    *) echo "dist.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ "$NRANKS" =~ ^[1-9][0-9]*$ ]] || { echo "dist.sh: NRANKS must be a positive integer, not '$NRANKS'" >&2; exit 2; }
[[ "$MAXF" =~ ^[0-9]+$ && "$REPS" =~ ^[1-9][0-9]*$ && "$TIMEOUT" =~ ^[0-9]+$ ]] ||
  { echo "dist.sh: --max-frequency, --reps and --timeout take integers" >&2; exit 2; }
case "$BACKEND" in
  cuda|hip) GPU=1; TRANSPORTS=(ipc nccl host cuda-aware); BEST=ipc; SCALAPACK_BACKEND=openmp ;;
  serial|openmp) GPU=0; TRANSPORTS=(host); BEST=host; SCALAPACK_BACKEND=$BACKEND ;;
  *) echo "dist.sh: --backend must be cuda, hip, serial or openmp, not '$BACKEND'" >&2; exit 2 ;;
esac
BIN="$BUILD/mom-efie/mom-efie"
[[ -x "$BIN" ]] || { echo "dist.sh: no mom-efie executable in $BUILD" >&2; exit 2; }
mkdir -p "$OUT"
source "$(dirname "$0")/../../scripts/mpirun-args.sh"
source "$(dirname "$0")/../../scripts/dist-bench.sh"
THREADS=()
[[ $GPU -eq 0 ]] && THREADS=(--threads 1)  # CPU ranks: one thread each

EST=15  # seconds the next run is expected to take (the budget check of scripts/dist-bench.sh)
run() {  # name, ranks, then arguments; the exit code goes to OUT/mom-efie-NAME.rc
  local name=$1 ranks=$2 rc a tr="" prev=""
  shift 2
  echo "=== mom-efie $name ($ranks ranks): $*"
  for a in "$@"; do [[ $prev == --transport ]] && tr=$a; prev=$a; done
  if [[ -n "$tr" ]] && dist_unavailable "$tr" "$OUT/mom-efie-$name.log"; then
    echo 2 > "$OUT/mom-efie-$name.rc"
    return 2
  fi
  dist_timed "$EST" "$OUT/mom-efie-$name.log" timeout "$TIMEOUT" "${MPIRUN[@]}" -np "$ranks" "$BIN" "$@" \
    --json "$OUT/mom-efie-$name.json"
  rc=$?
  echo "$rc" > "$OUT/mom-efie-$name.rc"
  [[ $rc -ne 0 ]] && { rm -f "$OUT/mom-efie-$name.json"; echo "mom-efie $name: exit code $rc: $(grep -m1 -i -E "error|skipped|budget" "$OUT/mom-efie-$name.log")"; }
  grep -E "^LU:|FOM|VERIFICATION|NOT VERIFIED" "$OUT/mom-efie-$name.log"
  return $rc
}

# Grids P x Q with P Q = NRANKS; the squarest with P > 1 (P <= Q, P largest) for the largest N.
GRIDS=() SQUAREST=""
for ((p = 1; p <= NRANKS; ++p)); do
  if ((NRANKS % p == 0)); then
    GRIDS+=("${p}x$((NRANKS / p))")
    ((p > 1 && p * p <= NRANKS)) && SQUAREST="${p}x$((NRANKS / p))"
  fi
done
[[ -z "$SQUAREST" && $NRANKS -gt 1 ]] && SQUAREST="${NRANKS}x1"  # a prime rank count: the only 2D grid is P = NRANKS

COMMON=(--backend "$BACKEND" "${THREADS[@]}" --warmup 1 --reps "$REPS")
# Estimates on the H200s (seconds, start-up included): N = 30,720 fill 0.06 s and LU 1.85 s on one
# GPU (results/h200/mom-efie), so a run of warm-up + reps LUs ~15 s; a P > 1 grid factors each panel
# on the host (about 2 N^2 nb / P host FLOPs per LU, single-threaded inner blocks): ~60 s per LU
# assumed; the largest N on one GPU (~90,000: LU ~46 s at 42 TFLOP/s) ~70 s, on 1 x NRANKS GPUs
# (N ~ 127,000 on two) ~110 s. Not measured: no distributed GPU run exists yet.
fixed_grid() {  # the fixed-N runs of one grid: the Pliris-style LU per transport, then ScaLAPACK
  local grid=$1 tr args=("${COMMON[@]}")
  EST=$((10 + 3 * (1 + REPS)))
  # P > 1 with a GPU backend: no warm-up LU (the host panels, not the first call's library set-up,
  # dominate its time; a warm-up would double a run of a minute or more).
  ((${grid%x*} > 1 && GPU)) && { args=(--backend "$BACKEND" --warmup 0 --reps "$REPS"); EST=$((10 + 60 * REPS)); }
  for tr in "${TRANSPORTS[@]}"; do
    run "fixed-pliris-$grid-$tr" "$NRANKS" --size "$SIZE" "${args[@]}" --dist-lu pliris --proc-grid "$grid" --transport "$tr"
  done
  EST=15
  run "fixed-scalapack-$grid-host" "$NRANKS" --size "$SIZE" --backend "$SCALAPACK_BACKEND" --threads 1 --warmup 1 --reps "$REPS" \
    --dist-lu scalapack --proc-grid "$grid" --transport host
}
# Order (what a short budget keeps): one rank; the 1 x Q grids (panels on the GPU); the largest N;
# the P > 1 grids (panels on the host) last.
EST=$((10 + 2 * (1 + REPS)))
run "fixed-1rank" 1 --size "$SIZE" "${COMMON[@]}"
if [[ $NRANKS -gt 1 ]]; then
  for grid in "${GRIDS[@]}"; do [[ ${grid%x*} -eq 1 ]] && fixed_grid "$grid"; done
fi

# The largest sphere frequency f whose per-rank bytes fit: the GPU engine's estimate
# (dist_lu_gpu.cu, gpu_dist_device_bytes) in the smallest free GPU memory, the host engine's
# (dist_run.cpp, require_rank_memory) in MemAvailable / ranks; one rank on the GPU: 16 N^2 plus the
# panel workspace and problem data, as the multi-rank estimate with a 1 x 1 grid. nb: 512 (GPU), 64.
largest_frequency() {  # ranks P Q
  local avail
  if [[ $GPU -eq 1 ]]; then
    avail=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | sort -n | head -1)
    avail=$((avail * 1048576))
  else
    avail=$(awk -v r="$1" '/MemAvailable/ {printf "%d", $2 * 1024 / r}' /proc/meminfo)
  fi
  /usr/bin/python3 - "$avail" "$2" "$3" "$GPU" "$MAXF" <<'PY'
import math, sys
avail, P, Q, gpu, maxf = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", int(sys.argv[5])
nb = 512 if gpu else 64
def numroc_max(n, procs):  # the largest local extent of n over procs in blocks of nb (process 0's)
    return -(-(-(-n // nb)) // procs) * nb
def fits(f):
    n, tris = 30 * f * f, 20 * f * f
    lld, lc = min(numroc_max(n, P), n), min(numroc_max(n, Q), n)
    if gpu:
        ublock = 3 * 16.0 * nb * (lc + 1) if P > 1 else 0.0
        need = 16.0 * lld * lc + 4 * 16.0 * n * nb + 16.0 * n + 300.0 * n + 64 * 2**20 + ublock
    else:
        need = 16.0 * lld * lc + 8.0 * (lld + nb) + 2048.0 * tris
    return need <= avail
f = 1
while fits(f + 1) and (maxf == 0 or f + 1 <= maxf):
    f += 1
print(f)
PY
}
# The sphere of frequency f at ka = 2, radius 1: --edge-length h with ceil(1.08 chord / h) = f
# (mesh.cpp, sphere_frequency_for_edge; chord = 1 / sin(72 deg)).
edge_for() { /usr/bin/python3 -c "import math; print(f'{1.08 / math.sin(2 * math.pi / 5) / ($1 - 0.5):.12g}')"; }

run_largest() {  # name, ranks, P, Q, then arguments
  local name=$1 ranks=$2 f tries
  f=$(largest_frequency "$ranks" "$3" "$4")
  shift 4
  for ((tries = 0; tries < 5; ++tries)); do
    run "$name" "$ranks" --ka 2 --edge-length "$(edge_for "$f")" "$@" && return 0
    [[ $(cat "$OUT/mom-efie-$name.rc") -eq 3 && $f -gt 1 ]] || return 1
    echo "mom-efie $name: f = $f refused by the app's estimate, trying f = $((f - 1))"
    f=$((f - 1))
  done
  return 1
}
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ $GPU -eq 0 || $GPUS -ge $NRANKS ]]; then
  LARGE=(--backend "$BACKEND" "${THREADS[@]}" --warmup 0 --reps 1)
  if [[ $NRANKS -gt 1 ]]; then
    [[ -z "$LARGEST_GRIDS" ]] && LARGEST_GRIDS="1x$NRANKS $([[ "$SQUAREST" != "1x$NRANKS" ]] && echo "$SQUAREST")"
    for grid in $LARGEST_GRIDS; do
      [[ "$grid" =~ ^[1-9][0-9]*x[1-9][0-9]*$ && $((${grid%x*} * ${grid#*x})) -eq $NRANKS ]] ||
        { echo "dist.sh: --largest-grids: '$grid' is not a PxQ grid of $NRANKS ranks" >&2; continue; }
      EST=$((GPU ? (${grid%x*} > 1 ? 300 : 110) : 15))
      run_largest "largest-pliris-$grid-$BEST" "$NRANKS" "${grid%x*}" "${grid#*x}" "${LARGE[@]}" --dist-lu pliris --proc-grid "$grid" \
        --transport "$BEST"
    done
  fi
else
  echo "largest N: skipped ($NRANKS ranks on $GPUS GPU(s): the largest N wants a GPU per rank)" | tee "$OUT/largest-skipped.txt"
fi

if [[ $NRANKS -gt 1 ]]; then
  for grid in "${GRIDS[@]}"; do [[ ${grid%x*} -gt 1 ]] && fixed_grid "$grid"; done
fi
if [[ $GPU -eq 0 || $GPUS -ge $NRANKS ]]; then
  EST=$((GPU ? 70 : 15))
  run_largest "largest-1rank" 1 1 1 "${LARGE[@]}"
fi

# OUT/scaling.md: one row per run that wrote its JSON (times: medians, the slowest rank's), the
# skipped runs with the app's reason.
/usr/bin/python3 - "$OUT" "$NRANKS" "$BACKEND" <<'PY' > "$OUT/scaling.md"
import glob, json, os, re, sys
out, nranks, backend = sys.argv[1], sys.argv[2], sys.argv[3]
def load(name):
    path = os.path.join(out, f"mom-efie-{name}.json")
    return json.load(open(path)) if os.path.exists(path) else None
print(f"# mom-efie distributed scaling: {nranks} ranks, --backend {backend}\n")
print("| run | LU | N | ranks | grid | transport | fill (ms) | LU (ms) | LU TFLOP/s | efficiency vs 1 rank | "
      "broadcast per panel (ms) | interchanges (ms) | U12 (ms) | RMS dB vs Mie | wall (s) | verdict |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
ones = {"fixed": load("fixed-1rank"), "largest": load("largest-1rank")}
skipped = []
names = sorted(os.path.basename(p)[len("mom-efie-"):-len(".rc")] for p in glob.glob(os.path.join(out, "mom-efie-*.rc")))
names.sort(key=lambda n: (not n.startswith("fixed"), "1rank" not in n, n))
for name in names:
    d = load(name)
    log = open(os.path.join(out, f"mom-efie-{name}.log"), errors="replace").read().splitlines()
    wall = next((m.group(1) for l in log for m in [re.search(r"copa-dist: wall_s=([0-9.]+)", l)] if m), "")
    if d is None:
        rc = open(os.path.join(out, f"mom-efie-{name}.rc")).read().strip()
        why = ("stopped after " + wall + " s (--timeout or the campaign's deadline)" if rc == "124" else
               next((l for l in log if re.search(r"error|skipped|budget", l, re.I) and not l.startswith("copa-dist:")),
                    log[-1] if log else "no output"))
        skipped.append(f"- {name}: exit {rc}: {why.strip()}")
        continue
    run, mom = d["run"], d.get("mom", {})
    k = {r["name"]: r for r in d.get("kernels", [])}
    def ms(key):
        r = k.get(key)
        return f'{1e3 * r["time_s"]["median"]:.1f}' if r else "-"
    dist = mom.get("distributed") or {}
    dec = run.get("decomposition") or {}
    grid = "x".join(str(g) for g in dec.get("grid", [1, 1]))
    ranks = int(run.get("mpi_ranks", 1) or 1)
    tf = mom.get("lu_tflops", 0.0)
    one = ones["largest" if name.startswith("largest") else "fixed"]
    eff = "-"
    if one and one.get("mom", {}).get("lu_tflops"):
        eff = f'{100 * tf / (ranks * one["mom"]["lu_tflops"]):.0f} %'
    def sec(key, scale=1e3, fmt="{:.2f}"):
        return fmt.format(scale * dist[key]) if key in dist else "-"
    lu = mom.get("lu_method", "-")
    lu = "ScaLAPACK" if "ScaLAPACK" in lu else ("Pliris-style" if "Pliris" in lu else ("one-rank LU" if ranks == 1 else lu))
    verdict = "PASSED" if d.get("verification", {}).get("passed") else "FAILED"
    print(f'| {name} | {lu} | {run["problem"]["unknowns"]} | {ranks} | {grid} | {run.get("transport") or "-"} | {ms("fill")} | '
          f'{ms("lu")} | {tf:.3f} | {eff} | {sec("panel_broadcast_seconds_mean")} | {sec("interchange_seconds_total")} | '
          f'{sec("ublock_broadcast_seconds_total")} | {mom.get("rms_db_error", float("nan")):.4f} | {wall} | {verdict} |')
print("\nLU TFLOP/s: (8/3) N^3 real FLOPs over the slowest rank's median LU time. Efficiency: LU TFLOP/s over (ranks x one "
      "rank's LU TFLOP/s at the same N; largest-N rows: one rank's own largest N), at a fixed N T1 / (p Tp). Broadcast: "
      "rank 0's time per panel; interchanges and U12: rank 0's total over the factorisation (P > 1 only).")
if skipped:
    print("\n## Skipped or failed runs (the app's reason)\n")
    print("\n".join(skipped))
PY
cat "$OUT/scaling.md"
exit 0
