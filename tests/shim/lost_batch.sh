#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# lost_batch.sh -- a batch that never reaches the daemon while the daemon
# answers every other one (it was in the queue of a daemon that stopped, or
# in a connection that broke: tests/daemon/restart.sh under load) is sent
# again as soon as a later batch is acknowledged, on the ZMTP link and on
# ZeroMQ's: every record once, nothing spooled, no ack timeout waited for.
# `ftio-wire recv -D 3` drops the first copy of each process's batch 3 (not
# counted, not acknowledged).  Before the fix the live process kept the
# batch unsent until its exit (the acknowledgements of the later ones kept
# its timeout from firing) and spooled it there.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/bin/posix_periodic"
for link in zmtp zmq; do
  zmtp=1; [ $link = zmq ] && zmtp=0
  rm -rf "$T/d" "$T"/spool/*; mkdir -p "$T/d"
  start_recv "$T/$link" -i 10 -n 1 -D 3
  # 10 checkpoints of 4 writes every 0.1 s, a batch every 50 ms: batch 3 and
  # several after it go within the first second (ZMTP's, unless FTIO_ZMTP=0).
  FTIO_ZMTP=$zmtp FTIO_FLUSH_MS=50 FTIO_DEBUG=1 traced "$B/bin/posix_periodic" -d "$T/d" -n 10 -p 0.1 \
    -b 64K -k 16K >/dev/null 2>"$T/$link.app.err" || bad "$link: posix_periodic failed"
  wait_recv
  expect_eq "$T/$link" dropped 1 "$link: batch 3's first copy dropped"
  expect_eq "$T/$link" count.posix.write 40 "$link: every write once"
  expect_eq "$T/$link" seq_gaps 0 "$link: no sequence gap"
  grep -q 'batch seq 3 overtaken by an acknowledged one: sent again' "$T/$link.app.err" &&
    ok "$link: batch 3 sent again once a later one was acknowledged" ||
    bad "$link: batch 3 not sent again on a later acknowledgement"
  [ -z "$(ls "$T/spool" | grep msgpack)" ] && ok "$link: nothing spooled" ||
    bad "$link: spooled: $(ls "$T/spool")"
done
finish
