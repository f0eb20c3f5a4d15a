#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/sitescale.sh -- ftiod serving a whole machine (issue 18): N live jobs
# from one `ftio-wire fleet` sender (each job one process flushing once a
# second while it does I/O, periods 10-600 s, half of them also reading), an
# optional history of H hours per job loaded first, S seconds live.
#
#   bench/sitescale.sh N [H=0] [S=60] [ftiod options...]
#   bench/sitescale.sh --hog N [S=60]   one 24-h spool (64 ranks, 10-s bursts
#                                       every 60 s) replayed beside N live jobs
#   bench/sitescale.sh --open N [H] [S] SIGTERM after S s live, the N jobs still
#                                       open (no `final`): the stop's time and
#                                       ends (issue 27)
#
# Prints one line of figures: prediction latency p50/p99 (a boundary is due
# --settle = 1.5 s after its window's end, by the wall clock, once data came:
# latency = published - window.end - 1.5 s, over the messages published in
# the live part after its first 10 s; a stale message republishes a kept
# answer with that answer's window, so those are counted apart), messages, ftiod's CPU over the live part (% of
# one core) and its RSS per job (RSS at the end minus RSS before any job,
# divided by N); the jobs whose .end came within 3 s of their final batch,
# how long ftiod took to stop at SIGTERM 3 s later and the end summaries it
# says it lost; when the ends came and why (ended_by), and ftiod's own
# account of a live job's memory (`memory` in its status, issue 27), and ftiod's
# CPU in all (the same work before and after a change, whatever the load);
# the same latency's p99 per 20-s slice of the live part (from its start:
# the catch-up is the first slices) and how many jobs published a
# non-stale prediction during the live part (issue 27: every one should),
# and by its end (a job with no I/O in the live part whose history was
# analysed before it began has nothing new to say in it); the ingest
# thread's CPU and minor faults when the history was sent, at the live
# part's 20th second and at its end (the catch-up's critical path).
# The hog line adds its figures: the spool's send time, and
# how long after the send began its newest boundary and its .end were
# published.  Everything comes from ftiod's own --log and /proc.
B=${B:-build}
export FTIO_AUTH=none   # the senders: ftiod runs with --auth none
PY=${PY:-python3}
HOG=0 OPEN=0
if [ "${1:-}" = --hog ]; then HOG=1; shift; fi
if [ "${1:-}" = --open ]; then OPEN=1; shift; fi
N=${1:?usage: bench/sitescale.sh [--hog] N [H] [S] [ftiod options]}
H=${2:-0}
S=${3:-60}
[ $# -ge 3 ] && shift 3 || shift $#
[ "$HOG" = 1 ] && H=0
T=$(mktemp -d "${TMPDIR:-/tmp}/sitescale.XXXXXX") || exit 1
trap 'kill $DPID 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT INT TERM
"$B/bin/ftiod" --config none --auth none --listen "ipc://$T/in" --pub "ipc://$T/pub" \
  --status-endpoint "ipc://$T/st" --log "$T/log" "$@" 2>"$T/err" &
DPID=$!
i=0
until grep -q "listening on" "$T/err" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 100 ] && { echo "ftiod did not start"; cat "$T/err"; exit 1; }
  sleep 0.1
done
rss() { awk '/^VmRSS/ { print $2 * 1024 }' "/proc/$DPID/status"; }
cpu() { awk '{ print $14 + $15 }' "/proc/$DPID/stat"; }
# The ingest (ftiod's main thread): its CPU (ticks) and minor faults.
ingest() { awk '{ print $14 + $15 ":" $10 }' "/proc/$DPID/task/$DPID/stat"; }
RSS0=$(rss)
if [ "$HOG" = 1 ]; then
  ( sleep 20
    echo "$(date +%s.%N)" >"$T/hog.t0"
    "$B/bin/ftio-wire" periodic --endpoint "ipc://$T/in" --job hog --ranks 64 --period 60 \
      --duration 10 --phases 1440 --offset 1 >/dev/null
    echo "$(date +%s.%N)" >"$T/hog.t1" ) &
fi
"$B/bin/ftio-wire" fleet --endpoint "ipc://$T/in" --jobs "$N" --history "$H" --seconds "$S" \
  --info "$T/info.json" &
