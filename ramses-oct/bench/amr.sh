#!/usr/bin/env bash
# ramses-oct AMR benchmarks. Usage: bench/amr.sh BUILD_DIR OUT_DIR [THREADS] [BACKENDS]
# BUILD_DIR: a build with OpenMP, with CUDA for the GPU cases. Sedov to t = 0.05 on base 32^3 + 2
# levels (128^3 finest), OpenMP and GPU (device step and state; host tree), against the uniform 128^3 runs
# (OpenMP; GPU zmarch, named: the AMR goal is set against the uniform zmarch rate, while zmarch-col is
# the CUDA default): time to solution, the leaf-cell update rate against the uniform
# cell-update rate, the step's medians (step, dt_reduction, and on the GPU hydro_update+reflux+restriction),
# and the regrid cost (its own row; its parts regrid.* on the GPU in the --phase-timing runs). GPU also: base 64^3 + 2 levels (256^3
# finest) for 200 steps with a regrid every 4 (rates only), against the uniform 256^3 run; and both
# AMR runs again with --subcycle (level subcycling on the device: the 32^3 + 2 run to t = 0.05,
# the 64^3 + 2 run for 50 coarse steps, each of which advances the finest level by 4 substeps),
# against the global dt: time to solution, and "step" is then one coarse step.
# The two GPU AMR cases again with --phase-timing (cases *-phases; events between the device
# step's phases: rows amr.*, in a second table of amr.md; their step rows carry the events' cost).
# The two global-dt GPU AMR cases again with --tuning group-min=8 (cases *-groupmin8: complete sibling
# groups only; the other GPU cases run the default group-min, 3) and with group-min 1, 2, 4, 5, 6
# (cases *-groupminK: a second or so each) to check the default; the table gives each case's
# group_min and sibling_group_share (the leaf octs updated in groups).
# With the device dt a step's row times its launch and the wait for the step before it, so the step
# MEDIAN is not a step's time: compare the step mean (steps_s / steps) and the FOM. regrid_fallbacks: regrids whose queued
# plan build was redone with exact sizes.
# BACKENDS "cuda-large" (not in the default; about 2.5 min on an H200, 28 GB of host memory): the
# scale-up at 512^3 finest, Sedov to t = 0.05 on base 128^3 + 2 levels and base 64^3 + 3 levels
# (--max-octs 8000000, 3.2x the 2.5M octs used: the default, full refinement, would ask 51 GB of host
# memory for the tree and the verdict mesh),
# the 128^3 + 2 run again with --phase-timing, the same for its first 1000 steps (the base level
# dominates there), and uniform 512^3 zmarch for 200 steps (its rate; a run to t = 0.05 would take
# over 3 min).
# BACKENDS "cuda-buffer" (not in the default; about 3 min on an H200): the regrid interval against the
# buffer at 512^3 finest: Sedov to t = 0.05 on base 128^3 + 2
# levels with (--regrid-every, --refine-buffer) = (2, 1) (the defaults), (4, 2), (6, 3) and (8, 4), and
# base 64^3 + 3 levels with (4, 2); the table's "regrid every, buffer" and "verification value" (the Sedov radius error) columns
# (a feature stays on the finest level for about 2 buffer / C steps, C = 0.8 the Courant number).
# One JSON and one log per case in OUT_DIR, then OUT_DIR/amr.md.
# BACKENDS (default "openmp cuda"): "cuda" alone skips the OpenMP cases (minutes on a few cores).
set -euo pipefail
BUILD_DIR=${1:?usage: amr.sh BUILD_DIR OUT_DIR [THREADS] [BACKENDS]}
OUT_DIR=${2:?usage: amr.sh BUILD_DIR OUT_DIR [THREADS] [BACKENDS]}
THREADS=${3:-16}
BACKENDS=${4:-openmp cuda}
APP="$BUILD_DIR/ramses-oct/ramses-oct"
mkdir -p "$OUT_DIR"
has_cuda=false
"$APP" --list 2>/dev/null | grep -q cuda && has_cuda=true

run() {  # run NAME ARGS...
  local name=$1
  shift
  echo "### $name: $*"
  "$APP" --quiet --json "$OUT_DIR/$name.json" "$@" 2>&1 | tee "$OUT_DIR/$name.txt" || echo "### $name: exit code $?"
}

if [[ " $BACKENDS " == *" openmp "* ]]; then
  run amr-sedov-32-l2-openmp --problem sedov --n 32 --levels 2 --backend openmp --threads "$THREADS"
  run uniform-sedov-128-openmp --problem sedov --n 128 --backend openmp --threads "$THREADS"
fi
if [[ " $BACKENDS " == *" cuda "* ]] && $has_cuda; then
  run amr-sedov-32-l2-cuda --problem sedov --n 32 --levels 2 --backend cuda
  run uniform-sedov-128-cuda --problem sedov --n 128 --backend cuda --variant zmarch
  run amr-sedov-64-l2-regrid4-cuda-200steps --problem sedov --n 64 --levels 2 --regrid-every 4 --steps 200 --backend cuda
  run amr-sedov-32-l2-cuda-groupmin8 --problem sedov --n 32 --levels 2 --backend cuda --tuning group-min=8
  run amr-sedov-64-l2-regrid4-cuda-200steps-groupmin8 --problem sedov --n 64 --levels 2 --regrid-every 4 --steps 200 \
    --backend cuda --tuning group-min=8
  for k in 1 2 4 5 6; do
    run amr-sedov-32-l2-cuda-groupmin$k --problem sedov --n 32 --levels 2 --backend cuda --tuning group-min=$k
    run amr-sedov-64-l2-regrid4-cuda-200steps-groupmin$k --problem sedov --n 64 --levels 2 --regrid-every 4 \
      --steps 200 --backend cuda --tuning group-min=$k
  done
  run amr-sedov-32-l2-cuda-subcycle --problem sedov --n 32 --levels 2 --subcycle --backend cuda
  run amr-sedov-64-l2-regrid4-cuda-subcycle-50steps --problem sedov --n 64 --levels 2 --regrid-every 4 --steps 50 \
    --subcycle --backend cuda
  run uniform-sedov-256-cuda-200steps --problem sedov --n 256 --steps 200 --backend cuda --variant zmarch
  run amr-sedov-32-l2-cuda-phases --problem sedov --n 32 --levels 2 --backend cuda --phase-timing
  run amr-sedov-64-l2-regrid4-cuda-200steps-phases --problem sedov --n 64 --levels 2 --regrid-every 4 --steps 200 \
    --backend cuda --phase-timing
