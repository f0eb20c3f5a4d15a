# SPDX-License-Identifier: BSD-3-Clause
# tests/lib.sh -- the one helper library of the shell tests (sourced first by
# every tests/*/*.sh; tests/README.md shows how to write a test with it).
#
# On sourcing:
#   B     the build directory, absolute ($FTIO_TEST_BUILD, set by tests/run.sh;
#         default ./build)
#   ROOT  the repository (absolute); HERE the test's own directory
#   T     a fresh private temporary directory, with $T/ctl and $T/spool;
#         removed at exit after every process in $PIDS was stopped
#   PY    python3; PRELOAD the LD_PRELOAD value for libftio.so (libasan.so
#         in front under `make asan`); APP_ASAN_OPTIONS for traced programs
#         that are not ours (no leak checks)
#   the environment: the shim's FTIO_* variables of the caller unset;
#         FTIO_SPOOL_DIR=$T/spool and FTIO_ENDPOINT=ipc://$T/recv.sock, so
#         that nothing a test traces reaches the user's spool or daemon
#   set -u
# Results: ok MSG | bad MSG (a failure; the test goes on) | fail MSG (a
#   failure that ends the test, with the tails of $T/*.err) | finish (exit
#   status from the failures).  A test that called `bad` exits 1 even when it
#   ends some other way; a sanitizer report in $T/*.err fails the test.
# Polling instead of sleeping: wait_for SECONDS CMD..., wait_file,
#   wait_grep, wait_gone, wait_connected.
# Components: start_daemon (ftiod), start_recv/wait_recv (ftio-wire recv),
#   start_munged, as_user, traced, run_mpi / start_mpi / MPIRUN, run_checkpoint, wire.
# Reading results: val, expect_eq, compare_counts (ftio-wire recv reports),
#   wait_topic, jsonl, close (ftiod's --log).
set -u
B=${FTIO_TEST_BUILD:-build}
B=$(cd "$B" 2>/dev/null && pwd) || { echo "FAIL: no build directory ${FTIO_TEST_BUILD:-build} (run make)"; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
# The repository: the directory that holds tests/lib.sh (tests are
# tests/NAME.sh or tests/DIR/NAME.sh).
for ROOT in "$HERE/.." "$HERE/../.." "$PWD"; do
  [ -f "$ROOT/tests/lib.sh" ] && break
done
ROOT=$(cd "$ROOT" && pwd)
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
WIRE="$B/bin/ftio-wire"
T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-test.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
mkdir -p "$T/ctl" "$T/spool"
PIDS=""
FAILS=0
# Nothing of the caller's environment reaches a test: every FTIO_* variable
# (the shim's, the clients' endpoints...: whatever their list is today,
# libtrace/config.c and the man pages) but those tests/run.sh sets for the
# whole suite (FTIO_TEST_BUILD and the names in FTIO_TEST_KEEP), and no job of
# a batch system; nothing of the machine's configuration: no
# /etc/ftio/ftiod.conf.
for _v in $(env | sed -n 's/^\(FTIO_[A-Za-z0-9_]*\)=.*/\1/p'); do
  case " FTIO_TEST_BUILD FTIO_TEST_KEEP ${FTIO_TEST_KEEP:-} " in
    *" $_v "*) ;;
    *) unset "$_v" ;;
  esac
done
unset _v SLURM_JOB_ID
export FTIO_DAEMON_CONFIG=none
export FTIO_SPOOL_DIR="$T/spool"
export FTIO_ENDPOINT="ipc://$T/recv.sock"

# ---- results ----------------------------------------------------------------
ok()  { echo "ok: $*"; }
bad() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
fail() {
  echo "FAIL: $*"
  FAILS=$((FAILS + 1))
  for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  exit 1
}
finish() {
  if [ "$FAILS" = 0 ]; then echo "all ok"; exit 0; fi
  echo "$FAILS failure(s)"; exit 1
}
# need FILE...: fail unless every file exists (the build made it).
need() {
  for f in "$@"; do [ -e "$f" ] || fail "missing $f (build it first: make)"; done
}

