#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rank0_only.sh -- a job whose ranks do not all do I/O ends when it ends
# (issue 16 item 4): 10 runs in a row of `mpirun -np 4 checkpoint --root-only`
# (rank 0 writes every checkpoint, ranks 1..3 never touch a traced file) under
# libftio.so.  Each rank says at MPI_Init that it exists and at MPI_Finalize
# that it finished (header-only batches, `mpi` 1 and 2), so each job's `.end`
# says ended_by final, complete true, 4 processes, every byte rank 0 wrote,
# within 1 s of mpirun's return (the --log's modification time when the `.end`
# is its last line).  Before, ranks 1..3 were never seen and the job waited
# for the --job-timeout (300 s here; the test waits 10 s).
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/checkpoint" "$B/lib/libftio.so"
start_daemon d
RUNS=${RANK0_RUNS:-10}
ITER=2 BLOCK=1048576
: >"$T/lags"
k=1
while [ $k -le $RUNS ]; do
  J=rank0-$$-$k
  run_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="ipc://$T/d.in" -x FTIO_JOB="$J" \
    -x FTIO_SPOOL_DIR="$T" "$B/bin/checkpoint" --root-only -n $ITER -c 0.1 -b $BLOCK -o "$T" \
    >"$T/app.out" 2>"$T/app.err"
  t_ret=$(date +%s.%N)
  [ "$rc" = 0 ] || fail "run $k: checkpoint failed: $(cat "$T/app.err")"
  wait_topic "$T/d.log" "ftio.$J.end" 10
  # The .end is the daemon's last line for this job (no other job runs).
  lag=$("$PY" -c "import os, sys; print('%.3f' % (os.stat(sys.argv[1]).st_mtime - float(sys.argv[2])))" \
        "$T/d.log" "$t_ret")
  echo "$lag" >>"$T/lags"
  "$PY" - "$T/d.log" "$J" $((ITER * BLOCK)) "$lag" <<'PYEOF' || bad "run $k: end message"
import json, sys
log, job, want, lag = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
ends = [d["message"] for d in map(json.loads, open(log)) if d["topic"] == "ftio.%s.end" % job]
e = ends[0]
print("%s: ended by %s %.3f s after mpirun returned, complete %s, %d processes, bytes %d"
      % (job, e["ended_by"], lag, e["complete"], e["processes"], e["bytes"]))
assert len(ends) == 1, ends
assert e["ended_by"] == "final" and e["complete"] is True, e
assert e["processes"] == 4 and e["processes_without_final"] == 0, e
assert e["bytes"] == want, (e["bytes"], want)
assert lag < 1.0, "the .end came %.3f s after mpirun returned" % lag
PYEOF
  k=$((k + 1))
done
"$PY" -c "
import statistics, sys
v = [float(x) for x in open(sys.argv[1])]
print('end latency over %d runs: median %.3f s, max %.3f s' % (len(v), statistics.median(v), max(v)))" "$T/lags"
finish
