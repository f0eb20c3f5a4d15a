#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# exports.sh -- `ftio --export-signal / --export-spectrum` against `ftio
# --json` on the same trace, and bad input of --plot, the exports and `ftio
# report`:
#   signal    header; one row per sample (window.samples), times from
#             window.start every 1/fs; sum of bandwidth / fs = the trace's
#             bytes within exactly the JSON's abstraction error (spool trace);
#   spectrum  header; one row per bin 1..N/2; compat: the rows flagged as
#             candidates are the JSON candidates (frequency exact), the
#             dominant one is the JSON frequency, and every candidate is above
#             the threshold; robust: the dominant row is the bin nearest the
#             period; both runs in one file per job;
#   --window  --plot and --json together: stdout is still one JSON object
#             per line;
#   errors    an unwritable or directory output path, a missing value, an
#             analysis that fails (no file left behind, an old file kept),
#             `ftio report` on a missing log, a log without messages, a log
#             of several jobs without --job (lists them), an unknown --job
#             (lists them), garbage lines (skipped with one warning):
#             one line on stderr, exit status non-zero, no temporary files.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
FTIO=$B/bin/ftio
GEN=$WIRE
D=tests/data
for f in "$FTIO" "$GEN"; do [ -x "$f" ] || { echo "FAIL: missing $f (build it first)"; exit 1; }; done