# ---- polling ----------------------------------------------------------------
# wait_for SECONDS CMD [ARGS...]: run CMD (a command or shell function) every
# 50 ms until it succeeds (0) or SECONDS have passed (1).
wait_for() {
  _wf_end=$(( $(date +%s%N) / 1000000 + $(awk -v s="$1" 'BEGIN { printf "%d", s * 1000 }') ))
  shift
  until "$@"; do
    [ "$(( $(date +%s%N) / 1000000 ))" -ge "$_wf_end" ] && return 1
    sleep 0.05
  done
  return 0
}
# wait_file PATH [SECONDS=10]: PATH exists (a file, socket or directory).
wait_file() { wait_for "${2:-10}" test -e "$1"; }
# wait_grep FILE PATTERN [SECONDS=10]: a line of FILE matches (grep -E).
wait_grep() { wait_for "${3:-10}" grep -qE -- "$2" "$1" 2>/dev/null; }
# wait_gone PID [SECONDS=10]: the process has exited.
wait_gone() { wait_for "${2:-10}" _gone "$1"; }
_gone() { ! kill -0 "$1" 2>/dev/null; }
# wait_connected SOCKET [N=1] [SECONDS=10]: at least N peers are connected to
# the ipc:// socket file SOCKET (a subscriber has joined before publishing).
wait_connected() { wait_for "${3:-10}" _connected "$1" "${2:-1}"; }
_connected() {
  [ "$(ss -xH state connected 2>/dev/null | awk -v p="$1" '$5 == p' | wc -l)" -ge "$2" ]
}

# ---- cleanup ------------------------------------------------------------------
cleanup() {
  rc=$?
  trap - EXIT
  set +e      # (tests may run under set -e; a process already gone is fine)
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  for p in $PIDS; do wait_gone "$p" 2 || kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  # A sanitizer report of anything we ran (make asan) fails the test.
  if grep -l "Sanitizer" "$T"/*.err >/dev/null 2>&1; then
    echo "FAIL: sanitizer report"
    grep -h -A30 "Sanitizer" "$T"/*.err | head -60
    rc=1
  fi
  rm -rf "$T"
  [ "$FAILS" = 0 ] || [ "$rc" != 0 ] || rc=1
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- preloading ---------------------------------------------------------------
# Under `make asan` an instrumented .so links libasan, and ASan must be the
# first object in a process whose executable is not instrumented itself, and
# started before any other constructor (tests/shim/asan_first.c).
#   ftio_asan_prefix LIB   "" or "/path/libasan.so $B/tests/asan_first.so "
#                          when LIB links libasan
#   ftio_preload LIB       the LD_PRELOAD value for LIB (prefix + LIB)
ftio_asan_prefix() {
  if ldd "$1" 2>/dev/null | grep -q libasan; then
    echo "$(${CC:-cc} -print-file-name=libasan.so) $(cd "$B" && pwd)/tests/asan_first.so "
  fi
}
ftio_preload() { echo "$(ftio_asan_prefix "$1")$1"; }
SHIM="$B/lib/libftio.so"
PRELOAD=$(ftio_preload "$SHIM")
APP_ASAN_OPTIONS=detect_leaks=0
# no_leak_checks: programs started from here on are not leak-checked (MPI
# libraries and other programs that are not ours never free everything).
no_leak_checks() { export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; }
# traced CMD...: run CMD with the shim preloaded.
# Under `make asan` the traced program is not ours (python3, cat, ...): its
# leaks are not looked for, as run_mpi does for MPI programs.
traced() { env LD_PRELOAD="$PRELOAD" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$APP_ASAN_OPTIONS" "$@"; }

# ---- the wire tool and its receiver -------------------------------------------
# wire SUBCOMMAND ARGS...: $B/bin/ftio-wire (dump, gen, records, recv,
# periodic, tmio, fuzz, trace; `ftio-wire --help`).
wire() { "$WIRE" "$@"; }

# start_recv OUT [recv options]: `ftio-wire recv` on $FTIO_ENDPOINT in the
# background, its report to OUT (stderr OUT.err); returns once it is bound.
start_recv() {
  _out=$1; shift
  rm -f "$T/ctl/recv-ready"
  "$WIRE" recv -e "$FTIO_ENDPOINT" -R "$T/ctl/recv-ready" "$@" >"$_out" 2>"$_out.err" &
  RECV_PID=$!
  PIDS="$PIDS $RECV_PID"
  wait_for 5 test -f "$T/ctl/recv-ready" || { bad "receiver did not start"; cat "$_out.err"; }
}
# wait_recv: wait for the background receiver to finish (bounded by its -i/-t).
wait_recv() { wait "$RECV_PID"; }

# val FILE KEY: the value of KEY= in a report (empty when absent).
val() { sed -n "s/^$2=//p" "$1" | head -1; }
# expect_eq FILE KEY VALUE [what]
expect_eq() {
  _got=$(val "$1" "$2")
  if [ "${_got:-0}" = "$3" ]; then ok "${4:-$2} = $3"; else bad "${4:-$2}: expected $3, got '${_got}' ($1)"; fi
}
# compare_counts EXPECTED GOT WHAT: every count./bytes. line of EXPECTED is in
# GOT, and GOT has no count./bytes. line of those layers that EXPECTED lacks.
compare_counts() {
  _missing=$(grep -v -x -F -f "$2" "$1")
  _layers=$(sed -n 's/^count\.\([a-z]*\)\..*/\1/p' "$1" | sort -u | tr '\n' '|' | sed 's/|$//')
  _extra=$(grep -E "^(count|bytes)\.($_layers)\.[a-z]+=" "$2" | grep -v -x -F -f "$1")
  if [ -z "$_missing$_extra" ]; then
    ok "$3: all $(grep -c '^count' "$1") call families match"
  else
    bad "$3: expected but not received: $(echo $_missing) / received but not expected: $(echo $_extra)"
  fi
}

