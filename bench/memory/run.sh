#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/memory/run.sh -- the memory of runs benchmark (bench/README.md
# "memory", docs/ALGORITHM.md §11): repeated real runs under mpirun + one
# ftiod --history, the truth from the programs themselves (bench/realapps/
# truth.py: their files' times and their own logs), scored by score.py.
#   1. each program of apps.sh 3 times as it is, then once with a changed
#      output interval (MEMORY_APPS, default all four);
#   2. a program known only from an archive: shapes heights run once with
#      FTIO_SPOOL=file (no daemon), its spool file scanned into the same
#      store with `ftio scan --history` while ftiod runs, then run live;
#   3. the store at a site's scale (memory-store-bench: 10^5 applications
#      of 3 runs each, MEMORY_STORE_APPS): size, open time, lookup latency,
#      and ftiod's start on that store.
# Output in MEMORY_OUT (default $B/memory): one directory per run, d.log and
# d.err (ftiod's), results.jsonl (score.py: one line per run), table.md,
# store.json.  Takes about 15 minutes.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REAL=$(cd "$HERE/../realapps" && pwd)
B=$(cd "${B:-build}" 2>/dev/null && pwd) || { echo "memory: no build directory (make)" >&2; exit 1; }
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
OUT=${MEMORY_OUT:-$B/memory}
NP=${NP:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FTIO_DAEMON_CONFIG=none
. "$HERE/apps.sh"
APPS=${MEMORY_APPS:-$ALL_MEMORY_APPS}
for f in "$B/bin/ftiod" "$B/bin/ftio" "$B/lib/libftio.so" "$B/bench/realapps/shapes" "$B/bench/memory-store-bench"; do
  [ -e "$f" ] || { echo "memory: missing $f (make bench)" >&2; exit 1; }
done
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
. "$HERE/../shim_env.sh"
shim_env   # SHIM_PRELOAD, ASAN_OPTIONS, MPIRUN

DPID=""
MOUNTS=""
cleanup() {
  [ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
  for m in $MOUNTS; do umount "$m" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- ftiod with its memory ------------------------------------------------------------
"$B/bin/ftiod" --config none --auth none --listen "ipc://$OUT/d.in" --pub "ipc://$OUT/d.pub" \
  --status-endpoint "ipc://$OUT/d.st" --log "$OUT/d.log" --history "$OUT/history.sqlite" -v 2>"$OUT/d.err" &
DPID=$!
i=0
until grep -q 'listening on' "$OUT/d.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 200 ] && { echo "memory: ftiod did not start" >&2; exit 1; }
  sleep 0.05
done

# run APP VERSION NAME [SPOOL]: one run as job mem-NAME in $OUT/NAME (its files
# in memory, a private tmpfs as realapps' run_one.sh mounts); SPOOL=file: no
# daemon, the trace in NAME/spool.  Then its truth (truth.py).
run() {
  _app=$1 _ver=$2 _name=$3 _spool=${4:-daemon}
  _run="$OUT/$_name"
  mkdir -p "$_run/app" "$_run/spool"
  if mount -t tmpfs -o size=4g,mode=0755 memory "$_run/app" 2>/dev/null; then MOUNTS="$MOUNTS $_run/app"; fi
  _t0=$(date +%s)
  ( cd "$_run/app" && export FTIO_ENDPOINT="ipc://$OUT/d.in" FTIO_JOB="mem-$_name" FTIO_AUTH=none \
      FTIO_SPOOL=$_spool FTIO_SPOOL_DIR="$_run/spool" && "app_$_app" "$_ver" ) >"$_run/app.out" 2>"$_run/app.err" \
    || { echo "memory: $_name failed: $(tail -3 "$_run/app.err")" >&2; return 1; }
  if [ "$_spool" = daemon ]; then
    # ranks that never write send nothing: after 5 s, what an epilog does
    _i=0
    until grep -q "\"topic\":\"ftio.mem-$_name.end\"" "$OUT/d.log" 2>/dev/null; do
      _i=$((_i + 1))
      [ $_i = 100 ] && "$B/bin/ftio" end --endpoint "ipc://$OUT/d.st" "mem-$_name" >/dev/null 2>&1
      [ $_i -gt 1200 ] && { echo "memory: no end of mem-$_name" >&2; return 1; }
      sleep 0.05
    done
  fi
  "$PY" "$REAL/truth.py" "$_app" "$_run" >"$_run/truth.json" 2>"$_run/truth.err" \
    || { echo "memory: $_name: no truth: $(cat "$_run/truth.err")" >&2; return 1; }
  find "$_run/app/" -type f -size +1M -delete
  echo "memory: $_name ($_app, $_ver): $(( $(date +%s) - _t0 )) s"
}

# ---- 1. repeated runs, then a changed one ---------------------------------------------------
# (a program that cannot run here is said and left out: score.py lists it)
for app in $APPS; do
  for rep in 1 2 3; do run "$app" same "$app-$rep" || { echo "$app" >>"$OUT/failed"; continue 2; }; done
  run "$app" changed "$app-changed" || echo "$app" >>"$OUT/failed"
done

# ---- 2. known only from the archive -----------------------------------------------------------
run heights same heights-archived file || exit 1
cat "$OUT"/heights-archived/spool/ftio-mem-heights-archived-*.msgpack >"$OUT/heights-archived/job.msgpack"
"$B/bin/ftio" scan --quiet --history "$OUT/history.sqlite" "$OUT/heights-archived/job.msgpack" \
  >/dev/null 2>"$OUT/scan.err" || { echo "memory: ftio scan --history: $(cat "$OUT/scan.err")" >&2; exit 1; }
cat "$OUT/scan.err"
run heights same heights-live || exit 1

kill "$DPID" && wait "$DPID" 2>/dev/null
DPID=""
"$PY" "$HERE/score.py" "$OUT" >"$OUT/results.jsonl" || exit 1
"$PY" "$HERE/score.py" --table "$OUT/results.jsonl" >"$OUT/table.md" || exit 1
cat "$OUT/table.md"

# ---- 3. the store at scale ------------------------------------------------------------------
"$B/bench/memory-store-bench" "$OUT/store.sqlite" "${MEMORY_STORE_APPS:-100000}" 3 >"$OUT/store.json" || exit 1
"$B/bin/ftiod" --config none --auth none --listen "ipc://$OUT/s.in" --pub "ipc://$OUT/s.pub" \
  --status-endpoint "ipc://$OUT/s.st" --history "$OUT/store.sqlite" 2>"$OUT/s.err" &
DPID=$!
t0=$(date +%s.%N)
i=0
until grep -q 'memory of runs: .*opened in' "$OUT/s.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 400 ] && { echo "memory: ftiod did not open the big store" >&2; exit 1; }
  sleep 0.01
done
t1=$(date +%s.%N)
kill "$DPID" && wait "$DPID" 2>/dev/null
DPID=""
"$PY" - "$OUT/store.json" "$OUT/s.err" "$t0" "$t1" <<'PYEOF'
import json, re, sys
s = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
opened = float(re.search(r"opened in (\d+) ms", err).group(1))
s["ftiod_start_s"] = round(float(sys.argv[4]) - float(sys.argv[3]), 3)
s["ftiod_open_ms"] = opened
json.dump(s, open(sys.argv[1], "w"))
print("store: %(apps)d applications, %(runs)d runs: %(file_mb).1f MB on disk, opened in %(open_ms).1f ms "
      "(ftiod: started and its store open within %(ftiod_start_s).2f s); lookup median / p90 us: "
      "args %(a)s, args_norm %(n)s, unknown %(u)s" % dict(s, a="%.0f / %.0f" % (s["lookup_us"]["args"]["median"],
      s["lookup_us"]["args"]["p90"]), n="%.0f / %.0f" % (s["lookup_us"]["args_norm"]["median"],
      s["lookup_us"]["args_norm"]["p90"]), u="%.0f / %.0f" % (s["lookup_us"]["unknown"]["median"],
      s["lookup_us"]["unknown"]["p90"])))
PYEOF
echo "memory: results in $OUT/results.jsonl, table in $OUT/table.md, store in $OUT/store.json"
