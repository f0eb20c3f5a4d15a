#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# zmtp.sh -- a short traced process delivers its batches to ftiod without
# loading libzmq (libtrace/zmtp.c, bench/README.md "exit latency"), and
# delivery is never worse than with ZeroMQ:
#  (a) N `cat`s of files of known sizes: ftiod's end of the job counts N
#      processes and exactly the files' bytes (the truth: the file sizes);
#  (b) no spool file is left;
#  (c) libzmq was never loaded in them (the dynamic loader's own LD_DEBUG=files
#      log of each process);
#      each of them without a flusher thread (delivered from its exiting
#      thread, libtrace/README.md), its kernel cross-check 0/0;
#  (d) a peer that answers garbage, and a SIGSTOPped ftiod: the process ends
#      within bounds and its batches are in the spool file (their bytes = the
#      file's size); a user's first process (no "up" marker) waits longer
#      for ftiod's own listener whose process runs (a daemon not scheduled
#      yet on a loaded node: a listener that never accepts stands for it),
#      not for a stopped one;
#      FTIO_ZMTP=0 or a shared descriptor table (FTIO_PRIVATE_FDS=0): ZeroMQ;
#  (e) a process that lives past a second moves to ZeroMQ (and loses nothing),
#      its flusher thread started;
#      a tcp:// endpoint is spoken to as well;
#  (f) with --auth munge: the MUNGE frame rides along, ftiod checks and
#      accepts it (no batch refused as unauthenticated), still without libzmq;
#  (g) on ipc:// the processes reach ftiod's own listener (PATH.zmtp,
#      predictor/daemon/zmtp_listen.c), which hostile peers do not disturb:
#      garbage, a frame larger than --max-msg and a connection that never
#      completes the handshake (within its 2 s) are closed, and a process
#      after them is delivered whole; the
#      socket file goes with ftiod.
# On the code before zmtp.c, (c) fails: every process that records loads libzmq.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$SHIM" "$WIRE" "$B/bin/posix_periodic"

# ms since the epoch
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# traced_cat ENDPOINT JOB FILE ERR [env...]: cat FILE traced, the shim's
# debug log and the loader's file log into ERR; sets ELAPSED (ms).
traced_cat() {
  _ep=$1 _job=$2 _f=$3 _err=$4; shift 4
  _t0=$(now_ms)
  # (the loader's log on stderr, which the flusher's private descriptor
  # table keeps: LD_DEBUG_OUTPUT's descriptor is not in it)
  env FTIO_ENDPOINT="$_ep" FTIO_JOB="$_job" FTIO_DEBUG=1 LD_DEBUG=files "$@" \
    LD_PRELOAD="$PRELOAD" cat "$_f" >/dev/null 2>"$_err" || bad "cat $_f failed"
  ELAPSED=$(($(now_ms) - _t0))
}
# no_zmq ERR...: none of these processes loaded libzmq, each spoke ZMTP.
no_zmq() {
  _z=$(grep -l 'file=libzmq' "$@")
  [ -z "$_z" ] && ok "libzmq not loaded in $# processes" || bad "libzmq loaded in: $_z"
  _n=$(grep -l 'ZMTP, without ZeroMQ' "$@" | wc -l)
  [ "$_n" = "$#" ] && ok "all $# spoke ZMTP" || bad "only $_n of $# spoke ZMTP"
}
# end_is DAEMON JOB PROCESSES BYTES: ftiod's end of the job
end_is() {
  wait_topic "$T/$1.log" "ftio.$2.end" 30
  _e=$(jsonl "$T/$1.log" "[last('ftio.$2.end')[k] for k in ('processes', 'bytes', 'complete', 'missing_batches')]")
  [ "$_e" = "[$3, $4.0, true, 0]" ] && ok "ftiod has job $2 whole: $3 processes, $4 bytes" ||
    bad "job $2's end (processes, bytes, complete, missing) = $_e, expected [$3, $4.0, true, 0]"
}
no_spool() {
  set -- "$T"/spool/ftio-"$1"-*.msgpack
  [ -e "$1" ] && bad "spool file written: $(ls "$T/spool")" || ok "no spool file"
}
# spooled JOB BYTES: the job's spool file holds BYTES of reads and writes
spooled() {
  set -- "$1" "$2" "$T"/spool/ftio-"$1"-*.msgpack
  [ -e "$3" ] || { bad "job $1: nothing spooled"; return; }
  _b=$(wire dump -s "$3" | sed -n 's/^total .* bytes_rw=\([0-9]*\).*/\1/p')
  [ "$_b" = "$2" ] && ok "job $1: spooled, $2 bytes in the spool file" || bad "job $1: spooled $_b bytes, expected $2"
}

