#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# logging.sh -- ftiod's diagnostics and its --log file as a site runs them:
#  - every stderr line is "<ISO time>Z ftiod[PID] <level>: message", the time
#    is now (UTC, milliseconds), start/stop are notices, jobs are info,
#    --verbose analyses are debug;
#  - a hostile job id with a newline is refused and forges no line;
#  - with stderr on the journal (JOURNAL_STREAM = its device:inode, as
#    systemd sets it) lines are "<N>message" without a time; a
#    JOURNAL_STREAM that names another file is ignored;
#  - SIGHUP after the --log file was moved (logrotate): a new file is created
#    and written, the old one ends on a complete line; rotations while a job
#    is publishing lose and split no line; when the file cannot be reopened
#    ftiod says so and keeps writing to the old one.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"

gen() {   # gen JOB [PHASES]: a short periodic job into the daemon d
  "$WIRE" periodic --endpoint "ipc://$T/d.in" --job "$1" --ranks 2 --period 1 \
    --duration 0.1 --phases "${2:-6}" || fail "generator ($1)"
}
# wait_line FILE REGEX: until a line of FILE matches (extended regex).
wait_line() {
  i=0
  until grep -Eq "$2" "$1" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 300 ] && fail "no line /$2/ in $1 after 30 s"
    sleep 0.1
  done
}
# whole_lines FILE...: every file ends with a newline and each line is a
# JSON object with a topic; prints the topics.
whole_lines() {
  "$PY" - "$@" <<'PY' || fail "--log lines not whole: $*"
import json, sys
for f in sys.argv[1:]:
    data = open(f, "rb").read()
    if data and not data.endswith(b"\n"):
        sys.exit("%s: last line cut: %r" % (f, data[-80:]))
    for n, line in enumerate(data.splitlines(), 1):
        try:
            print(json.loads(line)["topic"])
        except Exception as e:
            sys.exit("%s:%d: %s: %r" % (f, n, e, line[:80]))
PY
}

start_daemon d --job-timeout 1
gen first
wait_topic "$T/d.log" ftio.first.end
# A job id carrying a newline and a forged line: refused, and no forged line
# (log.c also turns control characters into '?').
gen "$(printf 'evil\n2026-01-01T00:00:00.000Z ftiod[1] error: forged')" 2
wait_line "$T/d.err" "warning: dropped message: .*job id"

# ---- the format of every line ----------------------------------------------
"$PY" - "$T/d.err" "$DPID" <<'PY' || fail "log line format: $(head -5 "$T/d.err")"
import datetime, re, sys
pid = sys.argv[2]
pat = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z ftiod\[%s\] "
                 r"(error|warning|notice|info|debug): \S" % pid)
now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
levels = {}
for n, line in enumerate(open(sys.argv[1]), 1):
    m = pat.match(line)
    if not m:
        sys.exit("line %d: %r" % (n, line))
    t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
    if abs((now - t).total_seconds()) > 120:
        sys.exit("line %d: time %s is not now (%s)" % (n, m.group(1), now))
    levels.setdefault(m.group(2), []).append(line)
def has(level, text):
    if not any(text in l for l in levels.get(level, [])):
        sys.exit("no %s line with %r: %s" % (level, text, levels))
has("notice", "listening on ipc://")
has("info", "job first: first batch")
has("debug", "job first [0.000, ")                 # --verbose: the analyses
has("debug", "] write: period 1 s")
has("warning", "--auth none: batches are not authenticated")
if any("forged" in l and not l.startswith("20") or l.startswith("2026-01-01") for l in open(sys.argv[1])):
    sys.exit("a job id forged a line")
PY
echo "ok: every line is <ISO time>Z ftiod[PID] <level>: ..., levels per call site, no forged line"

# ---- SIGHUP reopens --log ----------------------------------------------------
mv "$T/d.log" "$T/d.log.1"
kill -HUP $DPID
wait_line "$T/d.err" "notice: SIGHUP: reopened --log $T/d.log\$"
[ -f "$T/d.log" ] || fail "SIGHUP did not create a new $T/d.log"
gen second
wait_topic "$T/d.log" ftio.second.end
kill -0 $DPID 2>/dev/null || fail "ftiod died"
old=$(whole_lines "$T/d.log.1") || exit 1
new=$(whole_lines "$T/d.log") || exit 1
echo "$old" | grep -qx ftio.first.end || fail "old file lacks the first job's end"
echo "$old" | grep -q second && fail "second job written to the moved file"
echo "$new" | grep -qx ftio.second.end || fail "new file lacks the second job's end"
echo "$new" | grep -q first && fail "first job in the new file"
echo "ok: SIGHUP after the move: new file created and written, old one complete"