# ---- ftiod ----------------------------------------------------------------------
# The line ftiod logs once its sockets are bound (with or without the
# "[pid] notice" of levelled log lines).
FTIOD_READY='ftiod(\[[0-9]+\])?( notice)?: listening on'
# start_daemon NAME [ftiod options...]: endpoints ipc://$T/NAME.{in,pub,st},
# --auth none unless the options say --auth munge (the shims get FTIO_AUTH
# from tests/run.sh), log $T/NAME.log, stderr $T/NAME.err; returns once it
# has bound its sockets.  Sets DPID.
start_daemon() {
  _name=$1; shift
  "$B/bin/ftiod" --listen "ipc://$T/$_name.in" --pub "ipc://$T/$_name.pub" \
    --status-endpoint "ipc://$T/$_name.st" --log "$T/$_name.log" -v --auth none "$@" \
    2>>"$T/$_name.err" &
  DPID=$!
  PIDS="$PIDS $DPID"
  wait_for 5 _daemon_up "$_name" || fail "ftiod $_name did not start"
}
_daemon_up() {
  kill -0 $DPID 2>/dev/null || fail "ftiod $1 died at start"
  grep -qE "$FTIOD_READY" "$T/$1.err" 2>/dev/null
}

# status_is NAME PYTHON-EXPR [ftiod --status options]: ftiod NAME's status
# (--json, into $T/NAME.status.json) makes EXPR true, with the status as `s`;
# false when the daemon does not answer.  For wait_for.
status_is() {
  _n=$1; _e=$2; shift 2
  "$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/$_n.st" "$@" >"$T/$_n.status.json" 2>/dev/null &&
    "$PY" -c "import json, sys; s = json.load(open(sys.argv[1])); sys.exit(0 if ($_e) else 1)" \
      "$T/$_n.status.json" 2>/dev/null
}

# wait_topic LOG TOPIC [SECONDS=30]: until a line with that topic is in the log.
wait_topic() {
  wait_for "${3:-30}" grep -q "\"topic\":\"$2\"" "$1" 2>/dev/null || fail "no $2 in $1 after ${3:-30} s"
}

# jsonl LOG PYTHON-EXPR: evaluate EXPR with `msgs` = list of (topic, message),
# last(topic) and all_of(topic).
jsonl() {
  "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(sys.argv[1]))]
def last(topic):
    m = [x for t, x in msgs if t == topic]
    return m[-1] if m else None
def all_of(topic):
    return [x for t, x in msgs if t == topic]
r = eval(sys.argv[2])
print(r if not isinstance(r, (dict, list)) else json.dumps(r))
PYEOF
}

# log_is LOG PYTHON-EXPR: EXPR (as for jsonl) is true; for wait_for.
log_is() { [ "$(jsonl "$1" "bool($2)" 2>/dev/null)" = True ]; }

