#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# reference.sh -- every row of ALGORITHM.md §8 through `ftio --json`:
# frequencies to 1e-6 relative, confidences to 1e-6 absolute, windows, N,
# candidates, totals.  The TMIO rows run on both the JSONL and the msgpack file.
# These are the published implementation's numbers: `ftio --compat`.  The end
# checks what the default (robust) detector says of the same traces.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
FTIO=$B/bin/ftio
D=tests/data
J="python3 tests/cli/jcheck.py"
run() {   # run LABEL "ftio args" checks...
  label=$1; args=$2; shift 2
  # shellcheck disable=SC2086
  out=$(timeout 60 $FTIO --compat --json $args) || { bad "$label: ftio exited $?"; return; }
  printf '%s' "$out" | $J "$label" "$@" || bad "(see above)"
}

for f in $D/tmio-8ranks.jsonl $D/tmio-8ranks.msgpack; do
  run "$f default" "$f" \
    'near(j["window"]["start"], 0.05309)' 'near(j["window"]["end"], 28.982125)' \
    'j["window"]["samples"] == 289' 'j["window"]["fs"] == 10' \
    'rel(j["frequency"], 0.519031142)' 'near(j["confidence"], 0.677441493)' \
    'rel(j["candidates"][0]["amplitude"], 4259.3646)' 'len(j["candidates"]) == 1' \
    'j["class"] == "periodic"' 'near(j["period"], 1.9267, 1e-4)' \
    'near(j["bytes"], 4935)' 'j["ranks"] == 8' 'j["mode"] == "write"'
  run "$f -f 100" "-f 100 $f" \
    'j["window"]["samples"] == 2892' 'rel(j["frequency"], 1.071922545)' \
    'near(j["confidence"], 0.583619821)'
  run "$f --mode read" "--mode read $f" \
    'near(j["window"]["start"], 2.507478)' 'near(j["window"]["end"], 29.028889)' \
    'j["window"]["samples"] == 265' 'len(j["candidates"]) == 2' 'j["class"] == "uncertain"' \
    'rel(j["candidates"][0]["frequency"], 0.528301887)' 'near(j["candidates"][0]["confidence"], 0.472776093)' \
    'rel(j["candidates"][1]["frequency"], 2.150943396)' 'near(j["candidates"][1]["confidence"], 0.380140201)' \
    'rel(j["frequency"], 0.528301887)' 'near(j["confidence"], 0.472776093)' 'j["mode"] == "read"'
  run "$f -n 5" "-n 5 $f" \
    'len(j["top"]) == 5' 'j["top"][0]["frequency"] == 0' \
    'rel(j["top"][1]["frequency"], 0.519031, 1e-5)' 'rel(j["top"][2]["frequency"], 1.072664, 1e-5)' \
    'rel(j["top"][3]["frequency"], 4.152249, 1e-5)' 'rel(j["top"][4]["frequency"], 0.069204, 1e-5)' \
    'rel(j["frequency"], 0.519031142)'
done
run custom.json "$D/custom.json" \
  'near(j["window"]["start"], 0.05999)' 'near(j["window"]["end"], 21.592681)' \
  'j["window"]["samples"] == 215' 'rel(j["frequency"], 0.372093023)' 'near(j["confidence"], 1.0)' \
  'j["ranks"] == 4' 'near(j["bytes"], 1.68e9)'
run synthetic-14.json "$D/synthetic-14.json" \
  'near(j["window"]["start"], 0)' 'near(j["window"]["end"], 65)' 'j["window"]["samples"] == 650' \
  'rel(j["frequency"], 0.046153846)' 'near(j["confidence"], 0.802496292)' \
  'rel(j["candidates"][0]["amplitude"], 230311.49)'
run zmq-example.json "$D/zmq-example.json" \
  'near(j["window"]["start"], 1)' 'near(j["window"]["end"], 9)' 'j["window"]["samples"] == 80' \
  'rel(j["frequency"], 0.125)' 'near(j["confidence"], 1.0)' 'rel(j["candidates"][0]["amplitude"], 76.355, 1e-5)'

# ---- the default detector on the same traces --------------------------------
robust() {   # robust LABEL "ftio args" checks...
  label=$1; args=$2; shift 2
  # shellcheck disable=SC2086
  out=$(timeout 60 $FTIO --json $args) || { bad "$label: ftio exited $?"; return; }
  printf '%s' "$out" | $J "robust $label" 'j["detector"] == "robust"' "$@" || bad "(see above)"
}
# Bursts at 10, 30 and 50 s (the other pairs move nothing): the phases give
# T = 20 s exactly, where FTIO's DFT bin says 21.67 s, and the next at 70 s.
robust synthetic-14.json "$D/synthetic-14.json" 'near(j["period"], 20, 1e-6)' \
  'j["class"] in ("periodic", "uncertain")' 'near(j["phase"]["bytes"], 9000, 1e-6)' \
  'j["next"]["start"] > j["window"]["end"]' 'near(j["next"]["start"], 70, 1e-6)'
# One overlapping blob in an 8 s window: no period, and says why.
robust zmq-example.json "$D/zmq-example.json" 'j["period"] is None' 'j["class"] == "none"' \
  'isinstance(j["reason"], str) and len(j["reason"]) > 10'
# Writes every 5 s by 4 ranks, reads every 2.5 s.
robust sample.csv "$D/sample.csv" 'near(j["period"], 5, 0.05)'
robust sample-read "-m read $D/sample.csv" 'near(j["period"], 2.5, 0.025)'
finish
