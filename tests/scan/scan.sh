#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# scan.sh -- `ftio scan` on the real Darshan logs of tests/data/darshan (the
# release logs of every format 3.00-3.41, the DLIO set, HEATMAP/DXT/STDIO
# logs) plus two broken files named on the command line: one row per log,
# CSV and JSON Lines well formed and equal, job context and bytes equal to
# darshan-parser's (check_rows.py), an error row for each broken file (the
# scan goes on, exit 0), other files of the tree skipped, the summary's
# counts, the temporal class and periodicity of a known trace, -m, and the
# exit statuses 1 (nothing readable) and 2 (usage).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
D=tests/data/darshan

head -c 2500 $D/release_logs/mpi-io-test-x86_64-3.5.0.darshan >"$T/truncated.darshan"
head -c 4000 /dev/urandom >"$T/garbage.darshan"
nlogs=$(find $D -name '*.darshan' | wc -l)
nrows=$((nlogs + 2))

"$FTIO" scan --quiet --threads 2 --csv "$T/rows.csv" --jsonl "$T/rows.jsonl" \
  $D "$T/truncated.darshan" "$T/garbage.darshan" >"$T/sum" 2>"$T/err"; rc=$?
[ $rc = 0 ] || bad "scan exit $rc: $(cat "$T/err")"
[ -s "$T/err" ] && bad "--quiet scan wrote on stderr: $(cat "$T/err")"
python3 tests/scan/check_rows.py "$T/rows.csv" "$T/rows.jsonl" $D $nrows || bad "rows (above)"

# the broken files: rows with an error that says where, nothing else
for f in truncated garbage; do
  grep -q "^$T/$f.darshan,,*\"\?$T/$f.darshan: offset [0-9]*: " "$T/rows.csv" || bad "$f: no error row: $(grep "$f" "$T/rows.csv")"
  grep "\"file\":\"$T/$f.darshan\"" "$T/rows.jsonl" | grep -q '"error":"' || bad "$f: no JSON error"
done
# the partial log is an error by default (never silent); --lenient reads it with a warning
grep 'partial_data_dxt.darshan,' "$T/rows.csv" | grep -q 'partial log' || bad "partial log: no error row"
"$FTIO" scan --quiet --lenient --jsonl "$T/lenient.jsonl" $D/partial_data_dxt >/dev/null 2>&1 ||
  bad "--lenient partial: exit $?"
grep -q '"warning":".*partial log' "$T/lenient.jsonl" && grep -q '"error":null' "$T/lenient.jsonl" ||
  bad "--lenient partial: $(cut -c1-300 "$T/lenient.jsonl")"
# READMEs and the parsers' gzipped outputs are no traces: no rows
grep -q 'README\|\.gz,' "$T/rows.csv" && bad "non-trace files got rows"

# summary: counts as in the rows (3 unreadable: 2 broken + the partial log)
grep -q "^ftio scan: $nrows files, $((nrows - 3)) jobs analysed, 3 unreadable" "$T/sum" ||
  bad "summary: $(head -1 "$T/sum")"
grep -Eq '^  total periodic +[0-9]+ ' "$T/sum" || bad "summary: no Table III"
grep -q 'read:  beginning' "$T/sum" && grep -q 'most common classes: ' "$T/sum" || bad "summary: no Table II"
src=$(grep 'signal source' "$T/sum")
[ "$src" = "  signal source: 9 DXT, 35 HEATMAP, 20 per-file counters, 0 trace records" ] || bad "sources: $src"

# a known trace: sample.csv (4 ranks write 1 MiB every 5 s for 60 s; rank 0
# reads 4 KiB every 2.5 s): writes periodic at 5 s, in all 4 segments
"$FTIO" scan --quiet --jsonl "$T/csv.jsonl" tests/data/sample.csv >/dev/null 2>&1 || bad "sample.csv: exit $?"
python3 - "$T/csv.jsonl" <<'PY' || bad "sample.csv row"
import json, sys
o = json.loads(open(sys.argv[1]).readline())
w = o["write"]
ok = (abs(w["period"] - 5) < 0.25 and w["periodic"] and w["phases"] >= 10 and o["nprocs"] == 4
      and o["bytes_written"] == 48 * 1048576 and o["temporal"][:4] in ("WWWW", "BBBB")
      and o["write_when"] == "throughout" and o["source"] == "records" and o["format"] == "csv")
if not ok:
    print(o); sys.exit(1)
PY
# -m read: the write columns are empty / null
"$FTIO" scan --quiet -m read --csv "$T/r.csv" --jsonl "$T/r.jsonl" tests/data/sample.csv >/dev/null 2>&1
python3 - "$T/r.csv" "$T/r.jsonl" <<'PY' || bad "-m read"
import csv, json, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
o = json.loads(open(sys.argv[2]).readline())
if any(r[k] for k in r if k.startswith("write_") and k != "write_when") or o["write"] is not None or o["read"]["class"] is None:
    print(r, o); sys.exit(1)
PY

# CSV to stdout: the summary goes to stderr
"$FTIO" scan --quiet --csv - tests/data/sample.csv >"$T/out" 2>"$T/err2"
head -1 "$T/out" | grep -q '^file,job,uid,' || bad "--csv -: no header on stdout"
grep -q '^ftio scan: 1 files' "$T/err2" || bad "--csv -: summary not on stderr"

# nothing readable: exit 1 (rows still written); usage: exit 2
"$FTIO" scan --quiet --csv "$T/g.csv" "$T/garbage.darshan" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] || bad "only garbage: exit $rc, want 1"
[ "$(wc -l <"$T/g.csv")" = 2 ] || bad "only garbage: $(cat "$T/g.csv")"
"$FTIO" scan --quiet "$T/empty-dir-does-not-exist" >/dev/null 2>&1; rc=$?
[ $rc = 1 ] || bad "missing path: exit $rc, want 1"
for args in "" "-m sideways $D" "--threads 0 $D" "--bogus $D" "--csv"; do
  "$FTIO" scan $args >/dev/null 2>"$T/err"; rc=$?
  [ $rc = 2 ] || bad "ftio scan $args: exit $rc, want 2"
  [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^ftio scan: ' "$T/err" || bad "ftio scan $args: not one line: $(cat "$T/err")"
done

# --progress: lines on stderr even when it is no terminal (scan >= 1 s: the
# DLIO set 30 times over)
mkdir "$T/many"
for i in $(seq 1 30); do ln -s "$PWD/$D/dlio_logs" "$T/many/d$i"; done
for i in $(seq 1 30); do mkdir "$T/many/c$i"; cp $D/dlio_logs/*.darshan "$T/many/c$i/"; done
"$FTIO" scan --progress --threads 1 "$T/many" >/dev/null 2>"$T/err"
if [ "$(grep -c '' "$T/err")" -gt 0 ]; then
  grep -Eq '^ftio scan: [0-9]+/720 files, [0-9]+ files/s, ETA [0-9]+ s$' "$T/err" || bad "progress: $(head -2 "$T/err")"
fi
"$FTIO" scan "$T/many" >/dev/null 2>"$T/err"   # stderr no tty: silent
[ -s "$T/err" ] && bad "progress without a tty: $(head -2 "$T/err")"

finish
