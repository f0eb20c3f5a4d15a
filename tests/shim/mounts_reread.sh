#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mounts_reread.sh -- a file entry's file system (`fs`, libtrace/mounts.c)
# stays right when the mount table is read again.
#
# The shim reads /proc/self/mountinfo once, and again (at most once a second)
# when a file lives on a device the table does not have: a file system mounted
# since.  The names it handed out for the files looked up before must survive
# that: files.c keeps them in its entries and sends them in the next batch
# (they were freed with the old table: the entries of the files looked up
# just before, in the same batch, carried freed memory, ASan's
# heap-use-after-free).  A program writes a file, waits past the second,
# mounts a tmpfs, writes a file there and then more files beside the first:
# the newest entries are looked up first, then the file on the new mount makes
# the table be read again, all in one batch.  Every entry must say what
# findmnt says.  (Root: mount(2); the tests run as root.)
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE"

mkdir -p "$T/d" "$T/m"
cat >"$T/remount.py" <<'EOF'
import ctypes, os, sys, time
d, m = sys.argv[1], sys.argv[2]
open(d + "/old0", "w").write("x")        # the first batch: the table is read
time.sleep(1.2)                          # read again at most once a second
libc = ctypes.CDLL(None, use_errno=True)
if libc.mount(b"ftio-test", m.encode(), b"tmpfs", 0, None) != 0:
    sys.exit("mount tmpfs on %s: %s" % (m, os.strerror(ctypes.get_errno())))
open(m + "/new", "w").write("x")         # a device the table has not
for i in range(1, 9):                    # newer entries: looked up first
    open("%s/old%d" % (d, i), "w").write("x")
EOF
FTIO_SPOOL=always traced "$PY" "$T/remount.py" "$T/d" "$T/m" >"$T/py.out" 2>"$T/py.err"
rc=$?
mounted=$(findmnt -n -o FSTYPE,TARGET -T "$T/m/new" 2>/dev/null | awk '{ print $1 ":" $2; exit }')
umount "$T/m" 2>/dev/null
[ $rc = 0 ] || fail "the program failed (exit $rc): $(tail -3 "$T/py.err")"
wire recv "$T"/spool/*.msgpack >"$T/got" 2>"$T/got.err" || fail "ftio-wire recv: $(cat "$T/got.err")"

[ "$mounted" = "tmpfs:$T/m" ] || bad "the tmpfs on $T/m: findmnt says '$mounted'"
grep -qxF "fs=tmpfs:$T/m $T/m/new" "$T/got" && ok "a file on a file system mounted since the table was read" \
  || bad "$T/m/new: want fs=tmpfs:$T/m: $(grep "$T/m/new" "$T/got")"
want=$(findmnt -n -o FSTYPE,TARGET -T "$T/d" | awk '{ print $1 ":" $2; exit }')
n=0
for i in 0 1 2 3 4 5 6 7 8; do
  grep -qxF "fs=$want $T/d/old$i" "$T/got" && n=$((n + 1)) \
    || bad "$T/d/old$i: want fs=$want: $(grep "$T/d/old$i" "$T/got")"
done
[ $n = 9 ] && ok "the 9 files looked up before the table was read again: fs=$want"
finish