FPID=$!
# CPU over the live part: from when the sender wrote its info (history sent).
i=0
until [ -s "$T/info.json" ]; do
  i=$((i + 1)); [ $i -gt 36000 ] && { echo "no history sent in an hour"; exit 1; }
  sleep 0.1
done
C0=$(cpu); W0=$(date +%s.%N); I0=$(ingest)
# The ingest thread's CPU in the live part's first 20 s: the catch-up.
if [ "$S" -gt 20 ]; then sleep 20; I20=$(ingest); sleep $((S - 20)); else sleep "$S"; I20=-; fi
# RSS is read at its peak: just before the jobs' final batches.
I1=$(ingest)
RSS1=$(rss)
# ftiod's own account of each job's memory (`memory` in its status, where it has one).
FTIO_AUTH=none "$B/bin/ftiod" --config none --status --json --status-endpoint "ipc://$T/st" \
  >"$T/status.live.json" 2>/dev/null
if [ "$OPEN" = 1 ]; then
  C1=$(cpu); W1=$(date +%s.%N)
else
  wait $FPID || { echo "fleet sender failed"; exit 1; }
  C1=$(cpu); W1=$(date +%s.%N)
  sleep 3
fi
FTIO_AUTH=none "$B/bin/ftiod" --config none --status --json --status-endpoint "ipc://$T/st" \
  >"$T/status.json" 2>/dev/null
# SIGTERM: how long ftiod takes to stop, and the jobs it says lost their end summary.
CT=$(cpu)   # ftiod's CPU in all, history and live (the same work before and after)
K0=$(date +%s.%N); kill -TERM $DPID; wait $DPID 2>/dev/null; K1=$(date +%s.%N); echo "$K0 $K1" >"$T/kill.t"
[ "$OPEN" = 1 ] && { kill $FPID 2>/dev/null; wait $FPID 2>/dev/null; }
LOST=$(sed -n 's/.*stopped before \([0-9]*\) of.*/\1/p' "$T/err" | tail -1)
[ "$OPEN" = 1 ] && echo "SIGTERM with $N open jobs: $(grep -o 'stopping: .*' "$T/err" || echo 'no count of the ends in the log')"
"$PY" - "$T/log" "$T/info.json" "$N" "$H" "$S" "$RSS0" "$RSS1" "$C0" "$C1" "$W0" "$W1" \
  "$(getconf CLK_TCK)" "$T/hog.t0" "$T/hog.t1" "$T/status.json" "$K0" "$K1" "${LOST:-0}" \
  "$T/status.live.json" "$CT" "$I0" "$I20" "$I1" <<'PY'
