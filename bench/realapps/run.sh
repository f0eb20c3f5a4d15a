#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/realapps/run.sh [PROGRAM...] -- the realapps benchmark (bench/README.md
# "realapps"): real programs nobody here wrote (LAMMPS, GROMACS, fio) and our
# small MPI examples of the shapes real codes have, each run live under
# mpirun + ftiod with libftio.so and offline on its spool files
# (run_one.sh), scored against the truth taken from the programs themselves
# (truth.py, score.py).  Default: every program of apps.sh, REALAPPS_REPS
# times (3) each.
#   REALAPPS_OUT   where the runs go (default $B/realapps): one directory per
#                  run (PROGRAM-REP), results.jsonl (one line per run:
#                  score.py's object, or {"app", "run", "error"}) and table.md
#                  (score.py --table: medians over the runs of each program)
#   REALAPPS_REPS  runs per program (3); REALAPPS_SIZE full (default) or test
#   --rescore      score the runs already in REALAPPS_OUT again (after a
#                  change to score.py), without running anything
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=${B:-build}
export B
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
. "$HERE/apps.sh"
OUT=${REALAPPS_OUT:-$B/realapps}
REPS=${REALAPPS_REPS:-3}
mkdir -p "$OUT" || exit 1
if [ "${1:-}" = --rescore ]; then
  : >"$OUT/results.jsonl"
  for run in $(for p in $APPS; do ls -d "$OUT/$p"-* 2>/dev/null; done); do
    if [ -f "$run/error" ]; then
      "$PY" -c "import json,sys; print(json.dumps({'app': sys.argv[1], 'run': sys.argv[2], 'error': open(sys.argv[3]).read().strip()}))" \
        "$(basename "$run" | sed 's/-[0-9]*$//')" "$(basename "$run")" "$run/error" >>"$OUT/results.jsonl"
    elif [ -f "$run/truth.json" ]; then
      "$PY" "$HERE/score.py" "$run" >"$run/result.json" && cat "$run/result.json" >>"$OUT/results.jsonl"
    fi
  done
  "$PY" "$HERE/score.py" --table "$OUT/results.jsonl" >"$OUT/table.md" && cat "$OUT/table.md"
  exit
fi
: >"$OUT/results.jsonl"
progs=${*:-$APPS}
for p in $progs; do
  case " $APPS " in *" $p "*) ;; *) echo "realapps: unknown program '$p' ($APPS)" >&2; exit 2 ;; esac
done
for rep in $(seq 1 "$REPS"); do
  for p in $progs; do
    run="$OUT/$p-$rep"
    t0=$(date +%s)
    if sh "$HERE/run_one.sh" "$p" "$run"; then
      cat "$run/result.json" >>"$OUT/results.jsonl"
      "$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); f=r['job_answer']['live']['final'] or {}; m=r['job_answer']['live']['messages']; print('realapps: %s run %s: %ds, live period %s (err %s %%, %s), settle %s, periodic > 10 %% off %d of %d' % (r['app'], sys.argv[2], int(sys.argv[3]), f.get('period'), f.get('err'), f.get('class'), m['settle'], m['periodic_off10'], m['periodic']))" "$run/result.json" "$rep" "$(( $(date +%s) - t0 ))"
    else
      "$PY" -c "import json,sys; print(json.dumps({'app': sys.argv[1], 'run': sys.argv[2], 'error': open(sys.argv[3]).read().strip() if __import__('os').path.exists(sys.argv[3]) else 'run_one.sh failed'}))" \
        "$p" "$p-$rep" "$run/error" >>"$OUT/results.jsonl"
      echo "realapps: $p run $rep FAILED: $(cat "$run/error" 2>/dev/null)"
    fi
  done
done
"$PY" "$HERE/score.py" --table "$OUT/results.jsonl" >"$OUT/table.md" || exit 1
cat "$OUT/table.md"
echo "realapps: results in $OUT/results.jsonl, table in $OUT/table.md"