# ---- the CSV files against --json ------------------------------------------------
check_csv() {   # check_csv NAME exact|loose: $T/NAME.json, $T/NAME.sig.csv, $T/NAME.spec.csv
  "$PY" - "$T/$1.json" "$T/$1.sig.csv" "$T/$1.spec.csv" "$2" <<'EOF'
import csv, json, math, sys
j = json.load(open(sys.argv[1]))
sig = list(csv.reader(open(sys.argv[2])))
spec = list(csv.reader(open(sys.argv[3])))
errs = []
if sig[0] != ["job", "mode", "time_s", "bandwidth_B_per_s"]:
    errs.append("signal header %s" % sig[0])
if spec[0] != ["job", "mode", "bin", "frequency_Hz", "period_s", "amplitude", "power",
               "above_threshold", "candidate", "dominant"]:
    errs.append("spectrum header %s" % spec[0])
w = j["window"]
rows = sig[1:]
if len(rows) != w["samples"]:
    errs.append("signal: %d rows, %d samples" % (len(rows), w["samples"]))
t = [float(r[2]) for r in rows]
if abs(t[0] - w["start"]) > 1e-9 or any(abs(t[k] - (t[0] + k / w["fs"])) > 1e-6 for k in range(len(t))):
    errs.append("signal times do not start at %s every 1/fs" % w["start"])
vol = sum(float(r[3]) for r in rows) / w["fs"]
ae = j["metrics"]["abstraction_error"] if j["metrics"] else None
# Spool traces: the signal is built from the requests, so the samples' volume
# is the trace's bytes up to exactly the abstraction error; TMIO's pre-merged
# signal need not hold the requests' bytes to the byte.
if sys.argv[4] == "exact":
    if abs(abs(vol - j["bytes"]) / j["bytes"] - ae) > 1e-9:
        errs.append("signal volume %.17g, trace bytes %.17g, abstraction error %s" % (vol, j["bytes"], ae))
elif abs(vol - j["bytes"]) > 0.01 * j["bytes"]:
    errs.append("signal volume %.6g, trace bytes %.6g" % (vol, j["bytes"]))
if any(r[0] != (j["job"] or "") or r[1] != j["mode"] for r in rows):
    errs.append("signal: job/mode column")
bins = spec[1:]
if len(bins) != w["samples"] // 2:
    errs.append("spectrum: %d rows, want %d" % (len(bins), w["samples"] // 2))
cand = [float(r[3]) for r in bins if r[8] == "1"]
dom = [float(r[3]) for r in bins if r[9] == "1"]
above = {r[2] for r in bins if r[7] == "1"}
if j["detector"] == "compat":
    want = sorted(c["frequency"] for c in j["candidates"])
    if len(cand) != len(want) or any(abs(a - b) > 1e-12 * b for a, b in zip(sorted(cand), want)):
        errs.append("candidates %s, JSON %s" % (cand, want))
    if j["frequency"] and (len(dom) != 1 or abs(dom[0] - j["frequency"]) > 1e-12 * j["frequency"]):
        errs.append("dominant %s, JSON frequency %s" % (dom, j["frequency"]))
    if any(r[2] not in above for r in bins if r[8] == "1"):
        errs.append("a candidate is not above the threshold")
elif j["period"]:
    df = w["fs"] / w["samples"]
    if len(dom) != 1 or abs(dom[0] - 1 / j["period"]) > 0.5 * df + 1e-12:
        errs.append("dominant bin %s, JSON period %s (bin width %s Hz)" % (dom, j["period"], df))
print("%d samples, %d bins, candidates %s, volume %.6g B" % (len(rows), len(bins), cand, vol))
if errs:
    print("; ".join(errs))
    sys.exit(1)
EOF
}

for run in "compat:--compat" "robust:"; do
  name=${run%%:*}; opts=${run#*:}
  timeout 60 "$FTIO" $opts --json --export-signal "$T/$name.sig.csv" --export-spectrum "$T/$name.spec.csv" \
    "$D/tmio-8ranks.jsonl" >"$T/$name.json" 2>"$T/$name.err" || bad "ftio $opts --export-*: $(cat "$T/$name.err")"
  if check_csv "$name" loose; then ok "$name exports match ftio --json"; else bad "$name exports"; fi
done

# A job name that needs CSV quoting, and the read mode.
mkdir -p "$T/sp"
"$GEN" periodic --spool "$T/sp" --job 'a,"b"' --ranks 2 --period 2 --duration 0.3 --phases 6 --read >/dev/null \
  || bad "ftio-wire"
timeout 60 "$FTIO" -m read --json --export-signal "$T/q.sig.csv" --export-spectrum "$T/q.spec.csv" \
  "$T"/sp/*.msgpack >"$T/q.json" 2>"$T/q.err" || bad "ftio -m read: $(cat "$T/q.err")"
if check_csv q exact >/dev/null; then ok "quoted job name, read mode"; else bad "quoted job: $(check_csv q exact)"; fi
grep -q '^"a,""b""",read,' "$T/q.sig.csv" || bad "job column not quoted: $(sed -n 2p "$T/q.sig.csv")"

# --window --plot --json: the JSON lines are untouched.
timeout 60 "$FTIO" --window adaptive --json --plot "$T/w.html" "$D/tmio-8ranks.jsonl" >"$T/w.jsonl" 2>"$T/w.err" \
  || bad "ftio --window --plot: $(cat "$T/w.err")"
"$PY" -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$T/w.jsonl" \
  && [ -s "$T/w.html" ] && ok "--window --json --plot" || bad "--window --json --plot output"

# ---- bad input: one line on stderr, non-zero exit ---------------------------------
# expect_error STATUS PATTERN CMD...
expect_error() {
  want=$1; pat=$2; shift 2
  timeout 60 "$@" >"$T/out" 2>"$T/err"; rc=$?
  if [ "$rc" != "$want" ]; then bad "$* -> exit $rc, want $want: $(cat "$T/err")"; return; fi
  if [ "$want" = 1 ] && [ "$(wc -l <"$T/err")" != 1 ]; then bad "$*: stderr: $(cat "$T/err")"; return; fi
  head -1 "$T/err" | grep -Eq -- "$pat" || { bad "$*: stderr '$(head -1 "$T/err")' !~ /$pat/"; return; }
  ok "$(echo "$*" | sed "s|$T/||g") -> $want: $(head -1 "$T/err")"
}
expect_error 1 "^ftio: cannot write $T/no/such/dir/p.html: No such file or directory" \
  "$FTIO" --plot "$T/no/such/dir/p.html" "$D/sample.csv"
expect_error 1 "^ftio: cannot write $T: it is a directory" "$FTIO" --export-signal "$T" "$D/sample.csv"
expect_error 1 "^ftio: cannot write /proc/version" "$FTIO" --export-spectrum /proc/version "$D/sample.csv"
expect_error 2 "^ftio: --plot needs a value" "$FTIO" "$D/sample.csv" --plot
expect_error 2 "^ftio: --plot: needs a value" "$FTIO" --plot= "$D/sample.csv"
# An analysis that fails leaves no page, and an old page in place.
echo "old page" >"$T/old.html"
expect_error 1 "^ftio: no I/O in the analysis window" \
  "$FTIO" --plot "$T/old.html" --export-signal "$T/old.csv" -ts 1000 -te 1001 "$D/tmio-8ranks.jsonl"
[ "$(cat "$T/old.html")" = "old page" ] && [ ! -e "$T/old.csv" ] && ok "failed analysis: old page kept, no CSV" \
  || bad "failed analysis touched the outputs"
ls "$T" | grep -q '\.tmp\.' && bad "temporary files left: $(ls "$T" | grep '\.tmp\.')"

# ---- ftio report ---------------------------------------------------------------------
msg() {   # msg JOB MODE PERIOD END: one --log line
  printf '{"topic":"ftio.%s.%s","message":{"v":3,"job":"%s","mode":"%s","seq":1,"published":1763741234.5,"window":{"start":1763741200,"end":%s,"fs":10,"samples":10},"period":%s,"frequency":null,"confidence":0.9,"class":"periodic","detector":"robust","reason":null,"stale":false,"since":null,"candidates":[],"metrics":null,"phase":{"bytes":1048576,"duration":0.5},"next":{"start":null,"end":null,"bytes":null},"last_error":null,"p_periodic":1,"ranks":2,"bytes":1e9,"records":10,"lost":0}}\n' \
    "$1" "$2" "$1" "$2" "$4" "$3"
}
{ msg j1 write 2 1763741210; msg j2.0 write 3 1763741211; msg j1 write 2 1763741212; msg j2.0 read 3 1763741213; } >"$T/two.jsonl"
expect_error 1 "^ftio report: $T/two.jsonl holds 2 jobs, choose one with --job: j1, j2.0$" "$FTIO" report "$T/two.jsonl"
expect_error 1 "^ftio report: no job j3 in $T/two.jsonl \(jobs: j1, j2.0\)$" "$FTIO" report "$T/two.jsonl" --job j3
expect_error 1 "^ftio report: cannot read $T/none.jsonl: No such file" "$FTIO" report "$T/none.jsonl"
: >"$T/empty.jsonl"
expect_error 1 "^ftio report: $T/empty.jsonl holds no ftiod message" "$FTIO" report "$T/empty.jsonl"
expect_error 1 "^ftio report: cannot write $T/no/dir/r.html" "$FTIO" report "$T/two.jsonl" --job j1 -o "$T/no/dir/r.html"
expect_error 2 "^ftio report: unknown option: --bogus" "$FTIO" report --bogus "$T/two.jsonl"
expect_error 2 "^ftio report: no log given" "$FTIO" report
# A job id with a dot (a Slurm step), garbage and a line cut short: the page,
# one warning.
{ cat "$T/two.jsonl"; echo "not json"; echo '{"topic":"ftio.j1.write","message":{"v":3,"job":"j1","window":{"end":1763741'; } >"$T/dirty.jsonl"
timeout 60 "$FTIO" report "$T/dirty.jsonl" --job j2.0 -o "$T/r.html" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc = 0 ] && grep -q "^wrote $T/r.html (job j2.0, 1 write and 1 read predictions)$" "$T/out" \
   && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^ftio report: warning: $T/dirty.jsonl: 2 lines skipped (first: line 5: " "$T/err"; then
  ok "report of j2.0 from a dirty log: $(cat "$T/err")"
else
  bad "report of a dirty log: exit $rc, $(cat "$T/out" "$T/err")"
fi
grep -q 'section class="run" id="run-2" data-mode="read"' "$T/r.html" || bad "no read section in r.html"
# Without -o: ftio-report-<job>.html in the current directory, the job id made a safe file name.
(cd "$T" && timeout 60 "$FTIO" report --job=j2.0 two.jsonl >/dev/null 2>&1) && [ -s "$T/ftio-report-j2.0.html" ] \
  && ok "default output name ftio-report-j2.0.html" || bad "no default output file"
ls "$T" | grep -q '\.tmp\.' && bad "temporary files left: $(ls "$T" | grep '\.tmp\.')"
finish
