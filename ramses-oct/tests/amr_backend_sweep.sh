#!/usr/bin/env bash
# AMR across its cases, every backend built against the serial oracle (--backend all: exit 0 only
# when each backend matches serial to 1e-12 and the problem's verdict passes): sedov, sod and sound
# x periodic, reflecting and outflow boundaries x 1 and 3 levels x global dt and --subcycle x a cube
# and a non-power-of-two brick, plus deep trees, other solvers and limiters, the test criteria and
# a static grid, and --tuning group-min=1 and 8. Usage: amr_backend_sweep.sh RAMSES_OCT OUT_DIR [JOBS]; OUT_DIR/rc.txt lists
# "exit case-number options" per case, OUT_DIR/<case>.log its output. Exit 1 if any case failed.
set -uo pipefail
APP=${1:?usage: amr_backend_sweep.sh RAMSES_OCT OUT_DIR [JOBS]}
OUT=${2:?usage: amr_backend_sweep.sh RAMSES_OCT OUT_DIR [JOBS]}
JOBS=${3:-$(nproc)}
mkdir -p "$OUT"
cases=()
for prob in sedov sod sound; do
  for bc in periodic reflecting outflow; do
    for lv in 1 3; do
      for sub in "" "--subcycle"; do
        for geo in "--n 16" "--nx 24 --ny 16 --nz 8"; do
          cases+=("--problem $prob --bc $bc --levels $lv $sub $geo --steps 8 --regrid-every 2")
        done
      done
    done
  done
done
cases+=("--problem sedov --levels 4 --n 8 --steps 10 --regrid-every 1 --subcycle")
cases+=("--problem sedov --levels 2 --n 16 --steps 10 --riemann hllc --slope mc --subcycle")
cases+=("--problem sedov --levels 2 --n 16 --steps 10 --riemann llf --regrid-every 0 --subcycle")
cases+=("--problem sedov --levels 2 --n 16 --steps 10 --refine band --refine-band 0.2,0.6 --subcycle")
cases+=("--problem sedov --levels 2 --n 16 --steps 10 --refine everywhere --subcycle")
cases+=("--problem sedov --levels 2 --n 12 --steps 10 --regrid-every 3 --phase-timing")
# --tuning group-min=1 (partial groups wherever a block holds a leaf oct) and 8 (complete blocks only);
# the other cases run the default. Ignored by the host backends.
cases+=("--problem sedov --bc reflecting --levels 3 --nx 24 --ny 16 --nz 8 --steps 8 --regrid-every 2 --tuning group-min=1")
cases+=("--problem sedov --bc reflecting --levels 3 --nx 24 --ny 16 --nz 8 --steps 8 --regrid-every 2 --tuning group-min=1 --subcycle")
cases+=("--problem sod --bc outflow --levels 3 --nx 22 --ny 12 --nz 10 --steps 8 --regrid-every 2 --tuning group-min=1")
cases+=("--problem sedov --bc periodic --levels 3 --n 16 --steps 8 --regrid-every 2 --tuning group-min=8")
for i in "${!cases[@]}"; do echo "$i|${cases[$i]}"; done > "$OUT/cases.txt"
run_case() {
  IFS='|' read -r i c <<< "$1"
  # shellcheck disable=SC2086 # the options are words
  timeout 600 "$APP" $c --backend all --quiet > "$OUT/$i.log" 2>&1
  echo "$? $i $c"
}
export -f run_case
export APP OUT
xargs -P "$JOBS" -I{} bash -c 'run_case "{}"' < "$OUT/cases.txt" | sort -n -k2 > "$OUT/rc.txt"
failed=$(awk '$1 != 0' "$OUT/rc.txt")
echo "amr_backend_sweep: $(wc -l < "$OUT/rc.txt") cases, $(printf '%s' "$failed" | grep -c .) failed"
[[ -z "$failed" ]] || { echo "$failed"; exit 1; }