import json, os, sys
log, info, n, h, s, rss0, rss1, c0, c1, w0, w1, tck, hog0, hog1, status, k0, k1, lost, live, ct, i0, i20, i1 = sys.argv[1:]
info = json.load(open(info))
live0 = info["live_start"]
lat, msgs, stale, ended, ended3, end_delay, by = [], 0, 0, set(), set(), [], {}
slices, predicted, before = {}, set(), set()   # latencies per 20-s slice of the live part; jobs that predicted in it, before it
hog = {"first": None, "newest": None, "end": None, "end_t": None}
for line in open(log):
    d = json.loads(line)
    t, m = d["topic"], d["message"]
    if t == "ftio.machine":          # the machine forecast (--machine-log): not a job's
        continue
    if t.startswith("ftio.hog."):
        if t == "ftio.hog.end":
            hog["end"] = m.get("published") or m["summary"]["write"]["published"]
        elif t == "ftio.hog.write":
            hog["first"] = hog["first"] or m["published"]
            hog["newest"] = (m["window"]["end"], m["published"])
        continue
    if t.endswith(".end"):
        ended.add(m["job"])
        # Within 3 s of the final batches (the sender exits once it sent them).
        pub = m.get("time") or max((v.get("published", 0) for v in m["summary"].values()
                                         if isinstance(v, dict)), default=0)
        if pub <= float(w1) + 3:
            ended3.add(m["job"])
        end_delay.append(pub - float(w1))
        by[m.get("ended_by")] = by.get(m.get("ended_by"), 0) + 1
        continue
    msgs += 1
    in_live = live0 <= m["published"] <= live0 + float(s)
    if in_live and not m["stale"]:
        predicted.add(m["job"])
    elif m["published"] < live0 and not m["stale"]:
        before.add(m["job"])          # a history analysed while the sender still sent
    if not in_live or m["window"]["end"] < live0:
        continue
    if m["stale"]:
        if m["published"] >= live0 + 10:
            stale += 1
        continue
    late = m["published"] - m["window"]["end"] - 1.5
    slices.setdefault(int((m["published"] - live0) // 20), []).append(late)
    if m["published"] >= live0 + 10:
        lat.append(late)
try:
    drop = json.load(open(status))["dropped"]
except (OSError, ValueError, KeyError):
    drop = {}
refused = lambda k: drop.get(k, "?")
def q(p, v=None):
    v = lat if v is None else v
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
lat.sort()
cpu = (float(c1) - float(c0)) / float(tck) / (float(w1) - float(w0)) * 100
per_job = (float(rss1) - float(rss0)) / int(n) / 1024
print("N=%s history=%s h live=%s s: latency p50 %.3f s p99 %.3f s max %.3f s (%d live messages, "
      "%d stale left out, %d in all); ftiod CPU %.0f %% of a core; RSS %.1f MB, %.1f KB per job; "
      "%d of the %s jobs had their .end within 3 s of their final batch, %d in all (SIGTERM 3 s "
      "later: ftiod stopped in %.2f s, %s end summaries lost); batches refused over --max-jobs %s, "
      "over --max-memory %s" %
      (n, h, s, q(0.5), q(0.99), lat[-1] if lat else float("nan"), len(lat), stale, msgs, cpu,
       float(rss1) / 2**20, per_job, len(ended3), n, len(ended), float(k1) - float(k0), lost,
       refused("over_max_jobs"), refused("over_memory")))
end_delay.sort()
try:
    mem = sorted(j["memory"] for j in json.load(open(live))["jobs"] if "memory" in j)
except (OSError, ValueError, KeyError):
    mem = []
print("ftiod's CPU in all (history, live, ends): %.1f s" % (float(ct) / float(tck)))
ing = lambda v: [float(x) for x in v.split(":")] if ":" in v else None
ing0, ing20, ing1 = ing(i0), ing(i20), ing(i1)
print("ingest thread: CPU %.1f s and %d minor faults while the history was sent, %sto the "
      "live part's end %.1f s and %d" %
      (ing0[0] / float(tck), ing0[1],
       "to its 20th s %.1f s and %d, " % (ing20[0] / float(tck), ing20[1]) if ing20 else "",
       ing1[0] / float(tck), ing1[1]))
print("live part per 20-s slice, p99 (messages): %s; %d of the %s jobs published a prediction "
      "during the live part, %d by its end (%d before it)" %
      (", ".join("%d-%d s %.2f s (%d)" % (20 * k, 20 * k + 20, q(0.99, sorted(v)), len(v))
                 for k, v in sorted(slices.items())), len(predicted), n, len(predicted | before),
       len(before)))
print("ends: published after the sender's last batch by p50 %.2f s, max %.2f s; ended_by %s; "
      "ftiod's own account of a live job's memory: %s" %
      (end_delay[len(end_delay) // 2] if end_delay else float("nan"),
       end_delay[-1] if end_delay else float("nan"), by,
       "median %.1f KB, max %.1f KB (%d jobs)" % (mem[len(mem) // 2] / 1024, mem[-1] / 1024, len(mem))
       if mem else "none"))
if os.path.exists(hog0):
    t0 = float(open(hog0).read())
    t1 = float(open(hog1).read()) if os.path.exists(hog1) else float("nan")
    newest = hog["newest"][1] - t0 if hog["newest"] else float("nan")
    end = hog["end"] - t0 if hog["end"] else float("nan")
    print("hog: 24-h spool sent in %.1f s; its newest boundary (window end %s s from the send's "
          "start; the spool ends 1 s before it) published %.1f s after the send began, its .end "
          "after %.1f s" % (t1 - t0, "%+.1f" % (hog["newest"][0] - t0) if hog["newest"] else "-",
                            newest, end))
PY
