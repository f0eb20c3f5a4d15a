#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# switch_races.sh -- the application does what it likes while the shim's
# flusher switches from ZMTP to ZeroMQ (a process's first second is over:
# it loads libzmq and starts ZeroMQ's threads), the moment one LAMMPS rank
# once died of SIGSEGV with no backtrace (issue 29).  An LD_AUDIT module
# (slow_load.so) makes the load of libzmq take 400 ms and says when it
# begins; meanwhile the program (shim-switch) returns from main (exit and
# the destructors), calls quick_exit or _exit, dies of SIGTERM, ends a
# thread, or forks a child that lives past its own switch.  Each ends as it
# should (exit status, no fault) and every record of every process reaches
# the receiver, with its final batch, no sequence gap and nothing lost.
# A flusher stuck past its bound (a 3-s load) leaves the process on time,
# with a warning that its trace may be incomplete.
# Also: the flusher's stack (256 KiB) after the switch has used less than
# half of it (32 KiB in a LAMMPS rank; a fault on its guard page would be
# a SIGSEGV of a shim thread).
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/tests/shim-switch" "$B/tests/slow_load.so"
SW="$B/tests/shim-switch"
export FTIO_SPOOL=daemon SLOW_LOAD_MATCH=libzmq.so SLOW_LOAD_MARK="$T/loading" SLOW_LOAD_MS=400
# race MODE EXPECTED_STATUS NPROCS: one program, its own receiver; the checks.
race() {
  rm -f "$T/loading" "$T/f.$1"
  start_recv "$T/got.$1" -n "$3" -i 10 -t 60
  LD_AUDIT="$B/tests/slow_load.so" traced "$SW" "$1" "$T/f.$1" "$T/loading" >"$T/out.$1" 2>"$T/$1.err"
  rc=$?
  wait_recv
  what="$1 during the switch"
  [ "$rc" = "$2" ] && ok "$what: exit status $rc" || bad "$what: exit status $rc, not $2: $(tail -3 "$T/$1.err")"
  npids=$(grep -c '^pid=' "$T/out.$1")
  lines=$(wc -l <"$T/f.$1")
  expect_eq "$T/got.$1" finals "$npids" "$what: final batches of its $npids process(es)"
  expect_eq "$T/got.$1" count.stdio.write "$lines" "$what: stdio write records (the file's lines)"
  expect_eq "$T/got.$1" lost 0 "$what: lost"
  expect_eq "$T/got.$1" seq_gaps 0 "$what: sequence gaps"
}
race exit 0 1
race quick 0 1
race _exit 0 1
race term 143 1
race thread 0 1
race fork 0 2

# A flusher that cannot finish (the load of libzmq takes 3 s, the bound is
# FTIO_EXIT_WAIT_MS=0 + 1 s): the process ends within its bound, and says
# that its trace may be incomplete (before: only under FTIO_DEBUG).
rm -f "$T/loading"
start_recv "$T/got.stuck" -i 3 -t 30
t0=$(date +%s.%N)
FTIO_EXIT_WAIT_MS=0 SLOW_LOAD_MS=3000 LD_AUDIT="$B/tests/slow_load.so" traced "$SW" _exit "$T/f.stuck" "$T/loading" \
  >"$T/out.stuck" 2>"$T/stuck.err"
rc=$?
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
wait_recv
what="_exit while the flusher is stuck in the load for 3 s"
[ "$rc" = 0 ] && ok "$what: exit status 0 after $took s" || bad "$what: exit status $rc"
grep -q 'its trace may be incomplete' "$T/stuck.err" && ok "$what: the process says its trace may be incomplete" ||
  bad "$what: not a word of the records left behind: $(tail -2 "$T/stuck.err")"

# The flusher's stack once it has switched: its mapping's touched pages.
rm -f "$T/loading"
start_recv "$T/got.stay" -n 1 -i 10 -t 60
env SLOW_LOAD_MS=0 FTIO_DEBUG=1 LD_AUDIT="$B/tests/slow_load.so" LD_PRELOAD="$PRELOAD" "$SW" stay "$T/f.stay" \
  "$T/loading" >"$T/out.stay" 2>"$T/stay.err" &
APP=$!
PIDS="$PIDS $APP"
# (ZeroMQ's "connecting to ENDPOINT", after ZMTP's "... (ZMTP, without ZeroMQ)")
wait_for 10 grep -q 'connecting to [^ ]*$' "$T/stay.err" ||
  bad "stay: no switch to ZeroMQ: $(tail -3 "$T/stay.err")"
"$PY" - "$APP" >"$T/stack" 2>&1 <<'PYEOF'
import os, re, sys, time
pid = sys.argv[1]
for attempt in range(200):
    for tid in os.listdir("/proc/%s/task" % pid):
        base = "/proc/%s/task/%s/" % (pid, tid)
        if open(base + "comm").read().strip() != "ftio-flusher":
            continue
        f = open(base + "syscall").read().split()
        if len(f) < 3 or not f[-2].startswith("0x"):
            continue                      # running: look again
        sp, lo = int(f[-2], 16), None
        for line in open("/proc/%s/smaps" % pid):
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
            if m:
                a, b = int(m.group(1), 16), int(m.group(2), 16)
                lo = (a, b) if a <= sp < b else None
            elif lo and line.startswith("Rss:"):
                print("size=%d\nused=%d" % ((lo[1] - lo[0]) // 1024, int(line.split()[1])))
                sys.exit(0)
    time.sleep(0.01)
sys.exit("no ftio-flusher thread blocked in a system call: %s" % [
    (open("/proc/%s/task/%s/comm" % (pid, t)).read().strip(), open("/proc/%s/task/%s/syscall" % (pid, t)).read().split()[:1])
    for t in os.listdir("/proc/%s/task" % pid)])
PYEOF
size=$(val "$T/stack" size); used=$(val "$T/stack" used)
if [ -n "$size" ] && [ -n "$used" ]; then
  [ "$used" -le $((size / 2)) ] && ok "the flusher's stack after the switch: $used of $size KiB touched" ||
    bad "the flusher's stack after the switch: $used of $size KiB touched"
else
  bad "the flusher's stack: $(cat "$T/stack")"
fi
wait "$APP" || bad "stay: exit status $?"
wait_recv
finish
