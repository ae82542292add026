#!/usr/bin/env bash
# bench/dist.sh end to end on 2 CPU ranks (mpi preset, serial backend) with a tiny N: the uniform
# and the AMR tables (OUT/scaling.md, OUT/amr-scaling.md) hold a verified host-transport row for
# strong 1 and 2 ranks and weak 2 ranks each.
# Usage: check_dist_bench.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:?usage: check_dist_bench.sh BUILD OUT} out=${2:?usage: check_dist_bench.sh BUILD OUT}
rm -rf "$out"
RAMSES_DIST_N=16 RAMSES_DIST_AMR_N=8 RAMSES_DIST_BACKEND=serial bash "$(dirname "$0")/../bench/dist.sh" "$build" "$out" 2 ||
  { echo "dist.sh failed"; exit 1; }
status=0
for table in "$out/scaling.md" "$out/amr-scaling.md"; do
  [[ -f "$table" ]] || { echo "no $table"; status=1; continue; }
  for row in "strong | host | 1" "strong | host | 2" "weak | host | 2"; do
    grep -q "^| $row | .* | PASSED | [0-9.]* |$" "$table" || { echo "$table: no verified row '$row'"; status=1; }
  done
done
exit $status
