#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# dxt_text.sh -- Darshan DXT text as darshan-dxt-parser 3.5 prints it (with
# its Pthread-ID column, `N/A` for older logs) reads to the same requests and
# the same answer as the binary log it was printed from: for every log of
# tests/data/darshan and tests/data/dxt with DXT segments, `ftio --json` on the text and on the
# log give the same records, ranks and bytes and the same period (the text
# rounds times to 0.1 ms, hence the tolerance: 0.5 % + 0.5 ms).  Both layouts are read: the
# hand-written tests/data/sample-dxt.txt has no thread column.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
need "$FTIO"
D=tests/data/darshan

n=0
for log in $(find $D tests/data/dxt -name '*.darshan' | sort); do
  gzip -dc "$log.dxt.txt.gz" >"$T/dxt.txt" || fail "$log.dxt.txt.gz: cannot read"
  grep -q '^ *X_\(POSIX\|MPIIO\)' "$T/dxt.txt" || continue
  grep -q '^# Module .*Pthread-ID' "$T/dxt.txt" || bad "$log: the parser output has no Pthread-ID column"
  n=$((n + 1))
  for m in write read; do
    # -f 1000: the release logs' jobs last a few ms
    "$FTIO" --lenient --json -f 1000 -m $m "$T/dxt.txt" >"$T/text.json" 2>"$T/text.err"; rt=$?
    "$FTIO" --lenient --json -f 1000 -m $m "$log" >"$T/bin.json" 2>"$T/bin.err"; rb=$?
    if grep -q 'too many fields\|too few fields\|not a DXT' "$T/text.err"; then
      bad "$log: text refused: $(cat "$T/text.err")"; continue
    fi
    [ $rt = $rb ] || { bad "$log $m: text exit $rt, binary exit $rb: $(cat "$T/text.err" "$T/bin.err")"; continue; }
    [ $rt = 0 ] || continue
    python3 - "$T/text.json" "$T/bin.json" "$log $m" <<'PY' || bad "$log $m: text and binary differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
what = sys.argv[3]
bad = [k for k in ("mode", "records", "ranks", "bytes") if a.get(k) != b.get(k)]
pa, pb = a.get("period"), b.get("period")
if (pa is None) != (pb is None) or (pa is not None and abs(pa - pb) > 0.005 * pb + 0.0005):
    bad.append("period")
for k in bad:
    print(f"{what}: {k}: text {a.get(k)}, binary {b.get(k)}")
sys.exit(1 if bad else 0)
PY
  done
done
[ $n -ge 10 ] || bad "only $n logs with DXT segments in $D"
ok "$n DXT logs: text and binary agree"

# --dxt posix on 3.5 text: every POSIX segment, with or without thread column
log=tests/data/dxt/hdf5_diagonal_write_1_byte_dxt.darshan
gzip -dc "$log.dxt.txt.gz" >"$T/h5.txt"
want=$(grep -c '^ *X_POSIX  *[0-9]*  *read' "$T/h5.txt")   # the read segments
"$FTIO" --json -m read --dxt posix "$T/h5.txt" >"$T/out" 2>"$T/err" || bad "hdf5 text: $(cat "$T/err")"
sed 's/ *N\/A$//; s/ *Pthread-ID$//' "$T/h5.txt" >"$T/h5-old.txt"
"$FTIO" --json -m read --dxt posix "$T/h5-old.txt" >"$T/out-old" 2>"$T/err" || bad "hdf5 text without thread column: $(cat "$T/err")"
python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sys.exit(0 if a["records"] == b["records"] == int(sys.argv[3]) and a["bytes"] == b["bytes"] and a["period"] == b["period"] else 1)
' "$T/out" "$T/out-old" "$want" || bad "hdf5: with and without the thread column differ"

# a thread column where the header names none, or none where it names one: refused
awk '/^ *X_POSIX/ && !done { sub(/ *N\/A$/, ""); done = 1 } { print }' "$T/h5.txt" >"$T/missing.txt"
"$FTIO" "$T/missing.txt" >"$T/out" 2>"$T/err" && bad "a line without its thread column accepted"
grep -q 'line [0-9]*: .*thread column' "$T/err" || bad "missing thread column: $(cat "$T/err")"
# a layer of 300,000 segments: its columns are big arrays (from 262,144 on),
# freed as such (they were free()d: a crash)
awk 'BEGIN {
  print "# darshan log version: 3.41\n# exe: ./big\n# nprocs: 1\n"
  print "# DXT, file_id: 1, file_name: /scratch/a.dat\n# DXT, rank: 0, hostname: node0"
  print "# DXT, write_count: 300000, read_count: 0\n# DXT, mnt_pt: /scratch, fs_type: lustre"
  print "# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)"
  for (i = 0; i < 300000; i++) {
    t = (i % 60) * 10 + int(i / 60) * 0.001
    printf " X_POSIX       0  write %8d %15d %15d %11.4f %11.4f\n", i, i * 4096, 4096, t, t + 0.0005
  }
}' >"$T/big.txt"
"$FTIO" --json "$T/big.txt" >"$T/out" 2>"$T/err" || bad "300,000 DXT segments: exit $?: $(cat "$T/err")"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["records"] != 300000)' "$T/out" ||
  bad "300,000 DXT segments: not all read"
ok "300,000 DXT segments of one layer"
finish
