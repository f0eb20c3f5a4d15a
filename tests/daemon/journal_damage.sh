#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# journal_damage.sh -- a damaged journal costs the damaged entry only (issue
# 21 item 8; state.c, PROTOCOL.md §4):
#  - one flipped byte in a batch in the middle of a job's journal: the
#    restarted ftiod skips that entry with a warning saying what was lost,
#    keeps every later entry (resynchronisation on the magic + CRC framing)
#    and restores the job with everything but that batch -- the truth is the
#    same journal undamaged, restored by a second daemon, minus the lost
#    batch as `ftio-wire dump` reads it; the file is not cut;
#  - a torn tail (half an entry) is still cut off;
#  - a FIFO, and a symbolic link, named *.journal in the state directory:
#    ftiod starts at once and says why it skipped them (the old code hung at
#    start on the FIFO).
. "$(dirname "$0")/../lib.sh"
need "$B/bin/ftiod" "$B/bin/ftio" "$WIRE"
MiB=1048576

start_daemon a --state-dir "$T/state"
"$WIRE" periodic --endpoint "ipc://$T/a.in" --job jr --ranks 2 --period 1 --phases 12 \
  --bytes $MiB --no-final || fail "generator"
# Sent is not merged: stop the daemon once it has journaled all 24 batches.
wait_for 10 status_is a "any(j['job'] == 'jr' and j['batches'] >= 24 for j in s['jobs'])" ||
  fail "ftiod did not merge the 24 batches"
kill -TERM "$DPID"
wait_gone "$DPID" 10 || fail "ftiod did not stop"
cp -a "$T/state" "$T/clean"
J=$(ls "$T/state"/*.journal) || fail "no journal"
size0=$(stat -c %s "$J")

# Flip a byte in the middle of the middle batch; its batch to $T/lost.msgpack.
"$PY" - "$J" "$T/lost.msgpack" <<'PYEOF' || fail "journal layout"
import struct, sys
path, lost = sys.argv[1], sys.argv[2]
buf = bytearray(open(path, "rb").read())
off, batches = 0, []
while off < len(buf):
    assert buf[off:off + 4] == b"FTJ1", off
    typ, plen = buf[off + 4], struct.unpack_from("<I", buf, off + 8)[0]
    # BATCH: type 4 (uid, receive time, the batch map) or 2 (older: uid, map)
    if typ in (2, 4):
        batches.append((off, plen, 8 if typ == 2 else 16))
    off += 16 + plen
assert len(batches) >= 5, len(batches)
off, plen, skip = batches[len(batches) // 2]
open(lost, "wb").write(bytes(buf[off + 16 + skip:off + 16 + plen]))
buf[off + 16 + skip + (plen - skip) // 2] ^= 0x40
open(path, "wb").write(buf)
print("journal: %d bytes, %d batches; flipped a byte of batch %d (bytes %d-%d)"
      % (len(buf), len(batches), len(batches) // 2, off, off + 16 + plen))
PYEOF
lost_bytes=$("$WIRE" dump -s "$T/lost.msgpack" | sed -n 's/^total .*bytes_rw=\([0-9]*\).*/\1/p')
[ -n "$lost_bytes" ] && [ "$lost_bytes" -gt 0 ] || fail "cannot read the lost batch"

# The truth: the undamaged copy.
start_daemon b --state-dir "$T/clean"
wait_for 10 status_is b "s['jobs']" || fail "b: nothing restored"
all_bytes=$("$PY" -c "import json; print(int([j['bytes'] for j in json.load(open('$T/b.status.json'))['jobs'] if j['job']=='jr'][0]))")
nb_all=$(sed -n 's/.*job jr restored: \([0-9]*\) batches.*/\1/p' "$T/b.err")

start_daemon c --state-dir "$T/state"
wait_for 10 status_is c "s['jobs']" || fail "c: the damaged journal's job was not restored"
got=$("$PY" -c "import json; print(int([j['bytes'] for j in json.load(open('$T/c.status.json'))['jobs'] if j['job']=='jr'][0]))")
nb=$(sed -n 's/.*job jr restored: \([0-9]*\) batches.*/\1/p' "$T/c.err")
echo "undamaged: $nb_all batches, $all_bytes bytes; damaged: $nb batches, $got bytes (lost batch: $lost_bytes bytes)"
grep -E "warning: --state-dir: .*damaged batch at bytes [0-9]+-[0-9]+ skipped" "$T/c.err" ||
  fail "no warning naming the damaged batch"
grep -E "warning: --state-dir: job jr: 1 damaged entry \([0-9]+ bytes, 1 batches\) lost" "$T/c.err" ||
  fail "no warning on what the job lost"
[ "$nb" = $((nb_all - 1)) ] || fail "restored $nb batches, expected $((nb_all - 1))"
[ "$got" = $((all_bytes - lost_bytes)) ] || fail "restored $got bytes, expected $((all_bytes - lost_bytes))"
[ "$(stat -c %s "$J")" = "$size0" ] || fail "the journal was cut from $size0 to $(stat -c %s "$J") bytes"
"$B/bin/ftio" end --endpoint "ipc://$T/c.st" jr >/dev/null || fail "end"
wait_topic "$T/c.log" ftio.jr.end
kill -TERM "$DPID"; wait_gone "$DPID" 10

# A torn tail: half an entry at the end is cut off, with a notice.
size1=$(stat -c %s "$J")
head -c 20 "$J" >"$T/torn"; cat "$T/torn" >>"$J"
echo "torn tail: 20 bytes after byte $size1"
start_daemon t --state-dir "$T/state"
grep -q "notice: --state-dir: .*torn entry at byte $size1 cut off" "$T/t.err" || fail "torn tail not reported"
wait_for 5 test "$(stat -c %s "$J")" = "$size1" || fail "torn tail not cut: $(stat -c %s "$J") bytes"
kill -TERM "$DPID"; wait_gone "$DPID" 10

# Not regular files named *.journal: skipped at once, each said.
mkdir -m 700 "$T/odd"
mkfifo "$T/odd/fifo.journal"
ln -s "$(ls "$T/clean"/*.journal)" "$T/odd/link.journal"
start_daemon f --state-dir "$T/odd"
grep -q "warning: --state-dir: $T/odd/fifo.journal: not a regular file" "$T/f.err" ||
  fail "the FIFO was not reported"
grep -q "warning: --state-dir: $T/odd/link.journal: not a regular file" "$T/f.err" ||
  fail "the symbolic link was not reported"
wait_for 5 status_is f "not s['jobs']" || fail "something was restored from the FIFO or the link"
echo ok
