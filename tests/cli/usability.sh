#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usability.sh -- the small things a user hits first (issue 19):
#  - `ftio --window --step 0.05` is refused like ftiod refuses it (one bound);
#  - `ftio --json` prints JSON Lines: one compact object per job and mode;
#  - `-m both` is taken by ftio (write, then read) as by ftio scan, which takes `all` too;
#  - `ftio report --job J` finds J's one Slurm step J.0, lists several;
#  - `ftio end` of a job that ended says so (not "ending");
#  - `ftio replay` of another format says "not a spool file";
#  - the scan summary names the study it compares with;
#  - man/libftio.7 documents every FTIO_* variable the shim reads;
#  - ftiod's fatal --state-dir ownership error is logged as an error.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
need "$FTIO" "$B/bin/ftiod" "$WIRE"
D=tests/data

# ---- one bound for --step ---------------------------------------------------------
"$FTIO" --window adaptive --step 0.05 $D/sample.csv >"$T/out" 2>"$T/a"; rc=$?
"$B/bin/ftiod" --config none --auth none --step 0.05 --listen "ipc://$T/s.in" --pub "ipc://$T/s.pub" \
  --status-endpoint "ipc://$T/s.st" >/dev/null 2>"$T/b"; rcd=$?
[ $rc = 2 ] && [ $rcd != 0 ] && [ "$(sed 's/^ftio: //' "$T/a")" = "$(sed 's/^ftiod: //' "$T/b")" ] &&
  grep -q "^ftio: --step: 0.05 s is not a whole number of samples at 10 Hz" "$T/a" ||
  bad "--step 0.05: ftio rc=$rc '$(cat "$T/a")', ftiod rc=$rcd '$(cat "$T/b")'"
[ -s "$T/out" ] && bad "--step 0.05 printed an analysis"
"$FTIO" --window adaptive --step 0.5 $D/sample.csv >/dev/null 2>"$T/a" || bad "--step 0.5 refused: $(cat "$T/a")"
ok "--step 0.05 refused by ftio and ftiod alike: $(cat "$T/b")"

# ---- JSON Lines, -m both ------------------------------------------------------------
"$WIRE" trace -n 4000 -r 4 -d 120 -p 10 -j jobA -o "$T/a.msgpack" >/dev/null || fail "wire trace a"
"$WIRE" trace -n 4000 -r 4 -d 120 -p 20 -j jobB -o "$T/b.msgpack" >/dev/null || fail "wire trace b"
"$FTIO" --json -m both "$T/a.msgpack" "$T/b.msgpack" $D/sample.csv >"$T/lines" 2>"$T/err" ||
  bad "--json -m both over 3 jobs: $(cat "$T/err")"
"$PY" - "$T/lines" <<'PY' || bad "JSON Lines (above)"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]          # every line one whole object
got = [(o["job"], o["mode"]) for o in objs]
print("lines:", got)
want_writes = {"jobA", "jobB", None}
assert {j for j, m in got if m == "write"} == want_writes, got
assert (None, "read") in got, got                # sample.csv reads
assert all(l.startswith("{") and l.endswith("}") and "\n" not in l for l in lines)
PY
"$FTIO" -m both $D/sample.csv >"$T/both.txt" 2>"$T/err" || bad "-m both: $(cat "$T/err")"
[ "$(grep -c '^mode  *write$' "$T/both.txt")" = 1 ] && [ "$(grep -c '^mode  *read$' "$T/both.txt")" = 1 ] ||
  bad "-m both text: $(grep '^mode' "$T/both.txt")"
"$FTIO" -m both $D/sample-dxt.txt >"$T/both2.txt" 2>"$T/err" || bad "-m both, no reads: $(cat "$T/err")"
grep -q "^mode  *read: no requests$" "$T/both2.txt" || bad "-m both without reads: $(grep '^mode' "$T/both2.txt")"
"$FTIO" scan --quiet -m all --csv "$T/s.csv" $D/darshan/empty_log >/dev/null 2>"$T/err" || bad "scan -m all: $(cat "$T/err")"
ok "--json: JSON Lines per job and mode; -m both in ftio and ftio scan"

