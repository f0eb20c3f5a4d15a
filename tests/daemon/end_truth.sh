#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# end_truth.sh -- a job ends when it ends, and its `.end` tells the truth
# (issue 21 items 5 and 6):
#  - `cp a b && cp b c` traced as one job: the settle (--settle-end) catches
#    the second cp, so revision 0 covers both (before: revision 0 said
#    complete with the first cp's bytes only);
#  - `mpirun -np 2 sh -c 'dd ...; dd ...'` (ranks by the launcher's
#    environment only, no MPI_Init): likewise one .end with every byte;
#  - `mpirun -np 4 wrap.sh checkpoint --root-only`: a wrapper script writes
#    before and after its rank runs; one .end, every process (before: ranks
#    1..3 never seen, the .end at the job timeout);
#  - a rank whose node clock is 120 s behind, joining 4 s in, is put on
#    ftiod's clock: every byte, complete (before: its records dropped behind
#    complete: true);
#  - a rank 5000 s ahead is flagged, its records counted as dropped (future),
#    complete false (before: dropped silently, complete: true);
#  - hostile counters: lost 2^64-1 and two records of 2^63-1 bytes: no
#    negative or wrapped JSON, counted, complete false.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/lib/libftio.so" "$WIRE"
start_daemon d
MB=1048576
export FTIO_AUTH=none

# Forged ranks first (they take a few seconds in real time), in parallel.
wire periodic --endpoint "ipc://$T/d.in" --job behind-$$ --ranks 4 --period 1 --phases 8 \
  --speed 1 --mpi --clock 3:-120 --join 3:4 >"$T/w1.out" 2>"$T/w1.err" & W1=$!
wire periodic --endpoint "ipc://$T/d.in" --job ahead-$$ --ranks 4 --period 1 --phases 8 \
  --speed 1 --mpi --clock 3:5000 >"$T/w2.out" 2>"$T/w2.err" & W2=$!
wire periodic --endpoint "ipc://$T/d.in" --job hostile-$$ --ranks 2 --period 1 --phases 3 \
  --mpi --lost 18446744073709551615 --huge >"$T/w3.out" 2>"$T/w3.err" || fail "ftio-wire hostile"

# cp a b && cp b c, one job.
head -c $((16 * MB)) /dev/urandom >"$T/a" || fail "no input file"
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=cp-$$ LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=$APP_ASAN_OPTIONS \
  sh -c "cp '$T/a' '$T/b' && cp '$T/b' '$T/c'" 2>"$T/cp.err" || fail "cp"
# dd twice per rank under mpirun, ranks from the launcher's environment only.
run_mpi 2 -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="ipc://$T/d.in" -x FTIO_JOB=dd-$$ \
  -x FTIO_AUTH=none -x FTIO_SPOOL_DIR="$T" sh -c \
  "dd if=/dev/zero of='$T'/dd1.\$OMPI_COMM_WORLD_RANK bs=1M count=4 2>/dev/null &&
   dd if=/dev/zero of='$T'/dd2.\$OMPI_COMM_WORLD_RANK bs=1M count=4 2>/dev/null" 2>"$T/dd.err"
[ "$rc" = 0 ] || fail "mpirun dd: $(cat "$T/dd.err")"
# A rank behind a launcher's wrapper script that writes before and after it.
need "$B/bin/checkpoint"
printf '#!/bin/sh\necho start >"%s/wrap.$OMPI_COMM_WORLD_RANK"\n"$@"\necho done >>"%s/wrap.$OMPI_COMM_WORLD_RANK"\n' \
  "$T" "$T" >"$T/wrap.sh" && chmod +x "$T/wrap.sh"
run_mpi 4 -x LD_PRELOAD="$PRELOAD" -x FTIO_ENDPOINT="ipc://$T/d.in" -x FTIO_JOB=wrap-$$ \
  -x FTIO_AUTH=none -x FTIO_SPOOL_DIR="$T" "$T/wrap.sh" "$B/bin/checkpoint" --root-only -n 2 \
  -c 0.2 -b 1M -o "$T" >/dev/null 2>"$T/wrap.err"
