#!/usr/bin/env bash
# mom-efie over MPI ranks (README, "Distributed matrix"): the large sphere (N = 30,720, ka = 2) on
# one rank (the single-GPU path: cuSOLVER zgetrf on the whole matrix) and on NRANKS ranks (the
# block-cyclic 1 x NRANKS matrix, owned-entry fill, the Pliris-style LU) for each panel-broadcast
# transport; ranks share the GPUs where there are fewer. Every run is verified against Mie (and the
# owned entries against the serial formula). A transport this build or machine cannot use (nccl
# with ranks sharing a GPU, cuda-aware without a CUDA-aware MPI) exits 2 and is reported as skipped. Writes OUT/mom-efie-*.json, *.log and OUT/scaling.md.
# Usage: bench/dist.sh BUILD_DIR OUT_DIR NRANKS   (BUILD_DIR from the cuda-mpi preset; called by
# scripts/gpu-check-dist)
set -uo pipefail
BUILD=${1:?usage: dist.sh BUILD OUT NRANKS}
OUT=${2:?usage: dist.sh BUILD OUT NRANKS}
NRANKS=${3:?usage: dist.sh BUILD OUT NRANKS}
BIN="$BUILD/mom-efie/mom-efie"
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on these machines (DISTRIBUTED.md)
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE --mca btl_vader_single_copy_mechanism cma)
run() {  # name, ranks, then arguments
  local name=$1 ranks=$2
  shift 2
  echo "=== mom-efie $name ($ranks ranks): $*"
  "${MPIRUN[@]}" -np "$ranks" "$BIN" "$@" --json "$OUT/mom-efie-$name.json" > "$OUT/mom-efie-$name.log" 2>&1 \
    || echo "mom-efie $name: exit code $? (skipped or failed: $(grep -m1 error "$OUT/mom-efie-$name.log"))"
  grep -E "^LU:|FOM|VERIFICATION|NOT VERIFIED" "$OUT/mom-efie-$name.log"
}
COMMON=(--size large --backend cuda --warmup 1 --reps 3)
run large-1rank 1 "${COMMON[@]}"
for tr in host ipc nccl cuda-aware; do
  run "large-${NRANKS}ranks-$tr" "$NRANKS" "${COMMON[@]}" --transport "$tr"
done
# The issue's "largest N on the GPUs, end to end", only with a GPU per rank: ka = 2 at 176
# elements per wavelength is the sphere of f = 64 (N = 122,880: 121 GB of matrix per rank
# on two ranks, refused with exit 3 where it does not fit); one run, ipc.
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ "$NRANKS" -ge 2 && "$GPUS" -ge "$NRANKS" ]]; then
  run "xlarge-${NRANKS}ranks-ipc" "$NRANKS" --ka 2 --elements-per-wavelength 176 --backend cuda --warmup 0 --reps 1 --transport ipc
fi

# OUT/scaling.md: one row per run that wrote its JSON (times: medians, MAX over ranks).
python3 - "$OUT" "$NRANKS" <<'PY' > "$OUT/scaling.md"
import glob, json, os, sys
out, nranks = sys.argv[1], sys.argv[2]
print(f"# mom-efie distributed scaling (N = 30,720 on 1 and {nranks} ranks; xlarge: the largest run)\n")
print("| run | N | ranks | transport | grid | fill (ms) | LU (ms) | LU TFLOP/s | solve (ms) | end to end (ms) | "
      "broadcast per panel (ms) | broadcast total (ms) | RMS dB vs Mie | verdict |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
one = None
for path in sorted(glob.glob(os.path.join(out, "mom-efie-*large-*.json"))):
    d = json.load(open(path))
    run, mom = d["run"], d.get("mom", {})
    k = {r["name"]: r for r in d.get("kernels", [])}
    def ms(name):
        r = k.get(name)
        return f'{1e3 * r["time_s"]["median"]:.1f}' if r else "-"
    e2e = next((n for n in k if n.startswith("end_to_end")), "")
    dist = mom.get("distributed") or {}
    grid = (run.get("decomposition") or {}).get("ranks", "1x1")
    per_panel = f'{1e3 * dist["panel_broadcast_seconds_mean"]:.2f}' if dist else "-"
    all_panels = f'{1e3 * dist["panel_broadcast_seconds_total"]:.1f}' if dist else "-"
    verdict = "PASSED" if d.get("verification", {}).get("passed") else "FAILED"
    name = os.path.basename(path)[len("mom-efie-"):-len(".json")]
    print(f'| {name} | {run["problem"]["unknowns"]} | {run.get("mpi_ranks", 1)} | {run.get("transport") or "-"} | {grid} | {ms("fill")} | {ms("lu")} | '
          f'{mom.get("lu_tflops", 0):.2f} | {ms("solve")} | {ms(e2e)} | {per_panel} | {all_panels} | '
          f'{mom.get("rms_db_error", float("nan")):.4f} | {verdict} |')
print("\nLU TFLOP/s: (8/3) N^3 real FLOPs over the slowest rank's LU time. Broadcast: rank 0's host-clock time "
      "per panel after a device synchronise (host transport: D2H + MPI_Bcast + H2D). Runs that are missing were "
      "skipped (see their .log).")
PY
cat "$OUT/scaling.md"
exit 0
