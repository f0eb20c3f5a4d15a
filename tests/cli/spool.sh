#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# spool.sh -- `ftio` on our own spool files, made by `ftio-wire trace` with the
# wire encoder (one clock anchor per rank, as the shim spools them): period,
# ranks, bytes, relative vs absolute time, merging of files per job, two jobs,
# and a truncated spool (error with offset; --lenient keeps whole batches).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
J="python3 tests/cli/jcheck.py"

# 16 ranks, 20000 requests of 1 MiB, a 5 s burst every 60 s for 600 s.
timeout 60 "$WIRE" trace -n 20000 -r 16 -d 600 -p 60 -b 5 -j jobA -o "$T/a.msgpack" 2>/dev/null || bad "gen a"
timeout 60 "$WIRE" trace -n 3000 -r 4 -d 600 -p 30 -b 3 -j jobB -o "$T/b.msgpack" 2>/dev/null || bad "gen b"

timeout 60 "$FTIO" --json "$T/a.msgpack" | $J spool \
  'near(j["period"], 60, 3)' 'j["class"] == "periodic"' 'j["ranks"] == 16' 'j["records"] == 20000' \
  'near(j["bytes"], 20000 * 1048576)' 'j["job"] == "jobA"' 'near(j["window"]["start"], 0, 1e-9)' \
  'j["time_origin"] > 1.7e9' 'near(j["phase"]["bytes"], 2000 * 1048576, 0.2 * 2000 * 1048576)' || bad "(see above)"
timeout 60 "$FTIO" --json --absolute-time "$T/a.msgpack" | $J spool-absolute \
  'j["window"]["start"] > 1.7e9' 'near(j["period"], 60, 3)' 'j["time_origin"] is None' || bad "(see above)"

# the same job's spool split in two files merges into one analysis
python3 - "$T/a.msgpack" "$T/a1.msgpack" "$T/a2.msgpack" <<'PY' || bad "split"
import sys
data = open(sys.argv[1], "rb").read()
# a batch is a map (fixmap: 1 header byte, map16: 3) whose first key is "v" = 1
k = data.find(b"\xa1v\x01", len(data) // 2)
cut = k - 3 if data[k - 3] == 0xde else k - 1
open(sys.argv[2], "wb").write(data[:cut]); open(sys.argv[3], "wb").write(data[cut:])
PY
timeout 60 "$FTIO" --json "$T/a1.msgpack" "$T/a2.msgpack" | $J spool-split \
  'j["records"] == 20000' 'j["ranks"] == 16' 'near(j["period"], 60, 3)' || bad "(see above)"

# two jobs: one analysis each (JSON: one object per job)
timeout 60 "$FTIO" --json "$T/a.msgpack" "$T/b.msgpack" >"$T/two.json" || bad "two jobs exit $?"
python3 - "$T/two.json" <<'PY' || bad "(see above)"
import json, sys
dec, text, objs, i = json.JSONDecoder(), open(sys.argv[1]).read(), [], 0
while i < len(text):
    while i < len(text) and text[i].isspace(): i += 1
    if i < len(text):
        o, i = dec.raw_decode(text, i); objs.append(o)
jobs = {o["job"]: o for o in objs}
assert sorted(jobs) == ["jobA", "jobB"], jobs.keys()
assert abs(jobs["jobB"]["period"] - 30) < 1.5, jobs["jobB"]["period"]
assert jobs["jobB"]["ranks"] == 4 and jobs["jobB"]["records"] == 3000
print("two jobs: ok")
PY
timeout 60 "$FTIO" "$T/a.msgpack" "$T/b.msgpack" | grep -q '^job jobB' || bad "text: no job header"

# truncated spool: error with the offset of the cut batch; --lenient analyses the rest
size=$(wc -c <"$T/a.msgpack")
head -c $(( size - 1000 )) "$T/a.msgpack" >"$T/cut.msgpack"
timeout 60 "$FTIO" "$T/cut.msgpack" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" = 1 ] || bad "truncated spool exit $rc"
grep -Eq "^ftio: $T/cut.msgpack: offset [0-9]+: truncated batch" "$T/err" || bad "truncated: $(cat "$T/err")"
timeout 60 "$FTIO" --lenient --json "$T/cut.msgpack" 2>"$T/err" | $J spool-lenient \
  'j["records"] < 20000' 'j["records"] > 15000' 'near(j["period"], 60, 3)' || bad "(see above)"
grep -q '^ftio: warning: ' "$T/err" || bad "lenient: no warning"
finish