[ "$rc" = 0 ] || fail "mpirun wrap.sh: $(cat "$T/wrap.err")"
wait $W1 || fail "ftio-wire behind"
wait $W2 || fail "ftio-wire ahead"
for j in cp dd wrap behind ahead hostile; do
  wait_topic "$T/d.log" "ftio.$j-$$.end" 15
done
sleep 1.5    # what is tested: no revision follows (a late process would make one)
"$PY" - "$T/d.log" $$ $MB <<'PYEOF' || fail "end messages"
import json, sys
log, pid, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
ends = {}
for d in map(json.loads, open(log)):
    if d["topic"].endswith(".end"):
        ends.setdefault(d["topic"][5:-4], []).append(d["message"])
def show(name):
    e = ends[name + "-" + pid][0]
    print("%-8s rev %d ended_by %-5s complete %-5s bytes %10d processes %d dropped %s lost %d "
          "clamped %s clocks corrected %d flagged %d incomplete %s"
          % (name, e["revision"], e["ended_by"], e["complete"], e["bytes"], e["processes"],
             {k: v for k, v in e["dropped_records"].items() if v}, e["lost_records"],
             e["counters_clamped"], e["clocks_corrected"], e["clocks_flagged"], e["incomplete"]))
    return e
def ints_ok(e):   # no negative or wrapped number anywhere
    def walk(x):
        if isinstance(x, dict): return all(walk(v) for v in x.values())
        if isinstance(x, list): return all(walk(v) for v in x)
        if isinstance(x, (int, float)) and not isinstance(x, bool): return 0 <= x < 2**63 or x != x
        return True
    return walk({k: v for k, v in e.items() if k != "summary"})
bad = 0
e = show("cp")
if not (len(ends["cp-" + pid]) == 1 and e["bytes"] == 4 * 16 * mb and e["complete"] and e["ended_by"] == "idle"):
    print("FAIL: cp a b && cp b c: one .end with both copies' bytes"); bad += 1
e = show("dd")
if not (len(ends["dd-" + pid]) == 1 and e["bytes"] == 16 * mb and e["complete"]):
    print("FAIL: mpirun sh -c 'dd; dd': one .end with every byte"); bad += 1
e = show("wrap")
if not (len(ends["wrap-" + pid]) == 1 and e["complete"] and e["ended_by"] == "final" and
        e["processes"] == 8 and 0 <= e["bytes"] - 2 * mb - 4 * 11 < 65536):   # + what sh writes
    print("FAIL: ranks behind a wrapper script: one .end, 4 ranks and 4 wrappers, every byte"); bad += 1
e = show("behind")
if not (e["complete"] and e["ended_by"] == "final" and e["clocks_corrected"] == 1 and
        e["bytes"] == (4 * 8 - 5) * mb and sum(e["dropped_records"].values()) == 0):
    print("FAIL: a rank 120 s behind: corrected, every byte, complete"); bad += 1
e = show("ahead")
dropped = sum(e["dropped_records"].values())
if not (not e["complete"] and e["clocks_flagged"] == 1 and e["dropped_records"]["future"] == 8 * 4 and
        e["bytes"] + dropped * mb // 4 == 4 * 8 * mb):
    print("FAIL: a rank 5000 s ahead: flagged, its records counted as dropped, not complete"); bad += 1
e = show("hostile")
if not (not e["complete"] and e["lost_records"] == 2**53 - 1 and e["counters_clamped"] and
        e["dropped_records"]["bad_size"] == 2 and e["bytes"] == 2 * 3 * mb and ints_ok(e)):
    print("FAIL: hostile counters"); bad += 1
for name in ends:
    if not ints_ok(ends[name][-1]):
        print("FAIL: %s: a negative or wrapped number" % name); bad += 1
sys.exit(1 if bad else 0)
PYEOF
finish
