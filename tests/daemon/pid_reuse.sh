#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# pid_reuse.sh -- two traced runs with the same pid, one after the other, are
# two runs (PROTOCOL.md §1 `born`): each in its own pid namespace (`unshare
# --pid`, as every container has: pid 1 each, the same host name), no
# FTIO_JOB, so both are job `host-1`.  The second run starts after the
# first's `.end` is out.  Truth: the files' sizes.
#  - the first run's `.end` has its bytes, and no revision of it follows;
#  - the second run's bytes are all in a job of its own (its `.end` is
#    revision 0, its bytes the second file's size), nothing counted as a
#    duplicate (before: its batches below the first run's next seq were
#    dropped as duplicates, the rest merged as late batches into a
#    "corrected" `.end` of both runs);
#  - a daemon restarted on its --state-dir (the journals' batches merged
#    again) has the same: one job host-1, the second run's;
#  - offline `ftio` on two such runs spooled into one file counts two
#    processes and both runs' bytes (predictor/readers/spool_read.c).
# Needs root for the pid namespace: without it the test fails and says so.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/lib/libftio.so"
command -v unshare >/dev/null 2>&1 || fail "no unshare(1) (util-linux): cannot make a pid namespace"
unshare --pid --fork --mount-proc true 2>"$T/unshare.err" ||
  fail "cannot start unshare --pid --fork --mount-proc (root needed): $(cat "$T/unshare.err")"
start_daemon d --settle-end 0.3 --state-dir "$T/state"

# run N COUNT [VAR=VALUE...]: dd writes COUNT x 64 KiB to $T/runN as pid 1 of a new pid
# namespace (sh, untraced, says its pid, then becomes the traced dd).
run() {
  _n=$1 _count=$2
  shift 2
  unshare --pid --fork --mount-proc sh -c 'echo $$ >"$1.pid"; shift; exec "$@"' sh "$T/run$_n" \
    env "$@" LD_PRELOAD="$PRELOAD" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$APP_ASAN_OPTIONS" \
    FTIO_ENDPOINT="ipc://$T/d.in" FTIO_AUTH=none \
    dd if=/dev/zero of="$T/run$_n" bs=65536 count="$_count" status=none 2>"$T/run$_n.err" ||
    fail "run $_n: $(cat "$T/run$_n.err")"
  [ "$(cat "$T/run$_n.pid")" = 1 ] || fail "run $_n was pid $(cat "$T/run$_n.pid"), not 1"
}

# ends: the .end messages of jobs named *-1, in order, as JSON.
ends() { jsonl "$T/d.log" "[m for t, m in msgs if t.startswith('ftio.') and t.endswith('-1.end')]"; }

run 1 16
wait_for 20 log_is "$T/d.log" "len([t for t, m in msgs if t.endswith('-1.end')]) >= 1" ||
  fail "no .end of the first run"
run 2 24
wait_for 20 log_is "$T/d.log" "len([t for t, m in msgs if t.endswith('-1.end')]) >= 2" ||
  fail "no second .end after the second run: $(ends)"
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/status.json" ||
  fail "ftiod --status"

ends >"$T/ends.json"
"$PY" - "$T/ends.json" "$T/status.json" "$(stat -c %s "$T/run1")" "$(stat -c %s "$T/run2")" <<'PYEOF' ||
import json, sys
ends = json.load(open(sys.argv[1]))
status = json.load(open(sys.argv[2]))
size1, size2 = int(sys.argv[3]), int(sys.argv[4])
for e in ends:
    print("job %s rev %d bytes %d processes %d missing %s complete %s" %
          (e["job"], e["revision"], e["bytes"], e["processes"], e["missing_batches"], e["complete"]))
bad = 0
def check(ok, what):
    global bad
    if not ok:
        print("FAIL: " + what)
        bad += 1
check(size1 == 16 * 65536 and size2 == 24 * 65536, "dd wrote what was asked")
check(len(ends) == 2, "two .end messages, one per run (no revision of the first)")
first, second = ends[0], ends[1]
check(first["job"] == second["job"] and first["job"].endswith("-1"), "both runs are job host-1")
check(first["revision"] == 0 and first["bytes"] == size1 and first["processes"] == 1 and first["complete"],
      "the first run's .end: its bytes, one process, complete")
check(second["revision"] == 0 and second["bytes"] == size2 and second["processes"] == 1 and
      second["complete"], "the second run's bytes all in a job of its own (revision 0)")
dups = status["dropped"]["duplicates"]
check(dups == 0, "nothing counted as a duplicate (status duplicates %r)" % dups)
sys.exit(1 if bad else 0)
PYEOF
  bad "the second run with the first's pid is not a run of its own: $(cat "$T/ends.json")"

# The same from the journals: the first run's went with its job, the
# second's alone is restored (24 records, ended; in one batch or, when the
# run outlives the shim's 20-ms deferral on a loaded machine, in more).
kill -TERM $DPID && wait $DPID 2>/dev/null
start_daemon d2 --settle-end 0.3 --state-dir "$T/state"
restored=$(grep -E "job [^ ]*-1 restored" "$T/d2.err")
echo "$restored"
[ "$(echo "$restored" | grep -c .)" = 1 ] && echo "$restored" | grep -qE "restored: [1-9][0-9]* batches, 24 records, ended" ||
  bad "the journals do not give the same jobs: $restored"
[ "$(ls "$T/state" | grep -c '\.journal$')" = 1 ] || bad "journals left: $(ls "$T/state")"

# Offline: two more runs as pid 1, spooled (one file: job host-1).
mkdir -m 700 "$T/spool"
run 3 8 FTIO_SPOOL=always FTIO_SPOOL_DIR="$T/spool"
run 4 12 FTIO_SPOOL=always FTIO_SPOOL_DIR="$T/spool"
"$B/bin/ftio" --json "$T"/spool/* >"$T/offline.json" 2>"$T/offline.err" || bad "ftio: $(cat "$T/offline.err")"
offline=$("$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["ranks"], int(d["bytes"]))' \
  "$T/offline.json")
want="2 $(($(stat -c %s "$T/run3") + $(stat -c %s "$T/run4")))"
[ "$offline" = "$want" ] && ok "offline: two processes with pid 1 are two ($offline)" ||
  bad "offline: processes and bytes $offline, expected $want"
finish
