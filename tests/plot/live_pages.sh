#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# live_pages.sh -- the pages of a live job (issue 19, the pictures items),
# their facts read from the HTML/SVG with Python (tests/plot/page_facts.py):
#   report      ftio report on the --log of a live ftiod that followed a
#               periodic job (ftio replay of ftio-wire spool files: 10 phases
#               every 2 s, 2 ranks): per mode the job's bandwidth derived
#               from ftiod's cumulative bytes with its phases, beside the
#               prediction history, one point per published message at its
#               own x (stale repeats of one window are not piled up);
#   trace       the same with --trace: the signal and the phases from the
#               spool files (10 phases found, the signal's volume that of the
#               requests the generator wrote);
#   stale       a crafted log: one window's end published three times
#               (stale) draws three points at three x; two activities (v3
#               "activities") each in its own colour;
#   last        ftio sub --last --plot: the page of the status socket's
#               answer, while the job runs and after it ended;
#   offline     ftio --plot on the TMIO reference: both modes on the page
#               (the one asked for first, the exports of it only), job
#               metadata (ranks) and the tallest spectral line that is not the answer
#               marked on the spectrum and explained in a note;
#   darshan     a binary Darshan log: executable, user, ranks, start, run
#               time in the page's metadata.
. "$(dirname "$0")/../lib.sh"
FTIO="$B/bin/ftio"
need "$FTIO" "$B/bin/ftiod" "$WIRE"
FACTS="$PY $HERE/../plot/page_facts.py"
D="$HERE/../data"
export FTIO_AUTH=none

# fact PAGE EXPR: EXPR (Python, over the page's facts `p`) must hold.
fact() {
  $FACTS "$T/$1.html" "$2" >"$T/fact.out" 2>&1 || fail "$1: $2: $(cat "$T/fact.out")"
  echo "ok: $1: $2"
}

# ---- a live job: ftiod follows a replay of 10 periodic phases ----------------
mkdir -p "$T/spool"
"$WIRE" periodic --spool "$T/spool" --job pj --ranks 2 --period 2 --duration 0.4 \
  --bytes 20000000 --phases 10 || fail "ftio-wire"
