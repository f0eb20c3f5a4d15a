#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# credential_capture.sh -- a captured batch is useless to another uid (issue
# 21 item 2).  A second user (nobody) binds the shim's endpoint while ftiod
# is away (an ipc:// socket in a directory anyone can write, like /tmp) and
# captures a batch of root's traced program; then, with a real munged:
#   - by default the credential is restricted to ftiod's uid: nobody's
#     unmunge is refused, so nobody has no key, and batches forged with the
#     captured credential are refused by ftiod;
#   - with FTIO_AUTH_UID=any (no restriction, the old default) nobody gets
#     the key, but ftiod refuses a credential someone decoded before it did
#     ("replayed") -- so the forged batches, correctly signed, are refused
#     too;
#   - the victim's job keeps its own bytes; the live shim still delivers.
# On the previous code both forgeries were merged into the victim's job.
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$WIRE" "$B/bin/posix_periodic" "$SHIM"
command -v setpriv >/dev/null || fail "setpriv not found (util-linux)"
command -v unmunge >/dev/null || fail "unmunge not found (Debian package munge)"
"$PY" -c "import zmq" 2>/dev/null || fail "python3-zmq missing"
start_munged
export FTIO_AUTH=munge
no_leak_checks
mkdir -p "$T/w" "$T/data" "$T/forged"
chmod 1777 "$T/w"            # like /tmp: anyone may bind a socket here
chmod 777 "$T/forged"

# The daemon, the victim's job (root; kept open: no final), and a live
# traced program of root's.
start_daemon d --auth munge --munge-socket "$T/munge.sock" --socket-mode 0666 --job-timeout 600
st() { "$B/bin/ftiod" --status --json --status-endpoint "ipc://$T/d.st" >"$T/st.json" ||
       fail "status"; }
field() { "$PY" -c "import json,sys; d=json.load(open('$T/st.json')); print(eval(sys.argv[1]))" "$1"; }
"$WIRE" periodic --endpoint "ipc://$T/d.in" --job victim --ranks 2 --period 2 --phases 4 \
  --bytes 1048576 --no-final || fail "the victim's job"
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=live traced "$B/bin/posix_periodic" -n 2 -p 0.05 \
  -d "$T/data" >/dev/null 2>"$T/live.err" || fail "the live program failed"
