#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# burst.sh -- no record is dropped at any call rate: 10^6 one-byte write(2)
# and fwrite(3) calls as fast as the program can make them, from 1 thread and
# from 8, with a receiver and without one (spool), default settings.  Every
# call arrives as a record, once (per layer: exactly the calls made; with a
# receiver, what it received and what was spooled at exit together) and lost is 0;
# the queues grew past their steady size to absorb the burst (FTIO_DEBUG
# reports overflow segments) and the file system saw every byte.  Each
# thread also opens its directory with O_PATH: not recorded.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE"
BURST="$B/tests/shim-burst"
need "$BURST"
N=1000000
for threads in 1 8; do
  per=$((N / threads))
  for where in daemon spool; do
    rm -f "$T"/spool/* "$T"/burst-* "$T/raw.msgpack"
    if [ $where = daemon ]; then
      start_recv "$T/live" -n 1 -i 20 -w "$T/raw.msgpack"
    fi
    FTIO_DEBUG=1 traced "$BURST" $threads $per "$T" >"$T/made" 2>"$T/app.err" ||
      bad "$threads threads, $where: program failed: $(grep -v 'ftio\[' "$T/app.err" | tail -5)"
    if [ $where = daemon ]; then
      # What the receiver did not acknowledge within FTIO_EXIT_WAIT_MS (a
      # receiver starved on a loaded machine) is spooled at exit: the
      # receiver's batches and the spool file together, each (pid, seq)
      # once, as ftiod and `ftio replay` count them.
      wait_recv
      wire recv "$T/raw.msgpack" $(ls "$T"/spool/*.msgpack 2>/dev/null) >"$T/got" ||
        bad "$threads threads, $where: the received batches and the spool do not read"
      [ "$(val "$T/live" batches)" -gt 0 ] 2>/dev/null || bad "$threads threads, $where: nothing received live"
      echo "note: $threads thread(s), daemon: $(val "$T/live" batches) of $(val "$T/got" batches) batches live, the rest spooled at exit"
    else
      wire recv "$T"/spool/*.msgpack >"$T/got"
    fi
    calls=$(val "$T/made" calls)
    secs=$(val "$T/made" seconds)
    what="$threads thread(s), $where, $calls calls in $secs s"
    expect_eq "$T/got" count.posix.write $((calls / 2)) "$what: POSIX write records"
    expect_eq "$T/got" count.stdio.write $((calls / 2)) "$what: stdio write records"
    expect_eq "$T/got" lost 0 "$what: lost"
    expect_eq "$T/got" count.posix.open $threads "$what: POSIX opens (the O_PATH ones are not I/O)"
    expect_eq "$T/got" seq_gaps 0 "$what: sequence gaps"
    # the shim's last words (FTIO_DEBUG), for a failure's diagnosis
    grep -E 'final|did not finish|shut down|unacknowledged|spool' "$T/app.err" | tail -4 | sed 's/^/  /'
    # (copies that came again, resent or spooled too, are counted once: said, not judged)
    echo "note: $what: $(val "$T/got" batches) batches, $(val "$T/got" seq_dups) copies received again"
    size=$(cat "$T"/burst-* | wc -c)
    [ "$size" = "$calls" ] && ok "$what: $size bytes written" || bad "$what: $size bytes on disk"
  done
done
# The hard limit still holds: with FTIO_BUFFER_MAX_MB=1 (one small segment)
# and no daemon, records past it are lost -- and counted: records + lost =
# calls, plus the POSIX open/close and fopen/fclose the thread makes (which of
# the four are lost depends on when the flusher drains).
rm -f "$T"/spool/* "$T"/burst-*
FTIO_BUFFER_MB=1 FTIO_BUFFER_MAX_MB=1 FTIO_SPOOL_DIR="$T/spool" traced "$BURST" 1 $N "$T" >"$T/made" 2>/dev/null
wire recv "$T"/spool/*.msgpack >"$T/got"
r=$(( $(val "$T/got" count.posix) + $(val "$T/got" count.stdio) ))
l=$(val "$T/got" lost); l=${l:-0}
[ $((r + l)) = $((N + 4)) ] && ok "hard limit: $r records + $l lost = $N calls + 4 opens/closes" \
  || bad "hard limit: $r records + $l lost != $N calls + 4 opens/closes"
finish
