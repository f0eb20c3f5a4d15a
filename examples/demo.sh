#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# demo.sh -- the live end-to-end demo (`make demo`; the Makefile builds first).
#
# Starts ftiod on ipc:// endpoints in a private temporary directory, subscribes to its predictions
# (`ftio sub`), runs the MPI checkpointing mini-app under the shim with a known
# period (compute 3 s + a 32 MiB collective checkpoint per rank, 10 times,
# 4 ranks), prints the predictions as they arrive, and ends with a summary of
# predicted vs true period (the true one is what the app measured: its total
# time / iterations).  Exits non-zero when the prediction is wrong (off by more
# than 5 %, or no period found).  It ends by drawing the job's pictures:
# the app runs with FTIO_SPOOL=tee (stream to ftiod and keep the whole trace
# in spool files), `ftio --window adaptive --plot` draws the analysis step by
# step on those files, as ftiod made it, and `ftio report` draws what ftiod
# published (its --log).  Then the same application runs again, shorter
# ($DEMO_AGAIN iterations, default 3): ftiod remembers its first run (the
# memory of runs, --history) and predicts the second from its first batch,
# before its first checkpoint.  The pages are written to $DEMO_PLOT (default
# ./ftio-demo.html) and ${DEMO_PLOT%.html}-report.html; everything else runs
# in a temporary directory that is removed at the end; about 55 s.
set -u
B=${B:-build}
B=$(cd "$B" 2>/dev/null && pwd) || { echo "demo: no build directory '$B'" >&2; exit 1; }
ITER=${DEMO_ITERATIONS:-10}
AGAIN=${DEMO_AGAIN:-3}
COMPUTE=${DEMO_COMPUTE:-3}
BLOCK=${DEMO_BLOCK:-32M}
RANKS=${DEMO_RANKS:-4}
JOB="demo-$$"
PLOT=${DEMO_PLOT:-$PWD/ftio-demo.html}
case $PLOT in *.html) ;; *) echo "demo: DEMO_PLOT must end in .html" >&2; exit 1 ;; esac
REPORT=${PLOT%.html}-report.html
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3

for f in bin/ftiod bin/ftio bin/checkpoint lib/libftio.so; do
  [ -e "$B/$f" ] || { echo "demo: $B/$f is missing (run 'make' first)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "demo: mpirun not found" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/ftio-demo.XXXXXX")