wait_grep "$T/d.err" "job live: ended \((final|idle)\)" || fail "the live shim's job did not arrive: $(cat "$T/live.err")"
ls "$T/spool"/*.msgpack >/dev/null 2>&1 && fail "the live shim spooled under MUNGE"
ok "the live shim delivers under MUNGE"
wait_for 10 status_is d "[j for j in s['jobs'] if j['job'] == 'victim' and j['batches'] >= 8]" ||
  fail "the victim's job did not arrive"
st
vbytes=$(field "[j['bytes'] for j in d['jobs'] if j['job'] == 'victim'][0]")
ok "victim's job: $vbytes bytes, uid $(field "[j['uid'] for j in d['jobs'] if j['job']=='victim'][0]")"

# What nobody forges: 3 batches of 10 GB for the victim's job.
as_user "$WIRE" periodic --spool "$T/forged" --job victim --ranks 3 --phases 1 --no-final \
  --bytes 10737418240 >/dev/null || fail "generating the forged batches"

# nobody's capture: a ROUTER on the shim's endpoint, first message to files.
cat >"$T/capture.py" <<'PYEOF'
import sys, zmq
c = zmq.Context(); s = c.socket(zmq.ROUTER); s.bind(sys.argv[1])
open(sys.argv[2] + ".ready", "w").close()
if s.poll(30000):
    f = s.recv_multipart()
    open(sys.argv[2] + ".batch", "wb").write(f[-2])
    open(sys.argv[2] + ".auth", "wb").write(f[-1])
s.close(0); c.term()
PYEOF
# nobody's forgery: the forged batches with the captured credential, signed
# with the key when nobody has it (a random MAC otherwise); prints how many
# ftiod acknowledged as merged.
cat >"$T/forge.py" <<'PYEOF'
import glob, hashlib, os, sys, zmq
ep, auth, keyfile, forged = sys.argv[1:5]
cred = open(auth, "rb").read()[36:]
key = open(keyfile, "rb").read()[-32:] if os.path.getsize(keyfile) >= 32 else None
c = zmq.Context(); s = c.socket(zmq.DEALER); s.connect(ep)
for f in sorted(glob.glob(forged + "/*.msgpack")):
    batch = open(f, "rb").read()
    mac = hashlib.blake2b(batch, digest_size=32, key=key).digest() if key else os.urandom(32)
    s.send_multipart([b"", batch, b"FTA1" + mac + cred])
merged = 0
while s.poll(3000):
    m = s.recv_multipart()
    if len(m[-1]) == 13 and m[-1][:4] == b"FTK1" and m[-1][12] == 0:
        merged += 1
print(merged)
s.close(0); c.term()
PYEOF
chmod 644 "$T/capture.py" "$T/forge.py"

# attack NAME [shim environment...]: capture a batch of root's traced
# program (as job "victim"), try to unmunge it as nobody (key in
# $T/w/NAME.key, empty when refused), forge into the victim's job; leaves
# the number merged in $merged and unmunge's verdict in $T/w/NAME.unmunge.
attack() {
  _n=$1; shift
  $AS_USER "$PY" "$T/capture.py" "ipc://$T/w/cap.in" "$T/w/$_n" &
  _cp=$!
  PIDS="$PIDS $_cp"
  wait_file "$T/w/$_n.ready" || fail "$_n: the capturing ROUTER did not start"
  env "$@" FTIO_ENDPOINT="ipc://$T/w/cap.in" FTIO_JOB=victim FTIO_SPOOL_DIR="$T/vspool" \
    LD_PRELOAD="$PRELOAD" "$B/bin/posix_periodic" -n 1 -p 0.05 -d "$T/data" >/dev/null \
    2>"$T/$_n-victim.err" || fail "$_n: the victim's program failed"
  wait $_cp
  [ -s "$T/w/$_n.auth" ] || fail "$_n: nothing captured"
  : >"$T/w/$_n.key"; chmod 666 "$T/w/$_n.key"
  tail -c +37 "$T/w/$_n.auth" >"$T/w/$_n.cred"
  as_user unmunge -S "$T/munge.sock" -i "$T/w/$_n.cred" -m /dev/null -o "$T/w/$_n.key" \
    >"$T/w/$_n.unmunge" 2>&1 || true
  merged=$(as_user "$PY" "$T/forge.py" "ipc://$T/d.in" "$T/w/$_n.auth" "$T/w/$_n.key" "$T/forged") ||
    fail "$_n: forging failed"
}

# 1. The default: the credential is restricted to ftiod's uid (root: no
#    FTIO_AUTH_UID, the endpoint is not a socket of a private directory, no
#    user ftio).
attack default FTIO_DEBUG=1
grep -q "credentials restricted to root" "$T/default-victim.err" ||
  bad "default: the shim did not restrict its credential to root: $(grep restrict "$T/default-victim.err")"
grep -qi "unauthorized" "$T/w/default.unmunge" && ok "default: nobody cannot unmunge the captured credential" ||
  bad "default: nobody decoded the captured credential: $(head -2 "$T/w/default.unmunge")"
[ "$merged" = 0 ] && ok "default: 0 of 3 forged batches merged" || bad "default: $merged forged batches merged"

# 2. FTIO_AUTH_UID=any: nobody decodes it first and signs with the key;
#    ftiod refuses a credential that was decoded before it saw it.
attack any FTIO_AUTH_UID=any
[ "$(wc -c <"$T/w/any.key")" -ge 32 ] && ok "any: nobody got the session key (as designed)" ||
  bad "any: nobody could not decode an unrestricted credential: $(head -2 "$T/w/any.unmunge")"
[ "$merged" = 0 ] && ok "any: 0 of 3 correctly signed forged batches merged" ||
  bad "any: $merged forged batches merged"
grep -q "replayed or expired before ftiod saw it" "$T/d.err" && ok "any: ftiod says why" ||
  bad "any: no refusal in ftiod's log"

# The victim's job is untouched; the forgeries are counted.
wait_for 10 status_is d "s['dropped']['unauthenticated'] >= 6"
st
[ "$(field "d['dropped']['unauthenticated']")" -ge 6 ] && ok "forged batches counted unauthenticated" ||
  bad "unauthenticated: $(field "d['dropped']")"
[ "$(field "[j['bytes'] for j in d['jobs'] if j['job'] == 'victim'][0]")" = "$vbytes" ] &&
  ok "victim's bytes unchanged ($vbytes)" ||
  bad "victim's bytes now $(field "[j['bytes'] for j in d['jobs'] if j['job'] == 'victim'][0]") (were $vbytes)"
finish
