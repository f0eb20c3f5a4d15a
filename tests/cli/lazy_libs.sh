#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lazy_libs.sh -- `ftio` starts without the libraries only its networked and
# history commands use (predictor/cli/lazy_libs.h): ZeroMQ, MUNGE, libsodium,
# SQLite and libpq are not linked (no NEEDED entry) and an offline analysis
# loads none of them (the loader's own list), while the commands that need
# them load them on first call: `ftio keygen` (ZeroMQ's CURVE, libsodium),
# `ftio scan --history` and `ftio history list` (SQLite).
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftio"
FTIO=$B/bin/ftio
LAZY='libzmq|libmunge|libsodium|libsqlite3|libpq'
ROOT_DATA=$ROOT/tests/data

needed=$(readelf -d "$FTIO" | grep NEEDED)
echo "$needed" | grep -Eq "$LAZY" && bad "ftio links them: $(echo "$needed" | grep -E "$LAZY")"
LD_DEBUG=files "$FTIO" --json "$ROOT_DATA/sample.csv" >"$T/out" 2>"$T/ld" || fail "ftio sample.csv: $(tail -3 "$T/ld")"
grep -E "file=($LAZY)" "$T/ld" | head -3 >"$T/loaded"
[ -s "$T/loaded" ] && bad "an offline analysis loaded: $(cat "$T/loaded")"
grep -q '"period"' "$T/out" || bad "no answer: $(cat "$T/out")"
ok "ftio links $(echo "$needed" | wc -l) libraries, none of $LAZY; ftio FILE loads none of them"

(cd "$T" && LD_DEBUG=files "$FTIO" keygen k >"$T/kg.out" 2>"$T/kg.ld") || fail "keygen: $(grep -v '^ *[0-9]*:' "$T/kg.ld")"
[ -s "$T/k.key" ] && [ -s "$T/k.pub" ] || bad "keygen made no key pair: $(cat "$T/kg.out")"
grep -q "file=libzmq" "$T/kg.ld" || bad "keygen did not load libzmq on demand"
"$FTIO" scan --quiet --history "$T/h.sqlite" "$ROOT_DATA/sample.csv" >/dev/null 2>"$T/scan.err" ||
  fail "scan --history: $(cat "$T/scan.err")"
"$FTIO" history --history "$T/h.sqlite" list --json >"$T/list" 2>"$T/list.err" ||
  fail "history list: $(cat "$T/list.err")"
ok "keygen (ZeroMQ, libsodium) and the SQLite history store load their libraries when called"
finish
