#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# keygen.sh -- README's key commands as a site admin runs them (root): ftiod's
# pair made with `ftio keygen --owner USER` belongs to the account the daemon
# runs as (the unit's `ftio`; here `nobody`), mode 0600, and that account's
# ftiod reads it; a client's .pub copied into the clients directory lets that
# client ask --status.  A bad --owner is one line and exit 2, a keygen that
# cannot give its files away (not root) exits 1 and leaves no file.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftio" "$B/bin/ftiod"
FTIO=$B/bin/ftio
[ "$(id -u)" = 0 ] || fail "this test gives files away: it runs as root"
chmod 711 "$T"
E=$T/etc/ftio
mkdir -p "$E/clients" "$T/run"
chmod 755 "$T/etc" "$E" "$E/clients"; chmod 777 "$T/run"

# as README: ftio keygen --owner ftio /etc/ftio/server; ftio keygen sched; cp sched.pub /etc/ftio/clients/
"$FTIO" keygen --owner nobody "$E/server" >"$T/kg.out" 2>"$T/kg.err" || fail "keygen --owner: $(cat "$T/kg.err")"
grep -q "owned by nobody" "$T/kg.out" || bad "keygen --owner said: $(cat "$T/kg.out")"
[ "$(stat -c '%U %a' "$E/server.key")" = "nobody 600" ] || bad "server.key: $(stat -c '%U %a' "$E/server.key")"
[ "$(stat -c '%U %a' "$E/server.pub")" = "nobody 644" ] || bad "server.pub: $(stat -c '%U %a' "$E/server.pub")"
(cd "$T" && "$FTIO" keygen sched >/dev/null) || fail "keygen sched"
cp "$T/sched.pub" "$E/clients/" || fail "cp sched.pub $E/clients/"

# the daemon's account reads its key
$AS_USER "$B/bin/ftiod" --config none --auth none --listen "ipc://$T/run/d.in" --pub "ipc://$T/run/d.pub" \
  --status-endpoint "ipc://$T/run/d.st" --curve-secret "$E/server.key" --curve-clients "$E/clients" \
  2>"$T/d.err" &
PIDS="$PIDS $!"
wait_grep "$T/d.err" "$FTIOD_READY" 10 || fail "ftiod as nobody with its key: $(cat "$T/d.err")"
grep -q "CURVE on --pub" "$T/d.err" || bad "ftiod: no CURVE: $(cat "$T/d.err")"
grep -q "readable by others" "$T/d.err" && bad "ftiod warns about the key's mode"
"$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/run/d.st" --server-key "$E/server.pub" \
  --key "$T/sched.key" >"$T/st.json" 2>"$T/st.err" || bad "--status with sched.key: $(cat "$T/st.err")"
ok "ftio keygen --owner: ftiod as nobody reads its key, the client in clients/ asks --status"

# a key owned by root, mode 0600 (keygen without --owner): the daemon's account cannot read it
"$FTIO" keygen "$E/rootkey" >/dev/null || fail "keygen rootkey"
as_user "$B/bin/ftiod" --config none --auth none --listen "ipc://$T/run/e.in" --pub "ipc://$T/run/e.pub" \
  --status-endpoint "ipc://$T/run/e.st" --curve-secret "$E/rootkey.key" >"$T/e.out" 2>&1 &&
  bad "ftiod as nobody read root's 0600 key"
grep -q "rootkey.key" "$T/e.out" || bad "root's key: $(cat "$T/e.out")"

# bad --owner: usage error, nothing written
rc=0; "$FTIO" keygen --owner no-such-user-x "$T/x" >"$T/out" 2>"$T/err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "no user 'no-such-user-x'" "$T/err" ||
  bad "--owner no-such-user-x: rc=$rc $(cat "$T/err")"
rc=0; "$FTIO" keygen --owner nobody:no-such-group-x "$T/x" >"$T/out" 2>"$T/err" || rc=$?
[ $rc = 2 ] && grep -q "no group 'no-such-group-x'" "$T/err" || bad "--owner nobody:no-such-group-x: rc=$rc $(cat "$T/err")"
ls "$T"/x.* >/dev/null 2>&1 && bad "files written despite a bad --owner"
# not root: cannot give the files away, leaves none
rc=0; as_user "$FTIO" keygen --owner root "$T/run/y" >"$T/out" 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "only root may" "$T/err" || bad "non-root --owner root: rc=$rc $(cat "$T/err")"
ls "$T"/run/y.* >/dev/null 2>&1 && bad "a failed keygen --owner left files: $(ls "$T"/run/y.*)"
ok "bad --owner: one line, exit 2; not root: exit 1, no file left"
finish
