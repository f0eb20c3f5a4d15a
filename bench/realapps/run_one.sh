#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/realapps/run_one.sh APP RUNDIR -- one run of one real program of the
# realapps benchmark (bench/README.md "realapps"), live and offline:
#   1. a private ftiod (--auth none, ipc:// endpoints in RUNDIR, --log d.log);
#   2. the program (bench/realapps/apps.sh: app_APP) under mpirun with
#      LD_PRELOAD=libftio.so, FTIO_SPOOL=tee (stream to ftiod AND keep the whole
#      trace in RUNDIR/spool), its files and own logs in RUNDIR/app;
#   3. the job's `.end` in d.log, then ftiod stopped;
#   4. offline on the spool files: `ftio --json` (offline.json) and
#      `ftio --window adaptive --json` (window.jsonl), absolute times;
#   5. the truth from the program's own files and logs (truth.py: truth.json)
#      and the scores (score.py: result.json, one JSON object);
#   6. the program's outputs (files over 1 MiB) deleted (REALAPPS_KEEP=1:
#      kept when on disk), its logs kept in RUNDIR/app.
# Nothing is judged here: a step that fails writes RUNDIR/error and exits 1.
# Environment: B (build directory, default build), REALAPPS_SIZE (full: the
# benchmark's sizes, ~50 s a program; test: the short ones of tests/realapps),
# NP (ranks, 4).
set -u
APP=${1:?usage: run_one.sh APP RUNDIR}
RUN=${2:?usage: run_one.sh APP RUNDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=$(cd "${B:-build}" 2>/dev/null && pwd) || { echo "run_one: no build directory ${B:-build} (make)" >&2; exit 1; }
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
NP=${NP:-4}
REALAPPS_SIZE=${REALAPPS_SIZE:-full}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$HERE/apps.sh"
command -v "app_$APP" >/dev/null 2>&1 || { echo "run_one: unknown program '$APP' ($APPS)" >&2; exit 2; }

rm -rf "$RUN"
mkdir -p "$RUN/spool" || exit 1
RUN=$(cd "$RUN" && pwd)
die() { echo "$APP: $*" >"$RUN/error"; echo "run_one: $APP: $*" >&2; exit 1; }
# The program's files go to memory, a private tmpfs mounted on RUNDIR/app
# (root; /dev/shm would not do: the shim does not trace /dev): writes to a
# disk shared with other jobs stall in the page cache's writeback throttling
# (a 32 MiB output took 0.01 s or 1.7 s), which makes the period the
# machine's, not the program's.  The programs of $DISK_APPS write to disk
# (their shape is about the disk: fdatasync), and so does everything when
# the mount is refused (RUNDIR/app.fs says which).  At the end the small
# files (logs) are kept in RUNDIR/app, the outputs deleted once measured.
mkdir -p "$RUN/app"
MOUNTED=""
case " $DISK_APPS " in
  *" $APP "*) echo disk >"$RUN/app.fs" ;;
  *) if mount -t tmpfs -o "size=${REALAPPS_TMPFS_SIZE:-8g},mode=0755" realapps "$RUN/app" 2>"$RUN/mount.err"; then
       MOUNTED=1; echo tmpfs >"$RUN/app.fs"
     else
       echo "disk (tmpfs refused: $(cat "$RUN/mount.err"))" >"$RUN/app.fs"
     fi ;;
esac
keep_small() {
  [ "${REALAPPS_KEEP:-0}" = 1 ] && [ -z "$MOUNTED" ] && return
  # (a crashed rank's core file is kept: core_pattern "core" puts it here)
  find "$RUN/app/" -type f -size +1M ! -name 'core*' -delete
  if [ -n "$MOUNTED" ]; then
    mkdir -p "$RUN/app.kept" && cp -a "$RUN/app/." "$RUN/app.kept/"
    umount "$RUN/app" && rmdir "$RUN/app" && mv "$RUN/app.kept" "$RUN/app"
    MOUNTED=""
  fi
}