# ---- (a)-(c): delivered, without libzmq ------------------------------------------
# A job ends --settle-end after its last process's final batch; the processes
# here run one after another, so the settle must outlast the gap between one
# cat's exit and the next one's first batch, which under ASan on a loaded
# machine passed 0.3 s (the job ended after its first process).
SETTLE=2
start_daemon d --settle-end $SETTLE
N=5 total=0
for i in $(seq 1 $N); do
  head -c $((1000 * i + 17)) /dev/urandom >"$T/f$i"
  total=$((total + 1000 * i + 17))
done
for i in $(seq 1 $N); do
  traced_cat "ipc://$T/d.in" short "$T/f$i" "$T/cat$i.log"
done
end_is d short $N $total
no_spool short
set -- "$T"/cat[0-9]*.log
no_zmq "$@"
_n=$(grep -l "ftiod's own listener" "$@" | wc -l)
[ "$_n" = "$N" ] && ok "all $N reached ftiod's own listener" || bad "only $_n of $N reached ftiod's own listener"
# No flusher thread for them (libtrace/README.md "A short process's end,
# without a thread"): each delivered from its exiting thread
_n=$(grep -l "delivered from its own thread" "$@" | wc -l)
_t=$(grep -l "flusher runs in a private descriptor table" "$@" | wc -l)
[ "$_n" = "$N" ] && [ "$_t" = 0 ] && ok "all $N ended without a flusher thread" ||
  bad "$_n of $N delivered from their own thread, $_t started a flusher thread"
# and its kernel cross-check, made in that thread, finds nothing unseen
# (without LD_DEBUG, whose own lines at exit the loader writes unseen)
env FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=short1 FTIO_DEBUG=1 LD_PRELOAD="$PRELOAD" cat "$T/f1" \
  >/dev/null 2>"$T/plain.log" || bad "cat failed"
grep -q "kernel cross-check: .*recorded 1017/0.*unseen 0/0" "$T/plain.log" &&
  grep -q "delivered from its own thread" "$T/plain.log" && ok "a cat's cross-check in its own thread: unseen 0/0" ||
  bad "a cat's cross-check: $(grep 'ftio\[' "$T/plain.log")"
end_is d short1 1 1017

# FTIO_ZMTP=0: ZeroMQ, as before zmtp.c; and a flusher sharing the
# application's descriptor table (FTIO_PRIVATE_FDS=0, ZeroMQ too: its logs
# are lost with cat's stderr then); both delivered
traced_cat "ipc://$T/d.in" viazmq "$T/f1" "$T/zmq1.log" FTIO_ZMTP=0
traced_cat "ipc://$T/d.in" viazmq "$T/f2" "$T/zmq2.log" FTIO_PRIVATE_FDS=0
end_is d viazmq 2 $((1017 + 2017))
grep -q 'file=libzmq' "$T/zmq1.log" && ok "FTIO_ZMTP=0: ZeroMQ" ||
  bad "FTIO_ZMTP=0: libzmq not loaded: $(grep 'ftio\[' "$T/zmq1.log")"

