#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Launchers: the shim's ignore list, ftio-run under mpirun with a real ftiod,
# and the form of ftiod(1), `LD_PRELOAD=libftio.so mpirun ...`.
#   1. A program started as mpirun, srun ... (or whose executable is named
#      orterun) records nothing and writes no spool file; LD_PRELOAD still
#      reaches its children, which are traced; FTIO_IGNORE_PROGRAMS replaces
#      the list (empty: nothing ignored).  Under Slurm's variables the job id
#      is <job>.<step> (batch, extern by Slurm's names), ranks only in a step.
#      ftio-run: how it finds the shim, the commands it builds, its errors.
#   2. `ftio-run mpirun -np 2 checkpoint`: one job, both ranks counted, ended
#      by the ranks' final batches within a few seconds of mpirun's return
#      (not at --job-timeout), complete.
#   3. `LD_PRELOAD=libftio.so mpirun -np 2 checkpoint`: the same; mpirun
#      itself is not a process of the job.
#   4. The same with FTIO_IGNORE_PROGRAMS= (mpirun traced too, in the same
#      job): its pre-exec children stream as rank -1 until they become the
#      ranks; the job still ends at once, every process final.
# ftiod runs with the default 300 s --job-timeout, so an end by "timeout"
# cannot happen within the test.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio-run" "$B/bin/checkpoint" "$B/bin/posix_periodic" "$B/lib/libftio.so"
command -v mpirun >/dev/null || fail "mpirun not found (Debian openmpi-bin)"
ROOTOPT=""; [ "$(id -u)" = 0 ] && ROOTOPT="--allow-run-as-root"
unset SLURM_JOB_ID SLURM_STEP_ID FTIO_IGNORE_PROGRAMS

# ---- 1. the ignore list ---------------------------------------------------------
mkdir -p "$T/sp"
# spooled NAME CMD...: run CMD under the shim, spooling only; the number of
# spool files it left.
spooled() {
  rm -rf "$T/sp"; mkdir -m 700 "$T/sp"
  env LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS FTIO_SPOOL=always FTIO_SPOOL_DIR="$T/sp" \
    "$@" >/dev/null 2>"$T/ignore.err" || fail "$*: $(cat "$T/ignore.err")"
  ls "$T/sp" | grep -c '\.msgpack$'
}
APP="$B/bin/posix_periodic"
ARGS="-d $T -n 2 -p 0.01 -b 64K"
ln -s "$APP" "$T/mpirun"
ln -s "$APP" "$T/srun"
cp "$APP" "$T/orterun"
ln -s "$T/orterun" "$T/renamed"
[ "$(spooled "$APP" $ARGS)" = 1 ] || fail "posix_periodic itself was not traced"
[ "$(spooled "$T/mpirun" $ARGS)" = 0 ] || fail "a program started as mpirun was traced"
[ "$(spooled "$T/srun" $ARGS)" = 0 ] || fail "a program started as srun was traced"
[ "$(spooled "$T/renamed" $ARGS)" = 0 ] || fail "an executable named orterun was traced"
[ "$(spooled env FTIO_IGNORE_PROGRAMS=posix_periodic "$APP" $ARGS)" = 0 ] ||
  fail "FTIO_IGNORE_PROGRAMS=posix_periodic: traced"
[ "$(spooled env FTIO_IGNORE_PROGRAMS=a:b "$T/mpirun" $ARGS)" = 1 ] ||
  fail "FTIO_IGNORE_PROGRAMS=a:b does not replace the list"
[ "$(spooled env FTIO_IGNORE_PROGRAMS= "$T/mpirun" $ARGS)" = 1 ] ||
  fail "FTIO_IGNORE_PROGRAMS= (empty) still ignores mpirun"
# A launcher leaves LD_PRELOAD to its children: a shell started as srun runs
# two programs; only they are traced.
ln -s "$(command -v sh)" "$T/srun-sh"
ln -s "$(command -v sh)" "$T/sbatch"
[ "$(spooled "$T/sbatch" -c "$APP $ARGS; $APP $ARGS")" = 2 ] ||
  fail "the children of an ignored launcher were not traced (or it was)"
FTIO_DEBUG=1 LD_PRELOAD="$PRELOAD" "$T/mpirun" $ARGS 2>&1 >/dev/null | grep -q "mpirun is a launcher" ||
  fail "FTIO_DEBUG does not say why mpirun is not traced"
echo "ignore list: mpirun, srun, orterun (by executable) not traced; their children are; FTIO_IGNORE_PROGRAMS replaces the list"