# Rotations while a job publishes (one per 0.3 s): no line split or lost.
"$WIRE" periodic --endpoint "ipc://$T/d.in" --job third --ranks 2 --period 0.5 \
  --duration 0.1 --phases 12 --speed 1 &
GEN=$!
for r in 1 2 3 4 5 6; do
  sleep 0.3
  mv "$T/d.log" "$T/d.log.r$r" && kill -HUP $DPID
done
wait $GEN || fail "generator (third)"
wait_topic "$T/d.log" ftio.third.end
all=$(whole_lines "$T"/d.log.r* "$T/d.log") || exit 1
[ "$(echo "$all" | grep -cx ftio.third.end)" = 1 ] || fail "third job's end not exactly once"
n=$(echo "$all" | grep -c '^ftio\.third\.')
[ "$n" -ge 3 ] || fail "only $n messages of the third job across the rotated files"
reopened=$(grep -c "SIGHUP: reopened" "$T/d.err")
[ "$reopened" -ge 7 ] || fail "$reopened reopen lines for 7 SIGHUPs"
echo "ok: 6 rotations while publishing: $n messages, every line whole, the end once"

# Cannot reopen (a directory took the name): said, and the old file goes on.
mv "$T/d.log" "$T/d.log.kept"
mkdir "$T/d.log"
kill -HUP $DPID
wait_line "$T/d.err" "error: SIGHUP: cannot reopen --log $T/d.log: .*still writing"
gen fourth
wait_topic "$T/d.log.kept" ftio.fourth.end
kill -0 $DPID 2>/dev/null || fail "ftiod died after a failed reopen"
whole_lines "$T/d.log.kept" >/dev/null
rmdir "$T/d.log"
echo "ok: a failed reopen is an error line; the old file is still written"

# SIGTERM still stops it, with a notice.
kill -TERM $DPID
i=0; while kill -0 $DPID 2>/dev/null; do i=$((i + 1)); [ $i -gt 100 ] && fail "ftiod did not stop"; sleep 0.1; done
grep -Eq "ftiod\[$DPID\] notice: stopped \(" "$T/d.err" || fail "no stop notice"

# ---- the journal --------------------------------------------------------------
# start_journal NAME STREAM: ftiod with stderr on $T/NAME.err and
# JOURNAL_STREAM=STREAM ("" = the device:inode of that file).
start_journal() {
  : >"$T/$1.err"
  js=$2; [ -n "$js" ] || js=$(stat -c '%d:%i' "$T/$1.err")
  JOURNAL_STREAM=$js "$B/bin/ftiod" --auth none --listen "ipc://$T/$1.in" --pub "ipc://$T/$1.pub" \
    --status-endpoint "ipc://$T/$1.st" 2>>"$T/$1.err" &
  JPID=$!; PIDS="$PIDS $JPID"
  wait_line "$T/$1.err" "listening on"
  kill -TERM $JPID; wait $JPID
}
start_journal j ""
"$PY" - "$T/j.err" <<'PY' || fail "journal lines: $(cat "$T/j.err")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
for l in lines:
    if not re.match(r"^<[34567]>[^<\d]", l):
        sys.exit("not an sd-daemon line: %r" % l)
assert any(l.startswith("<5>listening on ipc://") for l in lines), lines
assert any(l.startswith("<4>--auth none") for l in lines), lines
assert any(l.startswith("<5>stopped") for l in lines), lines
PY
start_journal k "1:1"
grep -Eq "^[0-9-]{10}T[0-9:.]{12}Z ftiod\[[0-9]+\] notice: listening on" "$T/k.err" ||
  fail "JOURNAL_STREAM of another file taken for the journal: $(cat "$T/k.err")"
echo "ok: journal: <N>message lines without a time; another file's JOURNAL_STREAM ignored"