# ---- (d) a peer speaking something else, a stopped daemon ---------------------------
"$PY" - "$T/garbage.sock" "$T/ctl/garbage-ready" <<'PYEOF' 2>"$T/garbage.err" &
import os, socket, sys, threading
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(16)
open(sys.argv[2], "w").close()
def serve(c):
    try:
        c.sendall(b"HTTP/1.0 400 Bad Request\r\n" * 4)
        while c.recv(65536):
            pass
    except OSError:
        pass
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PYEOF
PIDS="$PIDS $!"
wait_file "$T/ctl/garbage-ready" 5 || fail "the garbage peer did not start"
# (a short exit wait: the bound below is the shim's, not the suite's 3 s)
traced_cat "ipc://$T/garbage.sock" garbage "$T/f3" "$T/garbage.log" FTIO_EXIT_WAIT_MS=100
[ "$ELAPSED" -lt 2000 ] && ok "garbage peer: the process ended in $ELAPSED ms" ||
  bad "garbage peer: the process took $ELAPSED ms: $(grep 'ftio\[' "$T/garbage.log")"
grep -q 'ZMTP to .*: the peer does not speak ZMTP 3' "$T/garbage.log" && ok "garbage peer: ZMTP refused it" ||
  bad "garbage peer: no ZMTP refusal in the shim's log"
spooled garbage 3017

start_daemon e
kill -STOP $DPID
traced_cat "ipc://$T/e.in" stopped "$T/f2" "$T/stopped.log" FTIO_EXIT_WAIT_MS=100
kill -CONT $DPID
[ "$ELAPSED" -lt 2000 ] && ok "stopped daemon: the process ended in $ELAPSED ms" ||
  bad "stopped daemon: the process took $ELAPSED ms: $(grep 'ftio\[' "$T/stopped.log")"
spooled stopped 2017
no_zmq "$T/stopped.log"
grep -q 'has not answered yet: waiting' "$T/stopped.log" &&
  bad "stopped daemon: the exit waited longer for it: $(grep 'ftio\[' "$T/stopped.log")" ||
  ok "stopped daemon, first process: no longer wait"
# ftiod's two sockets, bound by a process that runs and never accepts
"$PY" - "$T/busy.in" "$T/ctl/busy-ready" <<'PYEOF' &
import socket, sys, time
socks = []
for path in (sys.argv[1], sys.argv[1] + ".zmtp"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path); s.listen(16); socks.append(s)
open(sys.argv[2], "w").close()
time.sleep(60)
PYEOF
PIDS="$PIDS $!"
wait_file "$T/ctl/busy-ready" 5 || fail "the busy listener did not start"
traced_cat "ipc://$T/busy.in" busy "$T/f2" "$T/busy.log" FTIO_EXIT_WAIT_MS=100
[ "$ELAPSED" -lt 2000 ] && grep -q 'has not answered yet: waiting up to 300 ms' "$T/busy.log" &&
  ok "a listener whose process runs: the first process waited longer ($ELAPSED ms)" ||
  bad "a listener whose process runs: $ELAPSED ms, $(grep 'ftio\[' "$T/busy.log")"
spooled busy 2017

# ---- (e) a longer process; tcp:// ---------------------------------------------------
mkdir "$T/pp"
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=long FTIO_DEBUG=1 FTIO_FLUSH_MS=200 \
  traced "$B/bin/posix_periodic" -n 5 -p 0.4 -b 4096 -d "$T/pp" >"$T/long.out" 2>"$T/long.log" ||
  bad "posix_periodic failed"
grep -q 'ZMTP, without ZeroMQ' "$T/long.log" && grep -q 'alive for 1000 ms: ZeroMQ from now on' "$T/long.log" &&
  ok "a process alive past a second began with ZMTP and went on with ZeroMQ" ||
  bad "no move from ZMTP to ZeroMQ: $(grep 'ftio\[' "$T/long.log")"
# it lived on past its first record: its flusher thread started
grep -q 'flusher runs in a private descriptor table' "$T/long.log" &&
  ! grep -q 'delivered from its own thread' "$T/long.log" && ok "a process that lives on has its flusher thread" ||
  bad "posix_periodic's flusher: $(grep 'ftio\[' "$T/long.log")"
