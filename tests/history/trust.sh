#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# trust.sh -- a user's memory of runs is that user's (docs/SECURITY.md "The
# memory of runs"), with a real munged, root and the uid nobody, ftiod
# --auth munge --history --history-apps 3:
#   1. root's application (period 2 s) is recorded under uid 0;
#   2. nobody runs the same program with the same arguments, its batches
#      claiming `app.uid` 0 (a forged identity): its job gets no prior (the
#      key is the job's MUNGE-proven owner), and its run (period 5 s) is
#      recorded under nobody's uid, not root's;
#   3. root's next run gets the prior of root's run alone (1 run, period 2):
#      nobody could not poison it;
#   4. nobody records five more applications: nobody keeps 3 (the least
#      recently used forgotten, counted in --status), root's is untouched;
#   5. `ftio history` through ftiod with nobody's MUNGE credential lists only
#      nobody's applications, cannot show or forget root's ("no such
#      application", exit 1), `forget all` forgets only nobody's; without a
#      credential nothing is shown ("not allowed"); root sees both users'.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
command -v setpriv >/dev/null || fail "setpriv not found (util-linux)"
start_munged
export FTIO_AUTH=munge
start_daemon d --auth munge --munge-socket "$T/munge.sock" --socket-mode 0666 --history "$T/h.sqlite" \
  --history-apps 3 --settle-end 0.5
wait_grep "$T/d.err" "memory of runs: $T/h.sqlite" 10 || fail "ftiod did not open its memory of runs"
H="$B/bin/ftio history --endpoint ipc://$T/d.st"

# job WHO NAME PERIOD APP: a forged periodic job of 5 phases, its app identity APP
job() {
  _who=$1; shift
  _run="$WIRE periodic --endpoint ipc://$T/d.in --job $1 --ranks 2 --period $2 --phases 5 --bytes 4194304 --app $3"
  if [ "$_who" = nobody ]; then as_user $_run || fail "nobody's job $1"; else $_run || fail "root's job $1"; fi
}
recorded() { wait_for 20 status_is d "s['history']['recorded'] >= $1" || fail "ftiod did not record $1 runs: $(cat "$T/d.status.json")"; }

# ---- 1-3. not read, not poisoned -----------------------------------------------------------
job root r1 2 /opt/lmp:aaaaaaaaaaaaaaaa
recorded 1
job nobody n1 5 /opt/lmp:aaaaaaaaaaaaaaaa::0
recorded 2
job root r2 2 /opt/lmp:aaaaaaaaaaaaaaaa
recorded 3
"$PY" - "$T/d.log" <<'PYEOF' || fail "the memory of runs let one user's runs reach another's jobs (above)"
import json, sys
msgs = [(d["topic"], d["message"]) for d in map(json.loads, open(sys.argv[1]))]
def first(topic):
    m = [x for t, x in msgs if t == topic]
    return m[0] if m else {}
bad = 0
n1 = [x for t, x in msgs if t.startswith("ftio.u65534:n1.") and not t.endswith(".end")]
if not n1 or any(m.get("source") != "observed" or m.get("history") is not None for m in n1):
    print("FAIL: nobody's job (claiming uid 0) got root's prior:", [(m.get("source"), m.get("history")) for m in n1]); bad += 1
else:
    print("ok: nobody's job, claiming uid 0, got no prior (%d messages, all observed)" % len(n1))
# (a job of past data is analysed whole at once: its own answer may come
# before the prior; the .end says what the memory knew)
end = [x for t, x in msgs if t == "ftio.r2.end"]
h = end[-1]["summary"]["write"].get("history") or {} if end else {}
if h.get("runs") != 1 or abs(h.get("period", 0) - 2) > 0.2:
    print("FAIL: root's second run: %s (expected the prior of root's one run, period 2)" % h); bad += 1
else:
    print("ok: root's second run: prior of 1 run, period %.3f (nobody's 5 s run not in it)" % h["period"])
sys.exit(1 if bad else 0)
PYEOF

# ---- 4. nobody cannot fill root's memory ----------------------------------------------------------
for i in 1 2 3 4 5; do
  job nobody "f$i" 3 "/opt/fill$i:bbbbbbbbbbbbbbbb"
done
recorded 8
status_is d 's["history"]["forgotten"] >= 3' || fail "nobody's bound: $(cat "$T/d.status.json")"
$H list --user nobody >"$T/nobody.list" || fail "list --user nobody"
[ "$(grep -c ' 65534 ' "$T/nobody.list")" = 3 ] || fail "nobody keeps $(grep -c ' 65534 ' "$T/nobody.list") applications, not 3: $(cat "$T/nobody.list")"
$H list --user root >"$T/root.list" || fail "list --user root"
grep -q ' lmp ' "$T/root.list" || fail "root's application went: $(cat "$T/root.list")"
ok "nobody's applications bounded to 3 (forgotten counted), root's kept"

# ---- 5. ftio history with nobody's credential ---------------------------------------------------------
root_id=$(awk '$2 == 0 && $6 == "lmp" { print $1 }' "$T/root.list")
[ -n "$root_id" ] || fail "no id of root's application: $(cat "$T/root.list")"
as_user $H list >"$T/as_nobody.list" 2>"$T/as_nobody.err" || fail "nobody's list: $(cat "$T/as_nobody.err")"
cat "$T/as_nobody.list"
awk 'NR > 1 && $2 != 65534 { bad = 1 } END { exit bad }' "$T/as_nobody.list" || fail "nobody sees another uid's applications"
[ "$(grep -c ' 65534 ' "$T/as_nobody.list")" = 3 ] || fail "nobody does not see its own 3"
as_user $H show "$root_id" >/dev/null 2>"$T/show.err" && fail "nobody could show root's application"
grep -q "no such application" "$T/show.err" || fail "nobody's show of root's: $(cat "$T/show.err")"
as_user $H forget "$root_id" >/dev/null 2>"$T/forget.err" && fail "nobody could forget root's application"
as_user $H forget all >"$T/forget_all" 2>&1 || fail "nobody's forget all: $(cat "$T/forget_all")"
grep -q "forgot 3 applications" "$T/forget_all" || fail "nobody's forget all: $(cat "$T/forget_all")"
$H list >"$T/after" || fail "root's list"
grep -q ' lmp ' "$T/after" && ! grep -q ' 65534 ' "$T/after" || fail "after nobody's forget all: $(cat "$T/after")"
FTIO_AUTH=none $H list >/dev/null 2>"$T/anon.err" && fail "a list without a credential was answered"
grep -q "not allowed" "$T/anon.err" || fail "anonymous list: $(cat "$T/anon.err")"
ok "ftio history: nobody sees and forgets only its own; no credential, nothing; root sees all"
finish