start_daemon d
timeout 60 "$FTIO" replay --endpoint "ipc://$T/d.in" --speed 4 "$T"/spool/*.msgpack \
  >"$T/replay.out" 2>&1 || fail "ftio replay: $(cat "$T/replay.out")"
wait_topic "$T/d.log" "ftio.pj.write" 30

# While the job runs (or just after: ftiod keeps an ended job's summary),
# a user draws their job from the status socket.
timeout 30 "$FTIO" sub --last --job pj --status-endpoint "ipc://$T/d.st" --plot "$T/last.html" \
  >"$T/last.out" 2>&1 || fail "ftio sub --last --plot: $(cat "$T/last.out")"
grep -q "wrote $T/last.html" "$T/last.out" || fail "ftio sub --plot said: $(cat "$T/last.out")"
fact last "p.sections == ['write'] and p.header['period'].startswith('2')"
fact last "not p.scripts and p.meta.get('nodes, ranks') == '2 ranks' and 'bytes per phase' in p.header"
fact last "p.count('svg', 'history-period') == 0"

wait_topic "$T/d.log" "ftio.pj.end" 30
nw=$(jsonl "$T/d.log" "len(all_of('ftio.pj.write'))")
[ "$nw" -ge 5 ] || fail "ftiod published $nw write messages"
timeout 30 "$FTIO" sub --last --job pj --status-endpoint "ipc://$T/d.st" --plot "$T/ended.html" \
  >"$T/ended.out" 2>&1 || fail "ftio sub --last --plot (ended job): $(cat "$T/ended.out")"
fact ended "p.sections == ['write'] and p.header['period'].startswith('2')"
"$FTIO" sub --plot "$T/x.html" --job pj --endpoint "ipc://$T/d.pub" >/dev/null 2>&1 \
  && fail "ftio sub --plot without --last: exit 0"
[ -e "$T/x.html" ] && fail "ftio sub --plot without --last wrote a page"
echo "ok: --plot without --last is a usage error"

# ---- report: the signal from ftiod's cumulative bytes -------------------------
timeout 60 "$FTIO" report "$T/d.log" --job pj -o "$T/report.html" >"$T/report.out" 2>&1 \
  || fail "ftio report: $(cat "$T/report.out")"
fact report "p.sections == ['write']"
fact report "p.count('path', 'signal') == 1 and p.count('rect', 'phase') >= 1"
fact report "p.history_points('history-period') == $nw"
fact report "p.distinct_x('history-period') == $nw"
fact report "p.meta.get('nodes, ranks') == '2 ranks' and 'start' in p.meta and 'run time' in p.meta"
fact report "any('cumulative bytes' in n for n in p.notes)"
# The signal's volume is what ftiod counted between its first and last window.
span=$(jsonl "$T/d.log" "max(m['bytes'] for m in all_of('ftio.pj.write')) - min(m['bytes'] for m in all_of('ftio.pj.write'))")
fact report "abs(p.signal_volume() - $span) <= 0.01 * $span"

# ---- report --trace: the signal and phases from the spool files --------------
timeout 60 "$FTIO" report "$T/d.log" --job pj --trace "$T"/spool/*.msgpack -o "$T/trace.html" \
  >"$T/trace.out" 2>&1 || fail "ftio report --trace: $(cat "$T/trace.out")"
fact trace "p.count('rect', 'phase') == 10"
# what the generator wrote: 10 phases of 20 MB on each of 2 ranks
fact trace "abs(p.signal_volume() - 10 * 2 * 20000000) <= 0.01 * 10 * 2 * 20000000"
fact trace "p.distinct_x('history-period') == $nw"
fact trace "any('spool files' in n for n in p.notes)"
mkdir -p "$T/other" "$T/agree"
"$WIRE" periodic --spool "$T/other" --job other --ranks 1 --period 2 --duration 0.4 \
  --bytes 1000000 --phases 3 || fail "ftio-wire other"
"$FTIO" report "$T/d.log" --job pj --trace "$T"/other/*.msgpack -o "$T/bad.html" >/dev/null 2>"$T/bad.err" \
  && fail "ftio report --trace with another job's trace: exit 0"
[ -e "$T/bad.html" ] && fail "ftio report --trace (wrong job) left a page"
grep -q "hold no job pj" "$T/bad.err" || fail "wrong --trace said: $(cat "$T/bad.err")"
"$FTIO" report "$T/d.log" --job pj --trace -o "$T/bad.html" >/dev/null 2>"$T/bad.err" \
  && fail "ftio report --trace without a file: exit 0"
grep -q "needs a file" "$T/bad.err" || fail "--trace without a file said: $(cat "$T/bad.err")"
echo "ok: --trace errors"

# ---- stale repeats and activities (protocol v3), in a crafted log -----------
"$PY" - "$T/stale.log" <<'EOF'
import json, sys
t0 = 1764000000.0
out = open(sys.argv[1], "w")
def msg(seq, end, pub, period, stale, acts):
    m = {"v": 3, "job": "cj", "mode": "write", "seq": seq, "published": pub,
         "window": {"start": t0, "end": end, "fs": 10, "samples": int((end - t0) * 10)},
         "period": period, "frequency": 1 / period, "confidence": 0.9, "class": "periodic",
         "phase": {"bytes": 1e8, "duration": 1}, "next": {"start": end + 1, "end": end + 2, "bytes": 1e8},
         "stale": stale, "p_periodic": 0.9, "ranks": 4, "bytes": 1e8 * (end - t0) / 10,
         "records": 10, "lost": 0, "activities": acts}
    out.write(json.dumps({"topic": "ftio.cj.write", "message": m}) + "\n")
def act(pattern, period):
    return {"pattern": pattern, "period": period, "confidence": 0.95, "class": "periodic",
            "next": {"start": 0, "end": 1, "bytes": 1}, "bytes": 1e8}
seq = 0
for i in range(6):
    end = t0 + 10 * (i + 1)
    reps = 3 if i == 3 else 1            # window 4 is published three times (stale)
    for r in range(reps):
        seq += 1
        msg(seq, end, end + 0.2 + 2 * r, 10.0, r > 0,
            [act("/scratch/ckpt.#.bin", 10.0), act("/scratch/log.txt", 30.0)])
EOF
timeout 30 "$FTIO" report "$T/stale.log" -o "$T/stale.html" >"$T/stale.out" 2>&1 \
  || fail "ftio report (crafted): $(cat "$T/stale.out")"
fact stale "p.history_points('history-period') == 8 and p.distinct_x('history-period') == 8"
fact stale "p.count('circle', 'act-0') == 2 * 8 and p.count('circle', 'act-1') == 2 * 8"
fact stale "p.activity_legend == ['/scratch/ckpt.#.bin', '/scratch/log.txt']"
fact stale "p.meta.get('nodes, ranks') == '4 ranks'"

# ---- offline: metadata and the tallest line that is not the answer ----------
timeout 60 "$FTIO" --plot "$T/offline.html" "$D/tmio-8ranks.jsonl" >"$T/offline.out" 2>&1 \
  || fail "ftio --plot: $(cat "$T/offline.out")"
fact offline "p.meta.get('nodes, ranks') == '8 ranks'"
# Both modes on one page, the one asked for first; the exports keep to it.
fact offline "p.sections == ['write', 'read']"
timeout 60 "$FTIO" -m read --plot "$T/offread.html" --export-signal "$T/offread.csv" \
  "$D/tmio-8ranks.jsonl" >/dev/null 2>&1 || fail "ftio -m read --plot"
fact offread "p.sections == ['read', 'write']"
[ "$(tail -n +2 "$T/offread.csv" | cut -d, -f2 | sort -u)" = read ] \
  || fail "the signal export holds other modes: $(tail -n +2 "$T/offread.csv" | cut -d, -f2 | sort -u)"
echo "ok: offread: the export holds the read mode only"
fact offline "p.count('circle', 'disagree-line') == 1 and p.count('text', 'disagree-label') == 1"
fact offline "any(n.startswith('Tallest spectral line at') and 'not the answer' in n and 'because' in n for n in p.notes)"
fact offline "p.disagree_period() != p.header['period']"
# A trace whose answer is the tallest line has no such mark.
"$WIRE" periodic --spool "$T/agree" --job ag --ranks 1 --period 4 --duration 0.8 \
  --bytes 50000000 --phases 12 || fail "ftio-wire agree"
timeout 60 "$FTIO" --plot "$T/agree.html" "$T"/agree/*.msgpack >/dev/null 2>&1 || fail "ftio --plot agree"
fact agree "p.count('circle', 'disagree-line') == 0 and not any('Tallest' in n for n in p.notes)"

# ---- a binary Darshan log: who ran what, when, for how long -----------------
timeout 60 "$FTIO" -m read --plot "$T/darshan.html" \
  "$D/darshan/release_logs/mpi-io-test-x86_64-3.4.5.darshan" >/dev/null 2>&1 \
  || fail "ftio --plot (darshan)"
fact darshan "'mpi-io-test' in p.meta['executable'] and p.meta['user'] == 'uid 1000'"
fact darshan "p.meta['nodes, ranks'] == '4 ranks' and p.meta['start'].startswith('2024-05-03')"
fact darshan "'run time' in p.meta"
echo ok
