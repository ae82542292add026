# Sourced (not run) by every app's bench/dist.sh after scripts/mpirun-args.sh: what the four scaling
# benches share besides the launch line. The GPU machines are lent for minutes, so a campaign runs
# against a deadline and must leave every finished run's files behind when it is cut short.
#   COPA_DEADLINE (epoch seconds; scripts/gpu-check-dist --budget exports it): a run whose estimate
#     does not fit before it is not started (listed as skipped, budget), and a started run is killed
#     at it, or after 3 x its estimate + 20 s if that comes first (exit 124: a hung launch, e.g. a
#     transport that never completes, must not take the rest of a lent machine's call). Unset: no limit.
#   COPA_UNAVAILABLE_TRANSPORTS (a file of "transport<TAB>reason" lines; gpu-check-dist writes it
#     from copa-commbench's probe, which asks the halo layer the same question the apps ask): such a
#     transport is listed as skipped with that reason instead of starting mpirun only to be refused.
#
# dist_unavailable TRANSPORT LOG: when TRANSPORT is known unavailable, writes why to LOG and stdout
#   (the run's line in the scaling table) and returns 0; otherwise returns 1.
# dist_timed EST LOG CMD...: runs CMD (stdout and stderr to LOG) unless EST seconds no longer fit;
#   appends "copa-dist: wall_s=W rc=R" to LOG and prints it; returns CMD's exit code, 124 when the
#   deadline or the cap stopped it, 125 when it was not started.
# dist_run NAME RANKS TRANSPORT EST ARGS...: "$APP" "${COMMON[@]}" ARGS on RANKS ranks (MPIRUN) over
#   TRANSPORT, unless it is unavailable, writing OUT/NAME.json and OUT/NAME.log; a failed run's JSON
#   is removed and the end of its log printed.

dist_unavailable() {
  local file=${COPA_UNAVAILABLE_TRANSPORTS:-}
  [[ -n "$file" && -r "$file" ]] || return 1
  local reason
  reason=$(awk -F '\t' -v t="$1" '$1 == t { print $2; found = 1; exit } END { exit !found }' "$file") || return 1
  echo "transport unavailable here (gpu-check-dist's probe): $reason" | tee "$2"
}

dist_timed() {
  local est=$1 log=$2 left=0 rc start wall
  shift 2
  if [[ -n "${COPA_DEADLINE:-}" ]]; then
    left=$((COPA_DEADLINE - $(date +%s)))
    if ((left < est)); then
      echo "not started (budget: needs about $est s, $left s left before the campaign's deadline)" > "$log"
      echo "copa-dist: wall_s=0 rc=125" >> "$log"
      echo "copa-dist: skipped, budget ($est s needed, $left s left)"
      return 125
    fi
    ((left > 3 * est + 20)) && left=$((3 * est + 20))
  fi
  start=$(date +%s.%N)
  if ((left > 0)); then
    timeout --kill-after=10 "$left" "$@" > "$log" 2>&1
  else
    "$@" > "$log" 2>&1
  fi
  rc=$?
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  ((rc == 124 && left > 0)) && echo "stopped after $left s (the campaign's deadline, or 3 x the estimate + 20 s)" >> "$log"
  echo "copa-dist: wall_s=$wall rc=$rc" | tee -a "$log"
  return $rc
}

dist_run() {
  local name=$1 np=$2 tr=$3 est=$4
  shift 4
  echo "### $name: $np ranks, transport $tr: $*"
  dist_unavailable "$tr" "$OUT/$name.log" && return
  dist_timed "$est" "$OUT/$name.log" "${MPIRUN[@]}" -np "$np" "$APP" "${COMMON[@]}" --transport "$tr" \
    --json "$OUT/$name.json" "$@"
  local rc=$?
  [ $rc -eq 0 ] || { echo "### $name: exit code $rc (skipped)"; tail -3 "$OUT/$name.log"; rm -f "$OUT/$name.json"; }
}
