#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# every_byte.sh -- every byte through a file descriptor is recorded, whoever
# opened it (issue 29 item 1), and the kernel's count says what was not
# (item 2):
#   - std::ofstream / std::ifstream (libstdc++'s filebuf opens with fopen and
#     moves data with write/read on the descriptor): bytes = the file's size;
#   - write/writev on fileno(fopen()), an inherited descriptor and its
#     dup/F_DUPFD copies, openat2, pwritev2/preadv2, copy_file_range,
#     sendfile, tmpfile (tests/shim/shim_fds.c tallies what it did);
#   - nothing counted twice (the stdio records and the POSIX ones are
#     distinct calls);
#   - the kernel cross-check (`unseen` in the final batch): 0 for these
#     programs, also for what glibc reads on the program's behalf (shim-fds:
#     setlocale's locale.alias, the CPU lists of sysconf and get_nprocs
#     (hwloc's under Open MPI), objects dlopen()ed after start, /proc files
#     read a line at a time through stdio: each counted, FTIO_DEBUG's line
#     says how much) and writes (sem_open's semaphore file, parallel
#     HDF5's; perror's and warnx's messages); the 8 MiB a program writes
#     and reads back through raw
#     syscall() are reported, and ftiod's `.end` carries them in
#     `unseen_bytes` and is not `complete`.
. "$(dirname "$0")/../lib.sh"
need "$SHIM" "$WIRE" "$B/tests/shim-fds" "$B/tests/cxx-streams"
# Unseen must be 0; under `make asan` the sanitizers' runtime reads and
# writes on the program's behalf through no wrapper (a few KB).
slack=0
[ -n "$(ftio_asan_prefix "$SHIM")" ] && slack=4096

