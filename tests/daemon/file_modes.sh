#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# file_modes.sh -- ftiod's umask is its own business (issue 21 item 4): it
# keeps the caller's (the unit's UMask=0027) and gives what it creates an
# explicit mode:
#  - ipc:// sockets: --socket-mode, else 0777 & ~umask (0750 under 0027,
#    0755 under 022), never looser; the --listen path's PATH.zmtp (ftiod's
#    own ZMTP listener, PROTOCOL.md §1.6) like the path itself;
#  - --log: 0640 (less under a stricter umask), also when the caller's umask
#    is 0000, and again after the shipped logrotate's move + SIGHUP
#    (packaging/ftiod.logrotate: nocreate, ftiod creates the new file);
#  - an existing --log writable by others is taken back.
# The old code set the umask to 0000 for good: sockets 0777 and a reopened
# log 0666 that any local user could append forged predictions to.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE"

mode() { stat -c %a "$1"; }
# rotate NAME: what logrotate with the shipped configuration does: move the
# file, SIGHUP (systemctl reload), ftiod creates the new file.
rotate() {
  mv "$T/$1.log" "$T/$1.log.1"
  kill -HUP "$DPID"
  wait_for 10 grep -q "reopened --log" "$T/$1.err" || fail "$1: no reopen after SIGHUP"
  wait_file "$T/$1.log" 10 || fail "$1: the new --log was not created"
}
gen() {   # gen NAME JOB: a short job, its end in the log
  "$WIRE" periodic --endpoint "ipc://$T/$1.in" --job "$2" --ranks 1 --period 0.5 --duration 0.1 \
    --phases 3 || fail "generator"
  "$B/bin/ftio" end --endpoint "ipc://$T/$1.st" "$2" >/dev/null || fail "end $2"
  wait_topic "$T/$1.log" "ftio.$2.end"
}

# The unit's umask.
umask 027
start_daemon u
[ "$(mode "$T/u.in")" = 750 ] || fail "umask 027: --listen socket $(mode "$T/u.in"), want 750"
[ "$(mode "$T/u.in.zmtp")" = 750 ] || fail "umask 027: --listen's .zmtp socket $(mode "$T/u.in.zmtp"), want 750"
[ "$(mode "$T/u.pub")" = 750 ] || fail "umask 027: --pub socket $(mode "$T/u.pub"), want 750"
[ "$(mode "$T/u.st")" = 750 ] || fail "umask 027: status socket $(mode "$T/u.st"), want 750"
[ "$(mode "$T/u.log")" = 640 ] || fail "umask 027: --log $(mode "$T/u.log"), want 640"
gen u one
rotate u
gen u two
echo "umask 027: sockets $(mode "$T/u.in") $(mode "$T/u.pub") $(mode "$T/u.st"), log $(mode "$T/u.log.1"), rotated log $(mode "$T/u.log")"
[ "$(mode "$T/u.log")" = 640 ] || fail "umask 027: rotated --log $(mode "$T/u.log"), want 640"
grep -q '"topic":"ftio.two.end"' "$T/u.log" || fail "the new --log was not written"
# A socket bound after start-up (none) and the journal dir keep the umask too:
# the process' umask is unchanged (/proc: Umask).
[ "$(sed -n 's/^Umask:[[:space:]]*//p' /proc/$DPID/status)" = 0027 ] ||
  fail "ftiod changed its umask to $(sed -n 's/^Umask:[[:space:]]*//p' /proc/$DPID/status)"

# A careless caller: umask 0000.  The log is still 0640, before and after a
# rotation; --socket-mode is applied as given.
umask 000
start_daemon z --socket-mode 0660
[ "$(mode "$T/z.in")" = 660 ] || fail "--socket-mode 0660: $(mode "$T/z.in")"
[ "$(mode "$T/z.in.zmtp")" = 660 ] || fail "--socket-mode 0660: .zmtp $(mode "$T/z.in.zmtp")"
[ "$(mode "$T/z.st")" = 660 ] || fail "--socket-mode 0660: $(mode "$T/z.st")"
[ "$(mode "$T/z.log")" = 640 ] || fail "umask 000: --log $(mode "$T/z.log"), want 640"
rotate z
gen z three
echo "umask 000, --socket-mode 0660: sockets $(mode "$T/z.in") $(mode "$T/z.st"), rotated log $(mode "$T/z.log")"
[ "$(mode "$T/z.log")" = 640 ] || fail "umask 000: rotated --log $(mode "$T/z.log"), want 640"

# An existing --log writable by others (left by an older ftiod) is taken back.
umask 022
: >"$T/w.log"; chmod 666 "$T/w.log"
start_daemon w
[ "$(mode "$T/w.log")" = 644 ] || fail "a world-writable --log stays $(mode "$T/w.log")"
grep -q "was writable by others" "$T/w.err" || fail "no warning about the writable --log"
[ "$(mode "$T/w.in")" = 755 ] || fail "umask 022: --listen socket $(mode "$T/w.in"), want 755"
echo ok