# ---- the job id and rank under Slurm (no Slurm needed: its variables) ---------------
# slurm_id VAR=VALUE...: "job rank nranks" of the batches posix_periodic sends
# with those variables.
slurm_id() {
  [ "$(spooled env "$@" "$APP" $ARGS)" = 1 ] || fail "$*: no spool file"
  "$WIRE" dump -s "$T"/sp/*.msgpack | sed -n 's/.* job=\([^ ]*\) .* rank=\([^ ]*\) nranks=\([^ ]*\) .*/\1 \2 \3/p' | head -1
}
got=$(slurm_id SLURM_JOB_ID=12 SLURM_STEP_ID=3 SLURM_PROCID=1 SLURM_NTASKS=2)
[ "$got" = "12.3 1 2" ] || fail "a step's task: '$got', expected '12.3 1 2'"
got=$(slurm_id SLURM_JOB_ID=12 SLURM_PROCID=0 SLURM_NTASKS=4)
[ "$got" = "12.batch -1 0" ] || fail "the batch script: '$got', expected '12.batch -1 0' (no rank outside a step)"
got=$(slurm_id SLURM_JOB_ID=12 SLURM_STEP_ID=4294967292)
[ "$got" = "12.extern -1 0" ] || fail "the extern step: '$got'"
got=$(slurm_id FTIO_JOB=mine SLURM_JOB_ID=12 SLURM_STEP_ID=0)
[ "$got" = "mine -1 0" ] || fail "FTIO_JOB does not win over Slurm: '$got'"
echo "Slurm ids: 12.3 (rank 1 of 2), 12.batch (no rank), 12.extern; FTIO_JOB wins"

# ---- ftio-run finds the shim and builds the launcher's command ---------------------
mkdir -p "$T/prefix/bin" "$T/prefix/lib" "$T/elsewhere"
cp "$B/bin/ftio-run" "$T/prefix/bin/"
cp "$B/lib/libftio.so" "$T/prefix/lib/"
ln -s "$T/prefix/bin/ftio-run" "$T/elsewhere/ftio-run"
# clean: a command in an environment of PATH only (no FTIO_* of the test run).
clean() { env -i PATH="$PATH" "$@"; }
dry() { clean "$@" --dry-run mpirun.openmpi -np 2 ./app 2>&1; }
[ "$(dry "$T/elsewhere/ftio-run")" = "'mpirun.openmpi' '-x' 'LD_PRELOAD=$T/prefix/lib/libftio.so' '-np' '2' './app' " ] ||
  fail "ftio-run through a symlink: $(dry "$T/elsewhere/ftio-run")"
[ "$(dry env FTIO_LIBDIR="$B/lib" FTIO_JOB=j "$T/elsewhere/ftio-run")" = \
  "'mpirun.openmpi' '-x' 'LD_PRELOAD=$B/lib/libftio.so' '-x' 'FTIO_JOB' '-np' '2' './app' " ] ||
  fail "ftio-run with FTIO_LIBDIR: $(dry env FTIO_LIBDIR="$B/lib" FTIO_JOB=j "$T/elsewhere/ftio-run")"
got=$(clean "$B/bin/ftio-run" --endpoint ipc://x --dry-run mpiexec.hydra -n 2 ./app)
[ "$got" = "'mpiexec.hydra' '-genv' 'LD_PRELOAD' '$B/lib/libftio.so' '-n' '2' './app' " ] || fail "hydra: $got"
got=$(clean "$B/bin/ftio-run" --endpoint ipc://x --dry-run mpirun -np 2 ./app)
[ "$got" = "'mpirun' '-x' 'LD_PRELOAD=$B/lib/libftio.so' '-x' 'FTIO_ENDPOINT' '-np' '2' './app' " ] ||
  fail "mpirun (Open MPI by --version): $got"
got=$(clean "$B/bin/ftio-run" --dry-run srun -n 2 ./app "a b")
[ "$got" = "'env' 'LD_PRELOAD=$B/lib/libftio.so' 'srun' '-n' '2' './app' 'a b' " ] || fail "srun: $got"
got=$(clean LD_PRELOAD=/x/asan.so "$B/bin/ftio-run" --dry-run ./app)
[ "$got" = "'env' 'LD_PRELOAD=/x/asan.so $B/lib/libftio.so' './app' " ] || fail "an LD_PRELOAD set before: $got"
FTIO_LIBDIR="$T/nowhere" "$B/bin/ftio-run" ./app 2>"$T/fr.err"; rc=$?
[ $rc = 2 ] && grep -q "cannot find libftio.so" "$T/fr.err" || fail "missing library: rc $rc, $(cat "$T/fr.err")"
"$B/bin/ftio-run" --frobnicate ./app 2>"$T/fr.err"; rc=$?
[ $rc = 2 ] && grep -q "unknown option '--frobnicate'" "$T/fr.err" || fail "bad option: rc $rc, $(cat "$T/fr.err")"
"$B/bin/ftio-run" 2>/dev/null; [ $? = 2 ] || fail "ftio-run without a command: not status 2"
"$B/bin/ftio-run" --help | grep -q "^usage: ftio-run" || fail "ftio-run --help"
echo "ftio-run: finds ../lib through a symlink, FTIO_LIBDIR; Open MPI, Hydra, srun and direct commands; errors"

# ---- 2-4. mpirun with a real ftiod ----------------------------------------------
start_daemon d
now() { "$PY" -c 'import time; print(time.time())'; }
since() { "$PY" -c 'import sys, time; print("%.1f" % (time.time() - float(sys.argv[1])))' "$1"; }

# check_job JOB PROCS WHAT: JOB ended by its final batches within 5 s of the
# launcher's return ($T_END), complete, with PROCS processes and 2 ranks.
check_job() {
  wait_topic "$T/d.log" "ftio.$1.end" 10
  lag=$(since "$T_END")
  "$PY" -c 'import sys; sys.exit(float(sys.argv[1]) >= 5)' "$lag" || fail "$3: the end came $lag s after mpirun"
  "$PY" - "$T/d.log" "$1" "$2" "$3" "$lag" <<'PYEOF' || fail "$3"
import json, sys
J, procs, what, lag = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(sys.argv[1]))]
end = [m for t, m in msgs if t == "ftio.%s.end" % J][-1]
w = end["summary"]["write"]
print("%s: job %s ended by %s within %s s, %d processes, complete %s, period %s s"
      % (what, J, end["ended_by"], lag, end["processes"], end["complete"], w["period"]))
assert end["ended_by"] == "final", end["ended_by"]
assert end["complete"] and end["processes_without_final"] == 0, end
assert end["processes"] == procs, (end["processes"], procs)
# the ranks' checkpoints (mpirun, when traced, writes a few bytes of its own)
assert 0 <= w["bytes"] - 4 * 2 * 4194304 < 65536 if procs > 2 else w["bytes"] == 4 * 2 * 4194304, w["bytes"]
PYEOF
}

