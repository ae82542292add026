#!/usr/bin/env bash
# bench/dist.sh end to end on 2 CPU ranks (mpi preset) with a tiny N: every grid (1x2, 2x1), the
# Pliris-style LU and ScaLAPACK at the fixed N, the largest N capped by --max-frequency, and
# OUT/scaling.md holding every run, all verified, nothing skipped.
# Usage: check_dist_bench.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:?usage: check_dist_bench.sh BUILD OUT} out=${2:?usage: check_dist_bench.sh BUILD OUT}
rm -rf "$out"
bash "$(dirname "$0")/../bench/dist.sh" "$build" "$out" 2 --backend serial --size small --max-frequency 7 --timeout 120 ||
  { echo "dist.sh failed"; exit 1; }
table="$out/scaling.md"
[[ -f "$table" ]] || { echo "no $table"; exit 1; }
status=0
for run in fixed-1rank fixed-pliris-1x2-host fixed-pliris-2x1-host fixed-scalapack-1x2-host fixed-scalapack-2x1-host \
           largest-1rank largest-pliris-1x2-host largest-pliris-2x1-host; do
  grep -q "^| $run | .* | PASSED |$" "$table" || { echo "scaling.md: no verified row for $run"; status=1; }
done
grep -q "Skipped or failed" "$table" && { echo "scaling.md lists skipped or failed runs"; status=1; }
grep -q "^| largest-pliris-2x1-host | Pliris-style | 1470 | 2 | 2x1 | host |" "$table" ||
  { echo "scaling.md: the largest-N 2x1 row is not N = 1470 on a 2x1 grid"; status=1; }
exit $status