# C++ streams, 9 MiB out and back in.
mkdir -p "$T/d"
mono() { "$PY" -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
before=$(mono)
FTIO_SPOOL=always traced "$B/tests/cxx-streams" "$T/d/out.bin" 9 >"$T/cxx.out" 2>"$T/cxx.err" \
  || bad "cxx-streams failed: $(cat "$T/cxx.err")"
after=$(mono)
wire recv "$T"/spool/*.msgpack >"$T/cxx.got"
# The records' clock (the TSC where invariant, libtrace/clock.c) arrives as
# CLOCK_MONOTONIC ns: every record inside the run, none ending before it starts.
wire recv -r "$T"/spool/*.msgpack | awk -v a="$before" -v b="$after" '/^rec / {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    n++; if (v["ts"] + 0 < a + 0 || v["te"] + 0 > b + 0 || v["te"] + 0 < v["ts"] + 0) bad++ }
  END { exit !(n > 0 && bad == 0) }' && ok "records' times: CLOCK_MONOTONIC ns inside the run" \
  || bad "records' times outside the run [$before, $after]: $(wire recv -r "$T"/spool/*.msgpack | head -3)"
size=$(wc -c <"$T/d/out.bin")
expect_eq "$T/cxx.got" bytes.posix.write "$size" "std::ofstream: bytes written = the file's size"
expect_eq "$T/cxx.got" bytes.posix.read "$size" "std::ifstream: bytes read = the file's size"
expect_eq "$T/cxx.got" count.stdio.write 0 "std::ofstream: no stdio record (filebuf writes on the descriptor)"
for d in read write; do
  u=$(val "$T/cxx.got" "unseen.$d")
  [ "${u:-x}" != x ] && [ "$u" -le $slack ] && ok "C++ streams: unseen $d $u <= $slack" \
    || bad "C++ streams: unseen $d '$u'"
done
grep -q "^file=$T/d/out.bin$" "$T/cxx.got" && ok "std::ofstream: its path sent" || bad "out.bin not in files"
# Each file entry says which file system it is on ("TYPE:MOUNTPOINT", as findmnt says).
fs=$(findmnt -n -o FSTYPE,TARGET -T "$T/d/out.bin" | awk '{ print $1 ":" $2; exit }')
grep -qxF "fs=$fs $T/d/out.bin" "$T/cxx.got" && ok "out.bin's file system: $fs" \
  || bad "out.bin's file system: want $fs, got: $(grep '^fs=' "$T/cxx.got")"
rm -f "$T"/spool/*
# tmpfs too (/dev is excluded by default: FTIO_EXCLUDE without it).
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  shm=$(mktemp /dev/shm/ftio-test.XXXXXX)
  FTIO_EXCLUDE=/proc FTIO_SPOOL=always traced sh -c "echo x >$shm"
  rm -f "$shm"
  want=$(findmnt -n -o FSTYPE,TARGET -T /dev/shm | awk '{ print $1 ":" $2; exit }')
  wire recv "$T"/spool/*.msgpack | grep -qxF "fs=$want $shm" && ok "a file in /dev/shm: $want" \
    || bad "a file in /dev/shm: want $want: $(wire recv "$T"/spool/*.msgpack | grep '^fs=')"
  rm -f "$T"/spool/*
fi

# Descriptors the open wrappers never saw.
rm -rf "$T/d"; mkdir -p "$T/d"
start_recv "$T/fds.got" -n 1 -i 10
traced "$B/tests/shim-fds" "$T/d" 3>"$T/d/inherited.dat" >"$T/fds.expect" 2>"$T/fds.err" \
  || bad "shim-fds failed: $(cat "$T/fds.err")"
wait_recv
for k in posix.write posix.read stdio.write; do
  expect_eq "$T/fds.got" "bytes.$k" "$(val "$T/fds.expect" "expect.$k")" "descriptors opened elsewhere: $k bytes"
done
for f in fopen.dat inherited.dat raw.dat copy.dat send.dat; do
  grep -q "^file=$T/d/$f$" "$T/fds.got" && ok "$f named" || bad "$f not in files"
done
grep -q "^file=$T/d/inherited.dat$" "$T/fds.got" && ok "inherited descriptor named"
for d in read write; do
  u=$(val "$T/fds.got" "unseen.$d")
  [ "${u:-x}" != x ] && [ "$u" -le $slack ] && ok "cross-check: unseen $d $u <= $slack" \
    || bad "cross-check: unseen $d '$u'"
done
# Each thing glibc read on the program's behalf was counted as such (not
# merely hidden by another): the shim's FTIO_DEBUG line says how much (a
# run of its own; the debug lines, written in the program's thread, are the
# shim's, not unseen: its line says 0 both ways).
mkdir -p "$T/d2"
FTIO_DEBUG=1 FTIO_SPOOL=always traced "$B/tests/shim-fds" "$T/d2" 3>"$T/d2/inherited.dat" >/dev/null \
  2>"$T/fds2.err" || bad "shim-fds (FTIO_DEBUG) failed: $(cat "$T/fds2.err")"
rm -f "$T"/spool/*
check=$(grep 'kernel cross-check' "$T/fds2.err")
have() { echo "$check" | grep -Eq "$1" && ok "$2" || bad "$2: $check"; }
[ $slack -gt 0 ] || have "unseen 0/0$" "FTIO_DEBUG's count: nothing read or written unseen"
alias_size=0
for f in /usr/share/locale/locale.alias /usr/lib/locale/locale.alias; do
  [ -r "$f" ] && { alias_size=$(wc -c <"$f"); break; }
done
# (glibc's own files: locale.alias, the time zone's file, the CPU list)
files=$(echo "$check" | sed -n 's/.*(files \([0-9]*\),.*/\1/p')
[ "${files:-0}" -gt "$alias_size" ] \
  && ok "glibc's own files counted: $files bytes (locale.alias: $alias_size)" \
  || bad "glibc's own files: '$files' bytes counted, locale.alias alone is $alias_size: $check"
have "loader [1-9][0-9]{3,}" "the loader's reads of libz and libbz2 (dlopen after start) counted"
have "stdio read-ahead [1-9][0-9]{2,}" "stdio's read-ahead of the /proc files counted"
expect_eq "$T/fds.got" seq_dups 0 "no batch twice"

# A program that writes through an interface no wrapper sees: the kernel's
# count says so, and ftiod's .end too.
start_daemon d --settle-end 1
rm -rf "$T/d"; mkdir -p "$T/d"
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=raw traced "$B/tests/shim-fds" "$T/d" untraceable \
  3>"$T/d/inherited.dat" >/dev/null 2>"$T/raw.err" || bad "shim-fds untraceable failed: $(cat "$T/raw.err")"
FTIO_ENDPOINT="ipc://$T/d.in" FTIO_JOB=clean traced "$B/tests/shim-fds" "$T/d" \
  3>"$T/d/inherited.dat" >/dev/null 2>"$T/clean.err" || bad "shim-fds failed: $(cat "$T/clean.err")"
wait_topic "$T/d.log" ftio.raw.end
wait_topic "$T/d.log" ftio.clean.end
# (8 MiB less at most a stdio buffer: what printf counted and exit flushes later)
for d in write read; do
  u=$(jsonl "$T/d.log" "last(\"ftio.raw.end\")[\"unseen_bytes\"][\"$d\"]")
  [ "$u" -ge $((8388608 - 4096)) ] 2>/dev/null && [ "$u" -le $((8388608 + 4096)) ] \
    && ok ".end unseen_bytes.$d = $u, the 8 MiB of raw syscall()s" \
    || bad ".end unseen_bytes.$d = '$u'"
done
for d in write read; do
  u=$(jsonl "$T/d.log" "last(\"ftio.clean.end\")[\"unseen_bytes\"][\"$d\"]")
  [ "${u:-x}" != x ] && [ "$u" -le $slack ] && ok ".end of the clean job: unseen_bytes.$d = $u" \
    || bad ".end of the clean job: unseen_bytes.$d = '$u'"
done
[ "$(jsonl "$T/d.log" 'last("ftio.raw.end")["complete"]')" = False ] && ok ".end not complete with unseen bytes" \
  || bad ".end complete despite 8 MiB unseen: $(jsonl "$T/d.log" 'last("ftio.raw.end")')"
jsonl "$T/d.log" 'last("ftio.raw.end")["incomplete"]' | grep -q unseen && ok ".end says why (unseen)" \
  || bad ".end incomplete reason: $(jsonl "$T/d.log" 'last("ftio.raw.end")["incomplete"]')"
[ "$(jsonl "$T/d.log" 'last("ftio.clean.end")["complete"]')" = True ] && ok ".end of a fully seen job complete" \
  || bad "clean job not complete: $(jsonl "$T/d.log" 'last("ftio.clean.end")')"
finish
