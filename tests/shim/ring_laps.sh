#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ring_laps.sh -- the rings hand over every record once and in order across
# their segments' laps and reuse (libtrace/ring.c: a record is published by
# the sequence number in its own slot, which goes on when a drained segment
# is taken again, by the same queue or another thread's).  Small segments
# (FTIO_BUFFER_MB=1: 16,384 records), threads that each write 40,000 records,
# three generations of four threads (the next takes over the queues and
# segments the last left), and a fork while the second generation writes.
# Each file's pwrite records must be exactly its offsets 0..CALLS-1, in
# order, nothing lost; and what the parent's threads wrote is not sent again
# by the child.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE"
LAPS="$B/tests/shim-laps"
need "$LAPS"
CALLS=40000
# Under make asan the fork is left out: libasan's allocator (gcc 12) takes no
# lock around fork, and a child forked while the threads allocate hung in its
# first malloc (gdb: SizeClassAllocator64's mutex), which is the sanitizer's,
# not the rings'; the plain build keeps the fork.
FORK=
[ -n "$(ftio_asan_prefix "$SHIM")" ] && { FORK=nofork; ok "under ASan: no fork (the sanitizer's allocator is not fork-safe)"; }
for run in 1 2; do
  rm -f "$T"/spool/* "$T"/laps-* "$T/rec" "$T/files"
  # (FTIO_EXIT_WAIT_MS: this test is about the rings, not the exit's bound)
  FTIO_BUFFER_MB=1 FTIO_EXIT_WAIT_MS=10000 traced "$LAPS" 3 4 $CALLS "$T" $FORK >"$T/made" 2>"$T/app.err" ||
    fail "run $run: the program failed: $(tail -3 "$T/app.err")"
  files=$(val "$T/made" files)
  wire records "$T/rec" "$T/files" "$T"/spool/*.msgpack >/dev/null ||
    fail "run $run: the spool files do not read"
  wire recv "$T"/spool/*.msgpack >"$T/got"
  expect_eq "$T/got" lost 0 "run $run: lost"
  # rank layer op flags bytes offset fid t_start t_end; layer 0 op 1: POSIX write
  out=$(awk -v calls=$CALLS '
    FNR == NR { if ($2 ~ /\/laps-/) want[$1] = 1; next }
    $2 == 0 && $3 == 1 && ($7 in want) {
      if ($6 != next_off[$7] + 0) bad[$7]++
      next_off[$7] = $6 + 1; n[$7]++
    }
    END {
      for (f in want) { files++; if (n[f] != calls || bad[f] || next_off[f] != calls) wrong++ }
      printf "files=%d wrong=%d\n", files, wrong
    }' "$T/files" "$T/rec")
  [ "$out" = "files=$files wrong=0" ] && ok "run $run: $files files, each its $CALLS offsets once and in order" ||
    bad "run $run: $out (expected files=$files wrong=0)"
done
finish