# 2. ftio-run (the job id: the one Open MPI gives all ranks, unknown here).
# Under `make asan` ftio-run keeps an LD_PRELOAD already set in front: ASan's.
ASAN_PRE=$(ftio_asan_prefix "$B/lib/libftio.so")
env ${ASAN_PRE:+"LD_PRELOAD=$ASAN_PRE"} FTIO_ENDPOINT="ipc://$T/d.in" FTIO_SPOOL_DIR="$T" \
  ASAN_OPTIONS=$APP_ASAN_OPTIONS timeout 120 "$B/bin/ftio-run" \
  mpirun $ROOTOPT --oversubscribe -np 2 "$B/bin/checkpoint" -n 4 -c 0.5 -b 4M -o "$T" \
  >"$T/run.out" 2>"$T/run.err" || fail "ftio-run mpirun failed: $(cat "$T/run.err")"
T_END=$(now)
wait_topic "$T/d.log" 'ftio\.[^"]*\.end' 10
JOB=$(sed -n 's/.*"topic":"ftio\.\(.*\)\.end".*/\1/p' "$T/d.log" | head -1)
check_job "$JOB" 2 "ftio-run mpirun -np 2"

# 3. the form of ftiod(1): mpirun preloaded, ignored.
env LD_PRELOAD="$PRELOAD" FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=preloaded FTIO_SPOOL_DIR="$T" \
  ASAN_OPTIONS=$APP_ASAN_OPTIONS timeout 120 mpirun $ROOTOPT --oversubscribe -np 2 \
  "$B/bin/checkpoint" -n 4 -c 0.5 -b 4M -o "$T" >"$T/pre.out" 2>"$T/pre.err" ||
  fail "LD_PRELOAD=libftio.so mpirun failed: $(cat "$T/pre.err")"
T_END=$(now)
check_job preloaded 2 "LD_PRELOAD=libftio.so mpirun -np 2"

# 4. mpirun traced too: its pre-exec children turn into the ranks.
env LD_PRELOAD="$PRELOAD" FTIO_IGNORE_PROGRAMS= FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=traced \
  FTIO_SPOOL_DIR="$T" ASAN_OPTIONS=$APP_ASAN_OPTIONS timeout 120 mpirun $ROOTOPT --oversubscribe \
  -np 2 "$B/bin/checkpoint" -n 4 -c 0.5 -b 4M -o "$T" >"$T/tr.out" 2>"$T/tr.err" ||
  fail "LD_PRELOAD=libftio.so FTIO_IGNORE_PROGRAMS= mpirun failed: $(cat "$T/tr.err")"
T_END=$(now)
wait_topic "$T/d.log" "ftio.traced.end" 10
procs=$(jsonl "$T/d.log" "last('ftio.traced.end')['processes']")
[ "$procs" -ge 3 ] || fail "mpirun traced: only $procs processes (mpirun was not traced?)"
check_job traced "$procs" "LD_PRELOAD=libftio.so FTIO_IGNORE_PROGRAMS= mpirun -np 2"
echo ok