fi
# 512^3 finest: --max-octs 8000000 (see cuda-large above).
large=(--problem sedov --max-octs 8000000 --backend cuda)
if [[ " $BACKENDS " == *" cuda-large "* ]] && $has_cuda; then
  run amr-sedov-128-l2 --n 128 --levels 2 "${large[@]}"
  run amr-sedov-64-l3 --n 64 --levels 3 "${large[@]}"
  run amr-sedov-128-l2-phases --n 128 --levels 2 "${large[@]}" --phase-timing
  run amr-sedov-128-l2-phases-1000steps --n 128 --levels 2 "${large[@]}" --phase-timing --steps 1000
  run uniform-sedov-512-200steps --problem sedov --n 512 --steps 200 --backend cuda --variant zmarch
fi
if [[ " $BACKENDS " == *" cuda-buffer "* ]] && $has_cuda; then
  for rb in 2:1 4:2 6:3 8:4; do
    run "amr-sedov-128-l2-regrid${rb%:*}-buffer${rb#*:}" --n 128 --levels 2 "${large[@]}" \
      --regrid-every "${rb%:*}" --refine-buffer "${rb#*:}"
  done
  run amr-sedov-64-l3-regrid4-buffer2 --n 64 --levels 3 "${large[@]}" --regrid-every 4 --refine-buffer 2
fi

python3 - "$OUT_DIR" <<'PY'
import json, os, sys
out = sys.argv[1]
rows, phase_rows = [], []
phases = ["amr.ghosts", "amr.update", "amr.reflux+finest_restriction", "amr.coarser_restrictions+scan"]
for name in sorted(os.listdir(out)):
    if not name.endswith(".json"):
        continue
    j = json.load(open(os.path.join(out, name)))
    kern = {k["name"]: k for k in j.get("kernels", [])}
    amr = j["run"]["problem"].get("amr")
    at = j.get("amr_time", {})
    step = kern.get("step", {}).get("time_s", {}).get("median", float("nan"))
    steps = j["run"]["problem"]["steps"]
    total = at.get("time_to_solution_s", step * steps)
    mean = "%.3f" % (at["steps_s"] / steps * 1e3) if "steps_s" in at and steps else "-"
    med = lambda n: kern[n]["time_s"]["median"] * 1e3
    ms = lambda n: "%.3f" % med(n) if n in kern else "-"
    parts = ", ".join("%s %.2f" % (n[len("regrid."):], med(n)) for n in kern if n.startswith("regrid."))
    rows.append((name[:-5], j["run"].get("backend", "?"), steps, amr["leaf_cells"] if amr else "-",
                 amr["max_leaf_cells"] if amr else "-", j["fom"]["value"],
                 "%.3g" % at["leaf_cell_rate_with_regrid_per_s"] if "leaf_cell_rate_with_regrid_per_s" in at else "-", ms("step"), mean, ms("dt_reduction"),
                 ms("hydro_update+reflux+restriction"), at.get("regrid_s", 0.0),
                 "%.2f" % med("regrid") if "regrid" in kern else "-", parts or "-", total,
                 amr.get("group_min", "-") if amr else "-",
                 "%.3f" % amr["sibling_group_share"] if amr and "sibling_group_share" in amr else "-",
                 amr.get("dt_on", "-") if amr else "-", amr.get("regrid_fallbacks", "-") if amr else "-",
                 "%s, %s" % (amr["regrid_every"], amr.get("refine_buffer", 1)) if amr else "-",
                 "%.4f" % j["verification"]["value"] if "value" in j.get("verification", {}) else "-",
                 j.get("verification", {}).get("passed")))
    if all(p in kern for p in phases):
        phase_rows.append((name[:-5], ms("step")) + tuple("%.1f" % (med(p) * 1e3) for p in phases))
with open(os.path.join(out, "amr.md"), "w") as f:
    f.write("| case | backend | steps | leaf cells (end) | max leaf cells | FOM (cell updates/s, regrid excluded) | leaf rate with the regrid (cell updates/s) | step median (ms) | step mean (ms) | dt_reduction median (ms) | hydro_update+reflux+restriction median (ms) | regrid (s) | regrid median (ms) | regrid parts, medians (ms) | time to solution (s) | group_min | sibling_group_share | dt on | regrid fallbacks | regrid every, buffer | verification value | verified |\n")
    f.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        f.write("| " + " | ".join(str(x) for x in r) + " |\n")
    if phase_rows:
        f.write("\nDevice step phases (--phase-timing), medians over the steps after the warm-up (us):\n\n")
        f.write("| case | step median (ms) | " + " | ".join(phases) + " |\n")
        f.write("|---|---|---|---|---|---|\n")
        for r in phase_rows:
            f.write("| " + " | ".join(str(x) for x in r) + " |\n")
print(open(os.path.join(out, "amr.md")).read())
PY
