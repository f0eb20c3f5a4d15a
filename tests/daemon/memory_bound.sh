#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# memory_bound.sh -- a job's memory follows its analysis window, not its
# length (issue 27): a day of 10-s bursts every minute (4 ranks, 1440
# phases) replayed into ftiod costs no more than an hour of the same job,
# and both at most 64 KiB (ftiod's own account, `memory` in its status: the
# stream's blocks of bins, its loops and answers, the processes); ftiod's
# resident memory grows by less than 3 MB for the day (2.3 MB on a loaded machine, whose
# analyses lag the replay: more bins arrive before the window forgets them;
# before: it held
# 864 KB of bins and 3 MB of records).  The
# answers are the period.  The jobs send no final batch: they stay open.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"
# A small receive queue and one analysis thread: what ZeroMQ holds of the
# replay, and a second thread's buffers, are not the job's.
start_daemon d --rcvhwm 100 --threads 1
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$DPID/status"; }
# replay JOB PHASES: the job's spool, until its answer is periodic (replayed
# data is old: every boundary is due at once; the newest ones are analysed,
# the default --catch-up newest, and the windows forget).
replay() {
  wire periodic --endpoint "ipc://$T/d.in" --job "$1" --ranks 4 --period 60 --duration 10 \
    --phases "$2" --no-final || fail "ftio-wire periodic $1"
  wait_for 60 log_is "$T/d.log" "(last('ftio.$1.write') or {}).get('class') == 'periodic'" ||
    fail "$1: no periodic answer"
}
# The hour first: it pays what every analysis of a whole horizon costs (the
# analysis threads' buffers, FFT plans), which the day's first analysis, of a
# horizon too, reuses.
replay hour 60
rss0=$(rss)
replay day 1440
wait_for 30 status_is d "all(j['memory'] < 65536 for j in s['jobs'])" ||
  bad "a job holds 64 KiB or more: $(cat "$T/d.status.json")"
# Under `make asan` the resident memory says nothing of ours: ASan's
# quarantine keeps freed blocks (the job's own account above still counts).
asan=0
ldd "$B/bin/ftiod" | grep -q libasan && asan=1
"$PY" - "$T/d.status.json" "$T/d.log" "$rss0" "$(rss)" "$asan" <<'PY' || bad "memory (see above)"
import json, sys
st, log, rss0, rss1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
asan = sys.argv[5] == "1"
mem = {j["job"]: j["memory"] for j in json.load(open(st))["jobs"]}
last = {}
for d in map(json.loads, open(log)):
    last[d["topic"]] = d["message"]
per = {j: last["ftio.%s.write" % j]["period"] for j in ("hour", "day")}
print("memory: hour %d B, day %d B; periods %s; ftiod RSS +%d KB for the day" % (mem["hour"], mem["day"],
      per, rss1 - rss0))
ok = mem["day"] <= 1.5 * mem["hour"] + 4096 and all(abs(p - 60) <= 0.6 for p in per.values()) \
     and (asan or rss1 - rss0 < 3072)
sys.exit(0 if ok else 1)
PY
ok "a day-long job costs what an hour of it costs"
finish
