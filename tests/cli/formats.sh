#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# formats.sh -- `ftio` on every input format end to end: detection from
# content whatever the file name, the hand-made CSV and DXT samples, merging
# several files, the human summary, and the sliding --window analysis.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
D=tests/data
J="python3 tests/cli/jcheck.py"
js() { timeout 60 "$FTIO" --compat --json "$@"; }   # the [compat] numbers of §8

# ---- detection from content: misleading names give the same answer --------
cp $D/tmio-8ranks.jsonl "$T/trace.csv"
cp $D/tmio-8ranks.msgpack "$T/trace.json"
cp $D/sample.csv "$T/trace.jsonl"
cp $D/sample-dxt.txt "$T/darshan.csv"
js "$T/trace.csv" | $J jsonl-as-csv 'rel(j["frequency"], 0.519031142)' || bad "(see above)"
js "$T/trace.json" | $J msgpack-as-json 'rel(j["frequency"], 0.519031142)' || bad "(see above)"
js "$T/trace.jsonl" | $J csv-as-jsonl 'j["records"] == 48' || bad "(see above)"
js "$T/darshan.csv" | $J dxt-as-csv 'j["records"] == 20' || bad "(see above)"
# forcing a wrong format is an error, not garbage
timeout 60 "$FTIO" --format csv $D/custom.json >/dev/null 2>"$T/err" && bad "--format csv on JSON succeeded"
grep -q "line 1: header lacks column" "$T/err" || bad "--format csv: $(cat "$T/err")"

# ---- CSV sample: writes every 5 s by 4 ranks, reads every 2.5 s ------------
js $D/sample.csv | $J csv-write 'near(j["period"], 5, 0.25)' 'j["class"] == "periodic"' \
  'j["ranks"] == 4' 'near(j["bytes"], 48 * 1048576)' 'j["records"] == 48' \
  'near(j["phase"]["bytes"], 4 * 1048576, 0.1 * 4 * 1048576)' || bad "(see above)"
js -m read $D/sample.csv | $J csv-read 'near(j["period"], 2.5, 0.125)' 'near(j["bytes"], 24 * 4096)' || bad "(see above)"
js -m all $D/sample.csv | $J csv-all 'j["records"] == 72' 'j["mode"] == "all"' \
  'near(j["bytes"], 48 * 1048576 + 24 * 4096)' || bad "(see above)"

# ---- DXT sample: MPI-IO by default, POSIX on request, same bytes -----------
js $D/sample-dxt.txt | $J dxt-mpiio 'near(j["period"], 4, 0.2)' 'j["records"] == 20' \
  'j["ranks"] == 2' 'near(j["bytes"], 20 * 1048576)' || bad "(see above)"
js --dxt posix $D/sample-dxt.txt | $J dxt-posix 'near(j["period"], 4, 0.2)' 'j["records"] == 40' \
  'near(j["bytes"], 20 * 1048576)' || bad "(see above)"

# ---- several files merge ----------------------------------------------------
js $D/zmq-example.json $D/zmq-example.json | $J merged \
  'j["records"] == 10' 'rel(j["frequency"], 0.125)' 'rel(j["candidates"][0]["amplitude"], 2 * 76.355, 1e-5)' || bad "(see above)"
js $D/tmio-8ranks.jsonl $D/tmio-8ranks.msgpack | $J merged-tmio 'near(j["bytes"], 2 * 4935)' \
  'j["records"] == 2190' 'rel(j["frequency"], 0.519031142)' || bad "(see above)"

# ---- options reach the analysis -------------------------------------------
js -ts 10 -te 20 $D/tmio-8ranks.jsonl | $J window-ts-te 'j["window"]["start"] >= 10' \
  'j["window"]["end"] <= 20' 'j["window"]["samples"] <= 100' || bad "(see above)"
js --sampling average $D/zmq-example.json | $J average 'rel(j["frequency"], 0.125)' \
  'near(j["metrics"]["abstraction_error"], 0, 1e-9)' || bad "(see above)"
js --autocorrelation $D/synthetic-14.json | $J acf '"autocorrelation" in j' || bad "(see above)"
js --no-psd $D/zmq-example.json | $J no-psd 'rel(j["frequency"], 0.125)' || bad "(see above)"

# ---- human summary ----------------------------------------------------------
timeout 60 "$FTIO" --compat $D/tmio-8ranks.jsonl >"$T/text" || bad "text exit $?"
for key in '^period +1\.9266' '^confidence +0\.677' 'class periodic' '^candidates +1' '^metrics +R_IO' \
           '^per phase' '^next phase' 'abstraction error' '8 ranks' '4935 B'; do
  grep -Eq "$key" "$T/text" || bad "summary lacks /$key/"
done

# ---- sliding window: one line per step, P(periodic) at the end ------------
timeout 60 "$FTIO" --window 10 --step 2 $D/tmio-8ranks.jsonl >"$T/win" || bad "--window exit $?"
steps=$(grep -c '^\[' "$T/win")
if [ "$steps" -lt 13 ] || [ "$steps" -gt 15 ]; then bad "--window 10 --step 2: $steps steps"; fi
grep -q '^P(periodic) ' "$T/win" || bad "--window: no P(periodic) line"
timeout 60 "$FTIO" --json --window adaptive --step 2 $D/tmio-8ranks.jsonl >"$T/win.json" || bad "adaptive exit $?"
python3 - "$T/win.json" <<'PY' || bad "(see above)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) >= 13, len(rows)
assert all(0 <= r["p_periodic"] <= 1 for r in rows)
assert rows[-1]["window"]["end"] > 28.9
print("adaptive window: ok,", len(rows), "steps")
PY
finish
