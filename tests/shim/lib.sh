# tests/shim/lib.sh -- helpers for the shim's shell tests (sourced).
#
# Sets B (build dir, absolute), SHIM (libftio.so), RECV (ftio-recv), T (a
# fresh mktemp -d, removed with every process we started on exit) and
# PRELOAD, the LD_PRELOAD value (tests/preload.sh: libasan.so in front of the
# shim under `make asan`; an uninstrumented program then runs with the ASan
# runtime too, which is fine).  Leak checking
# stays on: the shim keeps everything it allocates reachable.
B=${FTIO_TEST_BUILD:-build}
case "$B" in /*) ;; *) B="$PWD/$B" ;; esac
SHIM="$B/lib/libftio.so"
RECV="$B/tests/ftio-recv"
[ -f "$SHIM" ] || { echo "missing $SHIM"; exit 1; }
[ -x "$RECV" ] || { echo "missing $RECV"; exit 1; }
. "$(dirname "$0")/../preload.sh"
PRELOAD=$(ftio_preload "$SHIM")
T=$(mktemp -d)
mkdir -p "$T/ctl" "$T/spool"
PIDS=""
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT INT TERM
# Isolate every test from the caller's environment.
unset FTIO_JOB FTIO_SPOOL FTIO_DISABLE FTIO_LAYERS FTIO_EXCLUDE FTIO_FLUSH_MS FTIO_BUFFER_MB FTIO_DEBUG
export FTIO_SPOOL_DIR="$T/spool"
export FTIO_ENDPOINT="ipc://$T/recv.sock"
FAILS=0

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok()   { echo "ok: $*"; }

# traced CMD...: run CMD with the shim preloaded.
traced() { env LD_PRELOAD="$PRELOAD" "$@"; }

# start_recv OUT [ftio-recv options]: receiver on $FTIO_ENDPOINT in the
# background, writing its report to OUT; returns once the socket is bound.
start_recv() {
  out=$1; shift
  rm -f "$T/ctl/recv-ready"
  "$RECV" -e "$FTIO_ENDPOINT" -R "$T/ctl/recv-ready" "$@" >"$out" 2>"$out.err" &
  RECV_PID=$!
  PIDS="$PIDS $RECV_PID"
  i=0
  while [ ! -f "$T/ctl/recv-ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  [ -f "$T/ctl/recv-ready" ] || { fail "receiver did not start"; cat "$out.err"; }
}

# wait_recv: wait for the background receiver to finish (bounded by its -i/-t).
wait_recv() { wait "$RECV_PID"; }

# val FILE KEY: the value of KEY= in a report (empty when absent).
val() { sed -n "s/^$2=//p" "$1" | head -1; }

# expect_eq FILE KEY VALUE [what]
expect_eq() {
  got=$(val "$1" "$2")
  if [ "${got:-0}" = "$3" ]; then ok "${4:-$2} = $3"; else fail "${4:-$2}: expected $3, got '${got}' ($1)"; fi
}

# compare_counts EXPECTED GOT: every count./bytes. line of EXPECTED is in GOT,
# and GOT has no count./bytes. line of those layers that EXPECTED lacks.
compare_counts() {
  missing=$(grep -v -x -F -f "$2" "$1")
  layers=$(sed -n 's/^count\.\([a-z]*\)\..*/\1/p' "$1" | sort -u | tr '\n' '|' | sed 's/|$//')
  extra=$(grep -E "^(count|bytes)\.($layers)\.[a-z]+=" "$2" | grep -v -x -F -f "$1")
  if [ -z "$missing$extra" ]; then
    ok "$3: all $(grep -c '^count' "$1") call families match"
  else
    fail "$3: expected but not received: $(echo $missing) / received but not expected: $(echo $extra)"
  fi
}

finish() {
  if [ "$FAILS" = 0 ]; then echo "all ok"; exit 0; fi
  echo "$FAILS failure(s)"; exit 1
}