# the program's own log says what it wrote
pp_bytes=$(awk '/wrote [0-9]+ bytes/ { n += $4 } END { print n }' "$T/long.out")
end_is d long 1 "$pp_bytes"
no_spool long

port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_daemon t --listen "tcp://127.0.0.1:$port" --settle-end 0.3
traced_cat "tcp://127.0.0.1:$port" overtcp "$T/f4" "$T/tcp.log"
end_is t overtcp 1 4017
no_spool overtcp
no_zmq "$T/tcp.log"

# ---- (g) ftiod's own listener and hostile peers ---------------------------------------
start_daemon g --max-msg 65536 --settle-end 0.3
"$PY" - "$T/g.in.zmtp" <<'PYEOF' >"$T/hostile.out" 2>&1
import socket, sys, time
def conn():
    s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1]); return s
def closed(s):
    try:
        while True:
            if not s.recv(65536):
                return True
    except OSError:
        return True
greet = bytes([0xff] + [0] * 7 + [1, 0x7f, 3, 0]) + b"NULL" + bytes(16) + bytes(32)
ready = bytes([4, 28, 5]) + b"READY" + bytes([11]) + b"Socket-Type" + bytes([0, 0, 0, 6]) + b"DEALER"
idle = conn()                                   # connects and says nothing
g = conn(); g.sendall(b"GET / HTTP/1.0\r\n" * 8)  # not ZMTP
print("garbage closed", closed(g))
o = conn()                                      # a frame over --max-msg, announced
o.sendall(greet + ready + bytes([1, 0]) + bytes([2]) + (1 << 20).to_bytes(8, "big"))
print("oversized closed", closed(o))
# ftiod's greeting, then its end of the connection (the handshake's bound,
# 2 s); a timeout (10 s) is not an end
def eof(s):
    t = time.monotonic()
    try:
        while s.recv(65536):
            pass
        return "eof after %.1f s" % (time.monotonic() - t)
    except OSError as e:
        return "no eof (%s)" % e
print("idle", eof(idle))
PYEOF
grep -q 'garbage closed True' "$T/hostile.out" && grep -q 'oversized closed True' "$T/hostile.out" &&
  ok "ftiod's own listener closed a garbage peer and an oversized frame" ||
  bad "hostile peers: $(cat "$T/hostile.out")"
# (before the handshake's bound: the idle connection stayed open for good)
grep -q 'idle eof after' "$T/hostile.out" && ok "ftiod closed a connection that never completed the handshake" ||
  bad "idle peer: $(grep idle "$T/hostile.out")"
traced_cat "ipc://$T/g.in" afterhostile "$T/f2" "$T/hostile.log"
grep -q "ftiod's own listener" "$T/hostile.log" && ok "after them, a process reached the listener" ||
  bad "after the hostile peers: $(grep 'ftio\[' "$T/hostile.log")"
end_is g afterhostile 1 2017
no_spool afterhostile
kill -TERM $DPID && wait_gone $DPID 10
[ ! -e "$T/g.in.zmtp" ] && ok "the listener's socket file went with ftiod" || bad "$T/g.in.zmtp left behind"

# ---- (f) MUNGE ------------------------------------------------------------------------
start_munged
start_daemon m --auth munge --munge-socket "$T/munge.sock" --settle-end $SETTLE
for i in 1 2; do
  traced_cat "ipc://$T/m.in" munged "$T/f$i" "$T/munge$i.log" FTIO_AUTH=munge
done
end_is m munged 2 $((1017 + 2017))
no_spool munged
no_zmq "$T/munge1.log" "$T/munge2.log"
# ftiod logs every message it drops (an unauthenticated one among them)
grep -q 'dropped' "$T/m.err" && bad "ftiod (auth munge) dropped messages: $(grep dropped "$T/m.err")" ||
  ok "ftiod (auth munge) checked the credentials and dropped nothing"
finish