DPID=""; SPID=""
cleanup() {
  [ -n "$SPID" ] && kill "$SPID" 2>/dev/null
  [ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- ftiod on ipc:// endpoints in the private temporary directory -----------
# (no TCP port to find free, nothing another user or demo can collide with)
L="ipc://$T/ingest"; P="ipc://$T/pub"; S="ipc://$T/status"
"$B/bin/ftiod" --config none --auth none --listen "$L" --pub "$P" --status-endpoint "$S" \
  --log "$T/published.jsonl" --history "$T/history.sqlite" -v 2>"$T/ftiod.err" &
DPID=$!
i=0
until "$B/bin/ftiod" --status --status-endpoint "$S" >/dev/null 2>&1; do
  i=$((i + 1))
  if [ $i -gt 50 ] || ! kill -0 "$DPID" 2>/dev/null; then
    echo "demo: ftiod did not start" >&2; cat "$T/ftiod.err" >&2; exit 1
  fi
  sleep 0.1
done
echo "== ftiod listening on $L, publishing on $P"

# ---- predictions as they arrive ---------------------------------------------
"$B/bin/ftio" sub --endpoint "$P" --job "$JOB" --timeout $((ITER * (COMPUTE + 2) + 30)) \
  | sed 's/^/   prediction | /' &
SPID=$!
sleep 0.3

# ---- the application ---------------------------------------------------------
ROOTOPT=""
[ "$(id -u)" = 0 ] && ROOTOPT="--allow-run-as-root"
# DEMO_PRELOAD: what the ranks preload (tests/plot/demo_pages.sh puts the
# sanitizer runtime in front of an instrumented libftio.so).
PRELOAD=${DEMO_PRELOAD:-$B/lib/libftio.so}
[ -n "${ASAN_OPTIONS:-}" ] && ROOTOPT="$ROOTOPT -x ASAN_OPTIONS"
echo "== mpirun -np $RANKS checkpoint -n $ITER -c $COMPUTE -b $BLOCK (under libftio.so, job $JOB)"
mpirun $ROOTOPT --oversubscribe -np "$RANKS" \
  -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="$L" -x FTIO_JOB="$JOB" \
  -x FTIO_SPOOL_DIR="$T" -x FTIO_SPOOL=tee -x FTIO_AUTH=none \
  "$B/bin/checkpoint" -n "$ITER" -c "$COMPUTE" -b "$BLOCK" -o "$T" -v >"$T/app.out" 2>&1
rc=$?
sed 's/^/   app        | /' "$T/app.out"
[ $rc = 0 ] || { echo "demo: the application failed (exit $rc)" >&2; exit 1; }

# The job ends in ftiod when every rank sent its final batch: `ftio sub --job`
# exits on the job's end message.
i=0
while kill -0 "$SPID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill "$SPID" 2>/dev/null; SPID=""

# ---- summary -----------------------------------------------------------------
"$PY" - "$T/published.jsonl" "$T/app.out" "$JOB" "$COMPUTE" <<'EOF'; verdict=$?
import json, re, sys
log, app, job, compute = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
msgs = [json.loads(l) for l in open(log)]
preds = [m["message"] for m in msgs if m["topic"] == "ftio.%s.write" % job]
end = [m["message"] for m in msgs if m["topic"] == "ftio.%s.end" % job]
m = re.search(r"(\d+) iterations.*total ([0-9.]+) s", open(app).read())
if not m:
    print("demo: FAIL: no summary line from the application"); sys.exit(1)
iters, total = int(m.group(1)), float(m.group(2))
true_p = total / iters
final = end[-1]["summary"].get("write") if end else (preds[-1] if preds else None)
print()
print("================ ftio live demo: summary ================")
print("true period          %.3f s  (app: %d iterations in %.2f s; compute %.1f s)" % (true_p, iters, total, compute))
if not final or final.get("period") is None:
    print("predicted period     none")
    print("RESULT               FAIL: no period predicted")
    sys.exit(1)
p = final["period"]
err = abs(p - true_p) / true_p
print("predicted period     %.3f s  (class %s, confidence %.2f, P(periodic) %.2f)"
      % (p, final["class"], final["confidence"], final["p_periodic"] or 0))
print("relative error       %.2f %%" % (100 * err))
print("predictions          %d published for writes, job end %s" % (len(preds), "received" if end else "NOT received"))
t0 = min(x["window"]["start"] for x in preds) if preds else 0
first_ok = next((x for x in preds if x["period"] and abs(x["period"] - true_p) / true_p <= 0.05), None)
if first_ok:
    print("first within 5 %%    after %.1f s of the job (~%d phases)"
          % (first_ok["window"]["end"] - t0, round((first_ok["window"]["end"] - t0) / true_p) + 1))
errs = [x["last_error"]["start"] for x in preds if x.get("last_error")]
if errs:
    print("self-scoring         next-phase start off by %.3f s on average (%d scored)"
          % (sum(abs(e) for e in errs) / len(errs), len(errs)))
print("ranks, records       %s ranks, %s write records, %s lost" % (final["ranks"], final["records"], final["lost"]))
ok = err <= 0.05 and final["class"] in ("periodic", "uncertain")
print("RESULT               %s" % ("PASS" if ok else "FAIL: prediction off"))
print("==========================================================")
sys.exit(0 if ok else 1)
EOF

# ---- the same application again: ftiod remembers it ---------------------------
# Its first run is recorded from its .end (ftiod's history thread); the
# second run's first batch finds it.
JOB2="$JOB-again"
i=0
until "$B/bin/ftio" history list --json --endpoint "$S" 2>/dev/null | grep -q '"runs": *[1-9]'; do
  i=$((i + 1))
  [ $i -gt 100 ] && { echo "demo: the first run was not recorded in the memory of runs" >&2; verdict=1; break; }
  sleep 0.1
done
echo
echo "== the same application again (job $JOB2, $AGAIN iterations): ftiod remembers its first run"
mkdir -p "$T/again"
# (the same command line but for the number of iterations: the memory of runs
# knows it by its arguments with their numbers normalised)
mpirun $ROOTOPT --oversubscribe -np "$RANKS" \
  -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="$L" -x FTIO_JOB="$JOB2" \
  -x FTIO_SPOOL_DIR="$T/again" -x FTIO_AUTH=none \
  "$B/bin/checkpoint" -n "$AGAIN" -c "$COMPUTE" -b "$BLOCK" -o "$T" -v >"$T/again.out" 2>&1 ||
  { echo "demo: the second run failed" >&2; cat "$T/again.out" >&2; verdict=1; }
i=0
until grep -q "\"topic\":\"ftio.$JOB2.end\"" "$T/published.jsonl" || [ $i -gt 100 ]; do
  sleep 0.1; i=$((i + 1))
done
"$PY" - "$T/published.jsonl" "$T/ftiod.err" "$JOB2" "$T/again.out" <<'EOF' || verdict=1
import json, re, sys, datetime
log, err, job, app = sys.argv[1:5]
w = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == "ftio.%s.write" % job]
first = re.search(r"^(\S+) ftiod\[\d+\] info: job %s: first batch" % re.escape(job), open(err).read(), re.M)
m = re.search(r"(\d+) iterations.*total ([0-9.]+) s", open(app).read())
if not w or not first or not m:
    print("demo: FAIL: the second run's predictions or its first batch are missing"); sys.exit(1)
t0 = datetime.datetime.fromisoformat(first.group(1).replace("Z", "+00:00")).timestamp()
true_p = float(m.group(2)) / int(m.group(1))
x = w[0]
h = x.get("history") or {}
print("first prediction     %.2f s after the job's first batch, period %.3f s (true %.3f s), source %s"
      % (x["published"] - t0, x["period"] or float("nan"), true_p, x.get("source")))
if x.get("source") == "history":
    print("                     from the memory of runs: %d earlier run, key level %s, confidence %.2f"
          % (h.get("runs", 0), h.get("level"), x["confidence"]))
ok = x.get("source") == "history" and x["period"] and abs(x["period"] - true_p) / true_p <= 0.05
print("RESULT               %s" % ("PASS: predicted from its first batch" if ok else
                                   "FAIL: no prediction from the memory of runs"))
sys.exit(0 if ok else 1)
EOF

# ---- the pictures ------------------------------------------------------------
# The spool files hold the whole trace (FTIO_SPOOL=tee): the analysis step by
# step as ftiod made it, with the bandwidth signal and its phases; the log
# holds what ftiod published.
echo
echo "== pictures"
set -- "$T"/ftio-"$JOB"-*.msgpack
if [ -e "$1" ]; then
  if "$B/bin/ftio" --window adaptive --plot "$PLOT" "$@" >"$T/plot.out" 2>&1; then
    echo "   step by step (ftio --window adaptive --plot on the spool files): $PLOT"
  else
    echo "demo: ftio --plot failed:" >&2; cat "$T/plot.out" >&2; verdict=1
  fi
else
  echo "demo: no spool file in $T (FTIO_SPOOL=tee)" >&2; verdict=1
fi
if "$B/bin/ftio" report "$T/published.jsonl" --job "$JOB" --trace "$@" -o "$REPORT" >"$T/report.out" 2>&1; then
  echo "   what ftiod published (ftio report on its --log):              $REPORT"
else
  echo "demo: ftio report failed:" >&2; cat "$T/report.out" >&2; verdict=1
fi
echo "   open them in a browser (self-contained HTML, no JavaScript)"
exit $verdict