# ---- ftio report --job J of a Slurm job's steps --------------------------------------
msg() {   # msg JOB MODE PERIOD: one --log line
  printf '{"topic":"ftio.%s.%s","message":{"v":2,"job":"%s","mode":"%s","seq":1,"published":1763741234.5,"window":{"start":1763741200,"end":1763741210,"fs":10,"samples":10},"period":%s,"frequency":null,"confidence":0.9,"class":"periodic","detector":"robust","reason":null,"stale":false,"since":null,"candidates":[],"metrics":null,"phase":{"bytes":1048576,"duration":0.5},"next":{"start":null,"end":null,"bytes":null},"last_error":null,"p_periodic":1,"ranks":2,"bytes":1e9,"records":10,"lost":0}}\n' \
    "$1" "$2" "$1" "$2" "$3"
}
{ msg 77 write 5; msg 4711.0 write 3; msg 4711.0 read 3; } >"$T/one.jsonl"
{ cat "$T/one.jsonl"; msg 4711.1 write 4; } >"$T/two.jsonl"
"$FTIO" report "$T/one.jsonl" --job 4711 -o "$T/r.html" >"$T/out" 2>"$T/err" ||
  bad "report --job 4711 (one step): $(cat "$T/err")"
grep -q "job 4711.0" "$T/out" && [ -s "$T/r.html" ] || bad "report --job 4711: $(cat "$T/out")"
"$FTIO" report "$T/two.jsonl" --job 4711 -o "$T/r2.html" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "^ftio report: job 4711 ran as 2 steps in $T/two.jsonl, choose one with --job: 4711.0, 4711.1$" "$T/err" ||
  bad "report --job 4711 (two steps): rc=$rc $(cat "$T/err")"
ok "ftio report --job 4711 finds 4711.0, names 4711.0 and 4711.1 when both ran"

# ---- ftio end of an ended job, ftio replay of another format ---------------------------
start_daemon d --job-timeout 30
wire periodic --endpoint "ipc://$T/d.in" --job done1 --ranks 2 --period 1 --phases 4 >/dev/null 2>"$T/gen.err" ||
  fail "ftio-wire periodic: $(cat "$T/gen.err")"
wait_topic "$T/d.log" ftio.done1.end
"$FTIO" end --endpoint "ipc://$T/d.st" done1 >"$T/end.out" 2>"$T/end.err"; rc=$?
[ $rc = 0 ] && grep -q "^ftio end: job done1 already ended at " "$T/end.out" ||
  bad "ftio end of an ended job: rc=$rc $(cat "$T/end.out" "$T/end.err")"
grep -q "is ending" "$T/end.out" && bad "ftio end said 'ending' of an ended job"
"$FTIO" replay --endpoint "ipc://$T/d.in" $D/tmio-8ranks.jsonl >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "tmio-8ranks.jsonl: not a spool file (looks like tmio-json)" "$T/err" ||
  bad "replay of a JSONL: rc=$rc $(cat "$T/err")"
ok "ftio end: 'already ended'; ftio replay: 'not a spool file'"

# ---- the study named; every shim variable in libftio(7) ---------------------------------
"$FTIO" scan $D/darshan/empty_log 2>/dev/null | grep -q 'Boito et al., "A Deep Look Into the Temporal I/O Behavior of HPC Applications", 2025' ||
  bad "the scan summary does not name the study"
for v in $(grep -oh '"FTIO_[A-Z_]*"' libtrace/*.c | tr -d '"' | sort -u); do
  grep -q "^\.B $v\$" man/libftio.7 || bad "man/libftio.7 does not document $v"
done

# ---- a fatal --state-dir error is an error, not info --------------------------------------
mkdir "$T/sd" && chown nobody "$T/sd" || fail "chown nobody $T/sd"
"$B/bin/ftiod" --config none --auth none --state-dir "$T/sd" --listen "ipc://$T/sd.in" --pub "ipc://$T/sd.pub" \
  --status-endpoint "ipc://$T/sd.st" >/dev/null 2>"$T/sd.log"; rc=$?
[ $rc = 1 ] && grep -q "error: --state-dir $T/sd: must be owned by this user" "$T/sd.log" ||
  bad "--state-dir of another user: rc=$rc $(cat "$T/sd.log")"
finish
