#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# analysis_offline.sh -- whole `ftio` runs on bench/analysis.sh's traces, two
# builds interleaved (before, after, before, after ...) so that both see the
# same machine: CPU (user + sys of the process, and each apart) and peak RSS
# of each run, and the medians.  The figures of bench/README.md "analysis" (offline rounds).
#
#   B=build sh bench/analysis_offline.sh BEFORE/bin/ftio AFTER/bin/ftio [RUNS] [OPTIONS...]
#
# RUNS (default 5) runs of each build per size; OPTIONS go to ftio (default
# --json).  The traces: `ftio-wire trace -n N -r 1024 -d 3600 -p 60 -b 10`,
# N = 10^6 and 10^7 (spool msgpack).  Both builds' outputs are compared too.
#
# PAUSE=S (default 0) waits S seconds before each run.  On a VM that hands
# freed memory back to its host (free page reporting, as this project's
# machine: bench/README.md "offline10, ninth round"), a run's first touch of
# its fresh pages costs ~50x more when the host has taken them back, which
# it does within ~1 s of a free: back to back, a run gets some of the pages
# the run before freed still backed, and the sys column varies with the
# order of the runs.  PAUSE=2 makes every run start alike (all cold).
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_FTIO AFTER_FTIO [RUNS] [OPTIONS...]" >&2; exit 2; }
BEFORE=$1
AFTER=$2
RUNS=${3:-5}
shift 2
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --json
B=${B:-build}
T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-bench-offline.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

median() { sort -n | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

status=0
for n in 1000000 10000000; do
  "$B/bin/ftio-wire" trace -n $n -r 1024 -d 3600 -p 60 -b 10 -o "$T/$n.msgpack" >/dev/null || exit 1
  for i in $(seq "$RUNS"); do
    for side in before after; do
      bin=$BEFORE
      [ $side = after ] && bin=$AFTER
      [ "${PAUSE:-0}" = 0 ] || sleep "$PAUSE"
      /usr/bin/time -f '%U %S %M' -o "$T/time" "$bin" "$@" "$T/$n.msgpack" >"$T/out.$side" 2>/dev/null
      read -r u s m <"$T/time"
      echo "$u $s" | awk '{print $1 + $2}' >>"$T/cpu.$n.$side"
      echo "$u" >>"$T/user.$n.$side"
      echo "$s" >>"$T/sys.$n.$side"
      echo "$m" | awk '{print $1 / 1024}' >>"$T/rss.$n.$side"
      echo "$n $side run $i: cpu $(tail -1 "$T/cpu.$n.$side") s (user $u, sys $s), peak $(tail -1 "$T/rss.$n.$side") MB"
    done
    cmp -s "$T/out.before" "$T/out.after" || { echo "$n: outputs differ (run $i)"; status=1; }
  done
  rm -f "$T/$n.msgpack"
  for side in before after; do
    echo "== $n requests, $side: cpu median $(median <"$T/cpu.$n.$side") s" \
         "(range $(sort -n "$T/cpu.$n.$side" | head -1)-$(sort -n "$T/cpu.$n.$side" | tail -1))," \
         "peak RSS median $(median <"$T/rss.$n.$side") MB; user median $(median <"$T/user.$n.$side") s," \
         "sys median $(median <"$T/sys.$n.$side") s (the kernel's first touch of fresh pages: varies"\
         "most with the machine)"
  done
done
exit $status
