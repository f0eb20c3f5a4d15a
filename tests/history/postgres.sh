#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# postgres.sh -- several daemons share one memory of runs in PostgreSQL
# (issue 25 item 5; predictor/history/db_pg.c), against a real server this
# test starts itself: Debian's PostgreSQL 15, initdb and pg_ctl in a
# temporary directory, on a Unix socket only, as the uid nobody (PostgreSQL
# refuses to run as root).
#   1. the store's Check suite (test_store: schema, levels, bounds, list /
#      show / forget within a uid) on PostgreSQL;
#   2. two ftiods on the one database: a job's run on d1 gives the next run
#      of its application on d2 its prior, and the other way round (each
#      sees the other's runs: 2 runs behind the third);
#   3. the server goes away while d1 runs: d1 keeps predicting and says once
#      that runs are not recorded; the server back, the next run is written
#      (libpq's connection reset) and d1 says so.
# When PostgreSQL cannot start the test fails and says why; it never skips.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/tests/test_store" "$WIRE"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] || fail "PostgreSQL's initdb and pg_ctl not found (Debian package postgresql, mk/deps.sh)"
command -v setpriv >/dev/null || fail "setpriv not found (util-linux)"

# ---- the server ----------------------------------------------------------------------------
chmod 711 "$T"
mkdir -p "$T/pg"
chown nobody "$T/pg"
chmod 700 "$T/pg"
pg() { (cd "$T/pg" && $AS_USER "$PGBIN/$@"); }
pg initdb -D "$T/pg/data" -U ftio --auth=trust -E UTF8 --no-instructions >"$T/initdb.log" 2>&1 \
  || fail "initdb: $(tail -5 "$T/initdb.log")"
chmod 711 "$T/pg"       # its socket, reachable by root's ftiod
pg pg_ctl -D "$T/pg/data" -l "$T/pg/server.log" -w -t 30 \
  -o "-k $T/pg -c listen_addresses= -c fsync=off -c max_connections=20" start >"$T/pgctl.log" 2>&1 \
  || fail "pg_ctl start: $(cat "$T/pgctl.log") $(tail -5 "$T/pg/server.log")"
PIDS="$PIDS $(head -1 "$T/pg/data/postmaster.pid")"
STORE="postgresql:///postgres?host=$T/pg&user=ftio"
echo "PostgreSQL $($PGBIN/postgres --version | awk '{ print $3 }') on $T/pg"

# ---- 1. the store's suite on PostgreSQL -----------------------------------------------------------
FTIO_TEST_STORE="$STORE" "$B/tests/test_store" >"$T/suite.out" 2>&1 || { cat "$T/suite.out"; fail "test_store on PostgreSQL"; }
tail -1 "$T/suite.out"
ok "the store's Check suite on PostgreSQL"

# ---- 2. two daemons, one memory ------------------------------------------------------------------------
start_daemon d1 --history "$STORE" --settle-end 0.5
start_daemon d2 --history "$STORE" --settle-end 0.5
for d in d1 d2; do
  wait_grep "$T/$d.err" "memory of runs: postgresql:" 10 || fail "$d did not connect: $(cat "$T/$d.err")"
done
app=/opt/shared-app:5555555555555555
"$WIRE" periodic --endpoint "ipc://$T/d1.in" --job one --ranks 2 --period 2 --phases 5 --app "$app" || fail "job one"
wait_for 20 status_is d1 's["history"]["recorded"] == 1' || fail "d1 did not record job one"
"$WIRE" periodic --endpoint "ipc://$T/d2.in" --job two --ranks 2 --period 2 --phases 5 --app "$app" || fail "job two"
wait_for 20 status_is d2 's["history"]["recorded"] == 1' || fail "d2 did not record job two"
"$WIRE" periodic --endpoint "ipc://$T/d1.in" --job three --ranks 2 --period 2 --phases 5 --app "$app" || fail "job three"
wait_topic "$T/d1.log" "ftio.three.end" 20
wait_topic "$T/d2.log" "ftio.two.end" 20
# (a job of past data is analysed whole at once: its own answer may come
# before the prior; the .end says what the memory knew)
h2=$(jsonl "$T/d2.log" "last('ftio.two.end')['summary']['write'].get('history')")
h3=$(jsonl "$T/d1.log" "last('ftio.three.end')['summary']['write'].get('history')")
echo "d2's job two: $h2"
echo "d1's job three: $h3"
case $h2 in *'"runs": 1'*'"level": "args"'*) ;; *) fail "d2 did not see d1's run" ;; esac
case $h3 in *'"runs": 2'*) ;; *) fail "d1 did not see d2's run (2 runs expected)" ;; esac
ok "two daemons on one PostgreSQL see each other's runs"

# ---- 3. the server goes away and comes back --------------------------------------------------------------
pg pg_ctl -D "$T/pg/data" -m fast -w stop >/dev/null 2>&1 || fail "pg_ctl stop"
"$WIRE" periodic --endpoint "ipc://$T/d1.in" --job four --ranks 1 --period 1 --phases 4 --app "$app" || fail "job four"
wait_topic "$T/d1.log" "ftio.four.end" 20
wait_grep "$T/d1.err" "memory of runs postgresql:.*runs are not recorded" 10 || fail "d1 did not say the server is gone"
[ "$(jsonl "$T/d1.log" "len([m for t, m in msgs if t == 'ftio.four.write'])")" -ge 1 ] || fail "no prediction without the server"
pg pg_ctl -D "$T/pg/data" -l "$T/pg/server.log" -w -t 30 \
  -o "-k $T/pg -c listen_addresses= -c fsync=off -c max_connections=20" start >"$T/pgctl.log" 2>&1 \
  || fail "pg_ctl start again: $(cat "$T/pgctl.log")"
PIDS="$PIDS $(head -1 "$T/pg/data/postmaster.pid")"
"$WIRE" periodic --endpoint "ipc://$T/d1.in" --job five --ranks 1 --period 1 --phases 4 --app "$app" || fail "job five"
wait_grep "$T/d1.err" "memory of runs postgresql:.* works again" 20 || fail "d1 did not reconnect: $(grep 'memory of runs' "$T/d1.err")"
[ "$(grep -c 'runs are not recorded' "$T/d1.err")" = 1 ] || fail "said more than once: $(grep 'memory of runs' "$T/d1.err")"
if grep -q "ftio:[^@]*@" "$T/d1.err"; then fail "a password-like part of the URI in the log"; fi
ok "the server gone: predictions go on, said once; back: runs are recorded again"
kill $(jobs -p) 2>/dev/null
pg pg_ctl -D "$T/pg/data" -m fast -w stop >/dev/null 2>&1
finish
