#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# filters.sh -- `ftio scan` start and end columns and its filters, on the real
# Darshan logs of tests/data/darshan, against what darshan-parser printed
# (X.darshan.parser.txt.gz: start_time, end_time, uid, exe): start is the
# job's start (its whole seconds are start_time), end within a second of
# end_time; --user, --exe, --since, --until keep exactly the logs the parser
# outputs say; --min-bytes keeps the rows of the unfiltered scan that moved
# that much; the jobs left out are counted in the summary, not rows; bad
# values are one line and exit 2.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
need "$FTIO"
D=tests/data/darshan

"$FTIO" scan --quiet --jsonl "$T/all.jsonl" $D >/dev/null 2>"$T/err" || fail "scan: $(cat "$T/err")"

# check.py ROWS.jsonl WHAT ARG: the rows are exactly the readable logs whose parser
# header passes WHAT (all: every one, checking start/end)
check() {
  "$PY" - "$@" "$T/all.jsonl" <<'PY'
import gzip, json, os, sys
rows_path, what, arg, all_path = sys.argv[1:5]
def header(log):
    h = {}
    with gzip.open(log + ".parser.txt.gz", "rt", errors="replace") as f:
        for line in f:
            if not line.startswith("#"):
                break
            if ": " in line:
                k, v = line[2:].rstrip("\n").split(": ", 1)
                h.setdefault(k, v)
    return h
every = [json.loads(l) for l in open(all_path)]
readable = [r for r in every if not r.get("error")]
rows = [json.loads(l) for l in open(rows_path)]
bad = []
def keep(r):
    h = header(r["file"])
    if what == "all":    return True
    if what == "user":   return h["uid"] == arg
    if what == "exe":    return arg in h["exe"]
    if what == "since":  return int(h["start_time"]) >= int(arg)
    if what == "until":  return int(h["start_time"]) < int(arg)
    if what == "bytes":  return r["bytes_read"] + r["bytes_written"] >= float(arg)
want = sorted(r["file"] for r in readable if keep(r))
got = sorted(r["file"] for r in rows if not r.get("error"))
if want != got:
    bad.append(f"{what} {arg}: {len(got)} rows, want {len(want)}: extra {sorted(set(got)-set(want))[:3]} missing {sorted(set(want)-set(got))[:3]}")
if what == "all":
    for r in readable:
        h = header(r["file"])
        s, e = int(h["start_time"]), int(h["end_time"])
        if r["start"] is None or int(r["start"]) != s:
            bad.append(f"{r['file']}: start {r['start']}, parser start_time {s}")
        if r["end"] is None or not (e <= r["end"] <= e + 1.001):
            bad.append(f"{r['file']}: end {r['end']}, parser end_time {e}")
for b in bad[:10]:
    print(b)
print(f"{what} {arg}: {len(got)} rows" + ("" if bad else ", as the parser outputs say"))
sys.exit(1 if bad else 0)
PY
}
check "$T/all.jsonl" all - || bad "start/end columns (above)"
grep -q '^file,job,uid,exe,nprocs,run_time,start,end,' <<EOF2 || bad "CSV header has no start,end"
$("$FTIO" scan --quiet --csv - $D/empty_log 2>/dev/null | head -1)
EOF2

# each filter alone, the jobs left out counted in the summary
uid=$("$PY" -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if "uid" in l and json.loads(l).get("uid")][0]["uid"])' "$T/all.jsonl")
for f in "user $uid" "exe mpi-io-test" "exe python3" "since 1600000000" "until 1600000000" "bytes 1048576"; do
  set -- $f
  opt=--$1; [ $1 = bytes ] && opt=--min-bytes
  "$FTIO" scan --quiet --jsonl "$T/f.jsonl" $opt "$2" $D >"$T/sum" 2>"$T/err"
  check "$T/f.jsonl" $1 "$2" || bad "$opt $2 (above)"
  n=$(grep -c . "$T/all.jsonl"); m=$(grep -c . "$T/f.jsonl")
  if [ $m -lt $n ]; then
    head -1 "$T/sum" | grep -q ", $((n - m)) jobs filtered out" || bad "$opt $2: summary: $(head -1 "$T/sum")"
  fi
done
# the same instants as dates
"$FTIO" scan --quiet --jsonl "$T/d.jsonl" --since 2020-09-13T12:26:40Z $D >/dev/null 2>&1
check "$T/d.jsonl" since 1600000000 || bad "--since as a date"
"$FTIO" scan --quiet --jsonl "$T/k.jsonl" --min-bytes 1M $D >/dev/null 2>&1
check "$T/k.jsonl" bytes 1048576 || bad "--min-bytes 1M"

# nothing passes: one line, exit 1; bad values: one line, exit 2
"$FTIO" scan --quiet --user 4242424 $D >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "^ftio scan: no job passed the filters (" "$T/err" || bad "no match: rc=$rc $(cat "$T/err")"
for a in "--since yesterday" "--until 2024-13-45" "--min-bytes 5Q" "--min-bytes -1" "--user no-such-user-x" \
         "--since 2024-01-02 --until 2024-01-01"; do
  "$FTIO" scan --quiet $a $D >/dev/null 2>"$T/err"; rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^ftio scan: " "$T/err" || bad "ftio scan $a: rc=$rc $(cat "$T/err")"
done
finish
