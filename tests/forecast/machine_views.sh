#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# machine_views.sh -- who sees what of the machine forecast (issue 26 item
# 2, docs/SECURITY.md): ftiod with MUNGE and CURVE; root runs job "big",
# the unprivileged user nobody runs job "mine" (its id becomes u65534:mine),
# both on one file system and with phases that overlap.
#   - the admin (an allowed CURVE key) subscribes to ftio.machine and gets
#     every job and the collisions between them (`ftio sub --machine`);
#   - a key that is not allowed gets nothing on PUB;
#   - nobody asks the control socket (`ftio sub --machine --last`, proven by
#     MUNGE): the totals (every job's bytes in the aggregate) and their own
#     job only: root's job is not named, in "jobs" nor in a collision;
#   - an asker proven by nothing is refused.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
start_munged
mkdir "$T/clients"
( cd "$T" && "$B/bin/ftio" keygen server >/dev/null && "$B/bin/ftio" keygen admin >/dev/null &&
  "$B/bin/ftio" keygen stranger >/dev/null ) || fail "keygen"
cp "$T/admin.pub" "$T/clients/"
chmod 644 "$T/stranger.key" "$T/server.pub"
SRV="$T/server.pub"
start_daemon d --auth munge --munge-socket "$T/munge.sock" --socket-mode 0666 \
  --curve-secret "$T/server.key" --curve-clients "$T/clients" --machine-horizon 60
export FTIO_AUTH=munge
"$WIRE" phases --endpoint "ipc://$T/d.in" --live --job big --ranks 2 --period 3 --phases 8 \
  --first 0.5 >/dev/null 2>"$T/big.err" & PIDS="$PIDS $!"; BIG=$!
$AS_USER env FTIO_AUTH=munge FTIO_MUNGE_SOCKET="$T/munge.sock" "$WIRE" phases \
  --endpoint "ipc://$T/d.in" --live --job mine --ranks 2 --period 3 --phases 8 --first 0.6 \
  >/dev/null 2>"$T/mine.err" & PIDS="$PIDS $!"; MINE=$!

# The admin's subscription: a message naming both jobs.
timeout 40 "$B/bin/ftio" sub --machine --json --server-key "$SRV" --key "$T/admin.key" \
  --endpoint "ipc://$T/d.pub" --duration 25 >"$T/admin.jsonl" 2>"$T/admin.err" &
ADM=$!
# A stranger's key: nothing.
$AS_USER "$B/bin/ftio" sub --machine --json --server-key "$SRV" --key "$T/stranger.key" \
  --endpoint "ipc://$T/d.pub" --timeout 8 >"$T/stranger.jsonl" 2>"$T/stranger.err"
[ $? = 1 ] && [ ! -s "$T/stranger.jsonl" ] || fail "a key not allowed got machine messages"
ok "a CURVE key not allowed gets nothing"

# nobody, by MUNGE on the control socket, once both jobs are listed for the admin.
views() {
  "$B/bin/ftio" sub --machine --last --json --status-endpoint "ipc://$T/d.st" --server-key "$SRV" \
    --key "$T/admin.key" >"$T/admin_last.json" 2>>"$T/admin_last.err" &&
  "$PY" -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if len(m['jobs'])>=2 and m['collisions'] else 1)" \
    "$T/admin_last.json"
}
wait_for 25 views || fail "the admin's view never listed both jobs and a collision: $(cat "$T/admin_last.json" "$T/admin_last.err")"
$AS_USER env FTIO_MUNGE_SOCKET="$T/munge.sock" "$B/bin/ftio" sub --machine --last --json \
  --status-endpoint "ipc://$T/d.st" --server-key "$SRV" >"$T/user.json" 2>"$T/user.err" \
  || fail "nobody's view: $(cat "$T/user.err")"
"$PY" - "$T/admin_last.json" "$T/user.json" <<'PYEOF' || fail "views"
import json, sys
admin, user = (json.load(open(p)) for p in sys.argv[1:3])
assert admin["view"] == "admin" and user["view"] == "user", (admin["view"], user["view"])
ajobs = {j["job"] for j in admin["jobs"]}
assert {"big", "u65534:mine"} <= ajobs, ajobs
ujobs = {j["job"] for j in user["jobs"]}
assert ujobs == {"u65534:mine"}, ujobs
for c in user["collisions"]:
    assert "big" not in c["jobs"] and "u65534:mine" in c["jobs"], c
assert any(None in c["jobs"] for c in user["collisions"]) or not user["collisions"], user["collisions"]
# the totals are everyone's: both jobs' bytes are in the aggregate (each
# moved 3 MiB a phase, and each has had a phase by the time both are listed)
assert sum(sum(f["observed"]["write"]) for f in user["fs"]) > 2 * 3 * 2**20, user["fs"]
print("ok: admin sees %s; nobody sees %s and %d collisions without the other job's name"
      % (sorted(ajobs), sorted(ujobs), len(user["collisions"])))
PYEOF
# Proven by nothing: refused.
FTIO_AUTH=none "$B/bin/ftio" sub --machine --last --status-endpoint "ipc://$T/d.st" \
  --server-key "$SRV" >"$T/anon.out" 2>"$T/anon.err" && fail "an anonymous asker got the machine view"
grep -q "not allowed" "$T/anon.err" || fail "anonymous refusal: $(cat "$T/anon.err")"
ok "an asker proven by nothing is refused"
wait "$ADM" || true
grep -q '"u65534:mine"' "$T/admin.jsonl" && grep -q '"big"' "$T/admin.jsonl" \
  || fail "the admin's subscription did not name both jobs"
ok "the admin's subscription names every job"
wait "$BIG" "$MINE" || fail "a job failed: $(cat "$T/big.err" "$T/mine.err")"
finish