# close REL_TOL A B: exit 0 when |A-B| <= REL_TOL*|B|
close() {
  "$PY" -c "import sys; a,b,t=float(sys.argv[2]),float(sys.argv[3]),float(sys.argv[1]); sys.exit(0 if abs(a-b)<=t*abs(b) else 1)" "$@"
}

# ---- authentication --------------------------------------------------------------
# start_munged: a private munged (its own key and socket in $T, which is made
# traversable so that a second uid can reach the socket).  Exports
# FTIO_MUNGE_SOCKET for the shims and tools; fails the test when munged cannot
# start (never skips).
start_munged() {
  command -v munged >/dev/null || fail "munged not found (Debian package munge)"
  chmod 711 "$T"
  mungekey -c -k "$T/munge.key" -b 1024 >/dev/null 2>&1 || fail "mungekey failed"
  munged -F -f --socket="$T/munge.sock" --key-file="$T/munge.key" --log-file="$T/munged.log" \
    --pid-file="$T/munged.pid" --seed-file="$T/munged.seed" >"$T/munged.err" 2>&1 &
  PIDS="$PIDS $!"
  wait_for 5 _munged_up || fail "munged did not start: $(cat "$T/munged.err")"
  export FTIO_MUNGE_SOCKET="$T/munge.sock"
}
_munged_up() { [ -S "$T/munge.sock" ] && munge -S "$T/munge.sock" -n >/dev/null 2>&1; }

# as_user CMD...: run CMD as the unprivileged uid `nobody` (the second user of
# the security tests).  In the background, use `$AS_USER CMD... &`: setpriv
# then execs CMD in the process whose pid $! is, so that PIDS stops CMD
# itself (a function in the background is a subshell: its pid is not CMD's).
AS_USER="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
as_user() {
  $AS_USER "$@"
}

# ---- MPI --------------------------------------------------------------------------
# MPIRUN: mpirun with the flags every test needs (root allowed, more ranks
# than cores); run_mpi NP ARGS...: NP ranks, bounded in time, the traced
# programs' leaks unchecked; its exit status is left in $rc (never aborts).
# start_mpi NP ARGS...: the same in the background (a test does something
# else meanwhile), its pid in MPI_PID, stopped at exit; wait_mpi: its exit
# status in $rc.
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
run_mpi() { start_mpi "$@"; wait_mpi; }
start_mpi() {
  _np=$1; shift
  command -v mpirun >/dev/null || fail "mpirun not found (Debian package openmpi-bin)"
  timeout 120 $MPIRUN -np "$_np" -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$APP_ASAN_OPTIONS" "$@" &
  MPI_PID=$!
  PIDS="$PIDS $MPI_PID"
}
wait_mpi() {
  rc=0
  wait "$MPI_PID" || rc=$?
  PIDS=$(echo " $PIDS " | sed "s/ $MPI_PID / /")   # gone: its pid may be another's soon
}

# run_checkpoint JOB CHECKPOINT-ARGS...: 4 ranks of the checkpoint example
# under mpirun and libftio.so, streaming to the daemon `d` of start_daemon as
# job JOB; its stdout in $T/app.out (fails the test when it fails).
# The truth of a period is the program's own phase times: checkpoint_job runs
# it with --verbose --phases, and tests/daemon/phase_truth.py reads them and
# judges each message against the phases inside its own window.
# checkpoint_job NAME ARGS...: the live end-to-end setup of tests/daemon/e2e_*:
# ftiod d, the checkpoint mini-app under mpirun as job NAME-$$ ($JOB) with
# ARGS, --verbose and --phases (its phase times, read by
# tests/daemon/phase_truth.py), until ftiod published the job's end.
checkpoint_job() {
  need "$B/bin/ftiod" "$B/bin/checkpoint" "$B/lib/libftio.so"
  start_daemon d
  JOB=$1-$$; shift
  run_checkpoint $JOB "$@" -v --phases
  wait_topic "$T/d.log" "ftio.$JOB.end" 20
}

run_checkpoint() {
  _job=$1; shift
  run_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="ipc://$T/d.in" -x FTIO_JOB="$_job" \
    -x FTIO_SPOOL_DIR="$T" "$B/bin/checkpoint" "$@" -o "$T" >"$T/app.out" 2>"$T/app.err"
  [ "$rc" = 0 ] || fail "checkpoint failed: $(cat "$T/app.err")"
  cat "$T/app.out"
}