# ---- 1. ftiod ------------------------------------------------------------------
DPID=""
stop_daemon() { [ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null; DPID=""; }
trap 'stop_daemon; keep_small' EXIT
trap 'exit 1' INT TERM
"$B/bin/ftiod" --config none --auth none --listen "ipc://$RUN/d.in" --pub "ipc://$RUN/d.pub" \
  --status-endpoint "ipc://$RUN/d.st" --log "$RUN/d.log" -v 2>"$RUN/d.err" &
DPID=$!
# poll until it has bound its sockets (ftiod logs one line then)
i=0
until grep -qE 'listening on' "$RUN/d.err" 2>/dev/null; do
  kill -0 "$DPID" 2>/dev/null || die "ftiod died at start: $(tail -3 "$RUN/d.err")"
  i=$((i + 1)); [ $i -gt 200 ] && die "ftiod did not start within 10 s"
  sleep 0.05
done

# ---- 2. the program ------------------------------------------------------------------
JOB=realapps-$APP-$$
export FTIO_ENDPOINT="ipc://$RUN/d.in" FTIO_JOB=$JOB FTIO_AUTH=none FTIO_SPOOL=tee \
       FTIO_SPOOL_DIR="$RUN/spool" FTIO_DAEMON_CONFIG=none
. "$HERE/../shim_env.sh"
shim_env   # SHIM_PRELOAD, ASAN_OPTIONS, MPIRUN
date +%s.%N >"$RUN/app.start"
# A rank that crashes leaves its core file in RUNDIR/app (kept, keep_small):
# the limit is often 0 in a login shell, and then there is none.
ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)" 2>/dev/null
( cd "$RUN/app" && "app_$APP" ) >"$RUN/app.out" 2>"$RUN/app.err"
rc=$?
date +%s.%N >"$RUN/app.stop"
[ $rc = 0 ] || die "the program failed (exit $rc): $(tail -3 "$RUN/app.err" | tr '\n' ' ')"

# ---- 3. the job's end ----------------------------------------------------------------
# A rank that never does I/O sends no batch at all, not even a final one, so
# ftiod cannot know that every rank of such a job is done (LAMMPS: only rank
# 0 writes) and would wait for --job-timeout.  After 5 s without the .end we
# do what a batch system's epilog does: `ftio end JOB` (ended_by "told").
ended() { grep -q "\"topic\":\"ftio.$JOB.end\"" "$RUN/d.log" 2>/dev/null; }
i=0
until ended; do
  i=$((i + 1))
  [ $i = 100 ] && { "$B/bin/ftio" end --endpoint "ipc://$RUN/d.st" "$JOB" >"$RUN/end.out" 2>&1 ||
                    die "ftio end $JOB failed: $(cat "$RUN/end.out")"; }
  [ $i -gt 1200 ] && die "no ftio.$JOB.end in ftiod's log 60 s after the program ended"
  sleep 0.05
done
stop_daemon
echo "$JOB" >"$RUN/job"

# ---- 4. offline ------------------------------------------------------------------------
ls "$RUN"/spool/*.msgpack >/dev/null 2>&1 || die "no spool file in $RUN/spool (FTIO_SPOOL=tee)"
"$B/bin/ftio" --json --absolute-time "$RUN"/spool/*.msgpack >"$RUN/offline.json" 2>"$RUN/offline.err" ||
  die "ftio --json failed: $(tail -1 "$RUN/offline.err")"
"$B/bin/ftio" --window adaptive --json --absolute-time "$RUN"/spool/*.msgpack >"$RUN/window.jsonl" \
  2>"$RUN/window.err" || die "ftio --window adaptive failed: $(tail -1 "$RUN/window.err")"

# ---- 5. truth and scores -------------------------------------------------------------
"$PY" "$HERE/truth.py" "$APP" "$RUN" >"$RUN/truth.json" 2>"$RUN/truth.err" ||
  die "no truth: $(tail -1 "$RUN/truth.err")"
"$PY" "$HERE/score.py" "$RUN" >"$RUN/result.json" 2>"$RUN/score.err" ||
  die "scoring failed: $(tail -1 "$RUN/score.err")"
exit 0
