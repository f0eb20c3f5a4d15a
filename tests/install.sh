#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# suite-timeout: 1800  (a build of the tree at -O0; about 60 s on an idle machine, 713 s beside stress-ng --cpu 8)
# install.sh -- `make install` / `make uninstall` as a site and a user would
# use them (mk/install.mk):
#  - `make -n install` on a fresh tree plans no test, Check or bench build;
#    a real install from nothing without mpicc installs all but the MPI
#    program, says so, and builds nothing else;
#  - a staged system install (DESTDIR, PREFIX=/usr, a multiarch LIBDIR):
#    every expected file, soname links, ftio.pc's preload variable, man1 +
#    man7, docs and examples, systemd units, sysusers (systemd-sysusers),
#    logrotate snippet (logrotate -d), module file (modulecmd), no @VAR@ left;
#    the staged libftio.so traces `cat` into a spool file; the compiled-in
#    paths (mk/paths.mk) are the installation's: ftiod's configuration file,
#    the SPANK plugin's lib= default (the installed shim), no `X.so.so` link;
#    $SYSCONFDIR/ftio/clients/ exists (0755);
#  - the default PREFIX=/usr/local: configuration where ftiod reads it,
#    logrotate snippet where logrotate reads it;
#    the configuration files are installed, never overwritten, and removed
#    by uninstall only when unchanged; uninstall leaves no file behind;
#  - every directory variable honoured;
#  - a prefix install used in place: systemd-analyze verify of both units,
#    a job through the relay unit's command line to the installed ftiod,
#    module load, the installed examples build, a program built through
#    pkg-config against ftio.h without and under the installed shim (found
#    with `pkg-config --variable=preload ftio`), its spool analysed by the
#    installed `ftio`; uninstall leaves no file.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
for tool in pkg-config readelf logrotate modulecmd systemd-analyze systemd-sysusers man; do
  command -v $tool >/dev/null || fail "$tool not found (mk/deps.sh installs it)"
done
# Every install builds in $T/fresh: the installation's paths are compiled in
# (mk/paths.mk), and the suite's own build in $B keeps its own.  What is
# tested is the installation, not the compiler: the suite's own build already
# compiled every source with the default flags, so these builds run -O0 (half
# the compile time) and -j2; the first, from nothing, is most of this test's
# time (the next one, with mpicc, builds the MPI program only: mk/flags.mk
# keeps the MPI compiler in a stamp of its own; the others rebuild what
# includes the installation's paths, mk/paths.mk).
MAKE="make -j2 -s --no-print-directory B=$T/fresh OPT=-O0"

# ---- what install builds -------------------------------------------------------
make -n --no-print-directory B="$T/fresh" install PREFIX=/usr >"$T/plan" 2>&1 || { cat "$T/plan"; fail "make -n install"; }
grep -q -- "-o $T/fresh/bin/ftiod " "$T/plan" || fail "install plans no ftiod build: $(head -5 "$T/plan")"
grep -q "libftio.so.0.1.0" "$T/plan" || fail "install plans no libftio.so build"
if grep -E "$T/fresh/(tests|bench)/|-lcheck|/bin/(checkpoint|subscriber|posix_periodic|ftio-wire)" "$T/plan" \
    | head -3 | grep .; then
  fail "make install would build tests, benches or examples"
fi
make -n --no-print-directory B="$T/fresh" install PREFIX=/usr MPICC=/nonexistent/mpicc >"$T/plan-nompi" 2>&1 ||
  fail "make -n install without mpicc: $(tail -3 "$T/plan-nompi")"
grep "scan-mpi" "$T/plan-nompi" | grep -qv "is not installed" && fail "ftio-scan-mpi planned without mpicc"
grep -q "no /nonexistent/mpicc: ftio-scan-mpi .* not installed" "$T/plan-nompi" || fail "no word about the missing mpicc"
# and for real, from nothing, on a machine without mpicc (libftio.so needs
# mpi.h only): it installs, and built nothing else
$MAKE install DESTDIR="$T/nompi" PREFIX=/usr MPICC=/nonexistent/mpicc \
  >"$T/nompi.log" 2>&1 || { tail -20 "$T/nompi.log"; fail "make install from nothing without mpicc"; }
grep -q "ftio-scan-mpi (MPI ftio scan) is not installed" "$T/nompi.log" || fail "no word about the missing mpicc"
[ -x "$T/nompi/usr/bin/ftiod" ] && [ -x "$T/nompi/usr/bin/ftio" ] && [ -e "$T/nompi/usr/lib/libftio.so.0" ] ||
  fail "install from nothing: $(ls -R "$T/nompi/usr/bin" "$T/nompi/usr/lib")"
[ ! -e "$T/nompi/usr/bin/ftio-scan-mpi" ] || fail "ftio-scan-mpi installed without mpicc"
[ ! -e "$T/fresh/tests" ] && [ ! -e "$T/fresh/bench" ] && [ ! -e "$T/fresh/examples" ] ||
  fail "make install built tests, benches or examples: $(ls "$T/fresh")"
echo "ok: make -n install plans only what it installs; from nothing without mpicc it installs all but the MPI program, says so, builds nothing else"

# ---- a staged system installation ----------------------------------------------
S="$T/stage"
MA=$(${CC:-cc} -print-multiarch 2>/dev/null || true)
LIBDIR=/usr/lib${MA:+/$MA}
cat >"$T/site.conf" <<'EOF'
# a test configuration file (packaging/ftiod.conf is the shipped one)
log = /var/log/ftio/predictions.jsonl
EOF
V="DESTDIR=$S PREFIX=/usr LIBDIR=$LIBDIR FTIOD_CONF=$T/site.conf"
$MAKE install $V >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install $V"; }
for f in usr/bin/ftio usr/bin/ftiod "${LIBDIR#/}/libftio.so.0.1.0" usr/include/ftio.h \
         "${LIBDIR#/}/pkgconfig/ftio.pc" usr/share/man/man1/ftio.1 usr/share/man/man1/ftiod.1 \
         usr/share/man/man7/libftio.7 usr/share/doc/ftio/README.md usr/share/doc/ftio/docs/PROTOCOL.md \
         usr/share/doc/ftio/docs/ALGORITHM.md usr/share/doc/ftio/libtrace/README.md \
         usr/share/doc/ftio/examples/checkpoint.c usr/share/doc/ftio/examples/flush_points.c \
         usr/share/doc/ftio/examples/subscriber.py usr/lib/systemd/system/ftiod.service \
         usr/lib/systemd/system/ftio-relay.service etc/ftio/relay.env \
         usr/lib/sysusers.d/ftio.conf etc/logrotate.d/ftiod etc/ftio/ftiod.conf \
         usr/share/modulefiles/ftio/0.1.0; do
  [ -f "$S/$f" ] || fail "missing /$f"
done
if command -v "${MPICC:-mpicc}" >/dev/null; then
  [ -x "$S/usr/bin/ftio-scan-mpi" ] || fail "missing /usr/bin/ftio-scan-mpi (mpicc is there)"
fi
[ ! -e "$S/usr/include/analysis.h" ] || fail "internal header installed"
[ -z "$(find "$S" -path '*/bin/*' -name 'test*')" ] || fail "a test program installed"
# soname links: libftio.so -> libftio.so.0 -> libftio.so.0.1.0 (relative)
[ "$(readlink "$S$LIBDIR/libftio.so")" = libftio.so.0 ] || fail "libftio.so -> $(readlink "$S$LIBDIR/libftio.so")"
[ "$(readlink "$S$LIBDIR/libftio.so.0")" = libftio.so.0.1.0 ] || fail "libftio.so.0 -> $(readlink "$S$LIBDIR/libftio.so.0")"
readelf -d "$S$LIBDIR/libftio.so.0.1.0" | grep -q 'SONAME.*\[libftio.so.0\]' || fail "soname is not libftio.so.0"
# templates filled in, with the installation's directories (not DESTDIR)
left=$(grep -rl '@[A-Z]*@' "$S/usr/lib/systemd" "$S/etc" "$S/usr/share/modulefiles" "$S$LIBDIR/pkgconfig" || true)
[ -z "$left" ] || fail "@VAR@ left in: $left"
grep -rq "$S" "$S/usr/lib/systemd" "$S/etc" "$S/usr/share/modulefiles" "$S$LIBDIR/pkgconfig" && fail "DESTDIR leaked into a file"
grep -qx 'ExecStart=/usr/bin/ftiod --config /etc/ftio/ftiod.conf' "$S/usr/lib/systemd/system/ftiod.service" ||
  fail "unit: $(grep ExecStart "$S/usr/lib/systemd/system/ftiod.service")"
grep -qx 'EnvironmentFile=/etc/ftio/relay.env' "$S/usr/lib/systemd/system/ftio-relay.service" ||
  fail "relay unit: $(grep EnvironmentFile "$S/usr/lib/systemd/system/ftio-relay.service")"
PRE=$(PKG_CONFIG_PATH="$S$LIBDIR/pkgconfig" pkg-config --variable=preload ftio) || fail "pkg-config preload"
[ "$PRE" = "$LIBDIR/libftio.so.0" ] || fail "preload variable $PRE"
[ "$(PKG_CONFIG_PATH="$S$LIBDIR/pkgconfig" pkg-config --modversion ftio)" = "$(cat VERSION)" ] ||
  fail "ftio.pc's Version is not VERSION's $(cat VERSION)"
[ -e "$S$PRE" ] || fail "preload path $S$PRE does not exist"
echo "ok: staged install: every file, soname links, preload=$PRE, templates filled"

# the paths compiled into the programs are the installation's
[ -e /usr/include/slurm/spank.h ] || fail "no <slurm/spank.h> (libslurm-dev, mk/deps.sh): spank_ftio.so not built"
[ -f "$S$LIBDIR/spank_ftio.so" ] || fail "spank_ftio.so not installed in $LIBDIR"
strings "$S$LIBDIR/spank_ftio.so" | grep -qx "$PRE" ||
  fail "spank_ftio.so's default lib= is not $PRE: $(strings "$S$LIBDIR/spank_ftio.so" | grep 'libftio\.so')"
dup=$(find "$S" -name '*.so.so*')
[ -z "$dup" ] || fail "bogus links: $dup"
"$S/usr/bin/ftiod" --help | grep -q " /etc/ftio/ftiod.conf when it exists" ||
  fail "ftiod's default --config: $("$S/usr/bin/ftiod" --help | grep -A1 -- '--config FILE')"
"$S/usr/bin/ftio" sub --help | grep -q "default /etc/ftio/ftiod.conf" || fail "ftio sub: not /etc/ftio/ftiod.conf"
[ -d "$S/etc/ftio/clients" ] && [ "$(stat -c %a "$S/etc/ftio/clients")" = 755 ] ||
  fail "no /etc/ftio/clients (0755): $(ls -ld "$S/etc/ftio/clients" 2>&1)"
echo "ok: compiled in: spank_ftio.so lib=$PRE, ftiod --config /etc/ftio/ftiod.conf; /etc/ftio/clients 0755; no .so.so"

# the staged shim traces a real program: cat reading a FIFO that a writer
# fills with 5 x 20000 bytes, 0.2 s apart (a trace long enough to analyse)
mkdir -p "$T/spool"; mkfifo "$T/fifo"
(for i in 1 2 3 4 5; do head -c 20000 /dev/zero; sleep 0.2; done >"$T/fifo") &
env LD_PRELOAD="$(ftio_preload "$S$PRE")" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T/spool" FTIO_JOB=cat \
  cat "$T/fifo" >/dev/null || fail "cat under the staged libftio.so"
wait
ls "$T"/spool/ftio-cat-*.msgpack >/dev/null 2>&1 || fail "the traced cat spooled nothing"
"$S/usr/bin/ftio" --json -m read "$T"/spool/ftio-cat-*.msgpack >"$T/cat.json" || fail "ftio on cat's spool"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['bytes']==100000, r['bytes']" "$T/cat.json" ||
  fail "cat's spool: $(head -c 300 "$T/cat.json")"
echo "ok: LD_PRELOAD=$S$PRE: a traced cat spooled the 100000 bytes it read"

# the site files are valid for their tools
logrotate -d -s "$T/logrotate.state" "$S/etc/logrotate.d/ftiod" >"$T/logrotate.out" 2>&1 ||
  fail "logrotate -d: $(cat "$T/logrotate.out")"
grep -q "rotating pattern: /var/log/ftio/\*.jsonl" "$T/logrotate.out" || fail "logrotate: $(head -3 "$T/logrotate.out")"
grep -qi "error" "$T/logrotate.out" && fail "logrotate: $(grep -i error "$T/logrotate.out")"
out=$(env -u MANPATH MODULEPATH="$S/usr/share/modulefiles" modulecmd sh load ftio) || fail "modulecmd load ftio"
for want in "FTIO_PRELOAD=$LIBDIR/libftio.so.0;" "MANPATH=/usr/share/man:;" \
            "PKG_CONFIG_PATH=$LIBDIR/pkgconfig;"; do
  echo "$out" | grep -q "^$want" || fail "module load ftio: no $want in: $out"
done
echo "$out" | grep -q LD_LIBRARY_PATH && fail "the module sets LD_LIBRARY_PATH"
mkdir -p "$T/sysroot/etc"
systemd-sysusers --dry-run --root="$T/sysroot" "$S/usr/lib/sysusers.d/ftio.conf" >"$T/sysusers.out" 2>&1 ||
  fail "systemd-sysusers: $(cat "$T/sysusers.out")"
grep -q "Creating user 'ftio'" "$T/sysusers.out" || fail "sysusers creates no user ftio: $(cat "$T/sysusers.out")"
echo "ok: logrotate -d accepts the snippet, systemd-sysusers the user; module load ftio sets MANPATH, PKG_CONFIG_PATH, FTIO_PRELOAD"

# the configuration files: installed once, a site's edits kept
echo "max-jobs = 7   # site" >>"$S/etc/ftio/ftiod.conf"
echo "FTIO_RELAY_UPSTREAM=tcp://d1:5555" >>"$S/etc/ftio/relay.env"
$MAKE install $V >"$T/install2.log" 2>&1 || fail "second make install"
grep -q "max-jobs = 7" "$S/etc/ftio/ftiod.conf" || fail "make install overwrote the edited ftiod.conf"
grep -q "d1:5555" "$S/etc/ftio/relay.env" || fail "make install overwrote the edited relay.env"
grep -q "ftiod.conf exists: kept" "$T/install2.log" || fail "install did not say it kept ftiod.conf"
$MAKE uninstall $V >"$T/uninstall.log" 2>&1 || { cat "$T/uninstall.log"; fail "make uninstall"; }
grep -q "ftiod.conf was changed: kept" "$T/uninstall.log" || fail "uninstall said nothing of the kept conf"
[ -f "$S/etc/ftio/ftiod.conf" ] && [ -f "$S/etc/ftio/relay.env" ] || fail "uninstall removed an edited configuration file"
rm "$S/etc/ftio/ftiod.conf" "$S/etc/ftio/relay.env"
left=$(find "$S" ! -type d)
[ -z "$left" ] || fail "left after uninstall: $left"
$MAKE install $V >/dev/null 2>&1 && $MAKE uninstall $V >/dev/null 2>&1 || fail "install + uninstall"
left=$(find "$S" ! -type d)
[ -z "$left" ] || fail "left after uninstall (unchanged conf): $left"
[ ! -e "$S/usr/share/doc/ftio" ] && [ ! -e "$S/etc/ftio" ] || fail "ftio's directories left"
echo "ok: ftiod.conf and relay.env never overwritten, kept when edited; uninstall leaves no file"

# ---- every directory variable honoured --------------------------------------------
S2="$T/stage2"
V2="DESTDIR=$S2 PREFIX=/opt/ftio BINDIR=/opt/ftio/sbin LIBDIR=/opt/ftio/lib64 INCLUDEDIR=/opt/ftio/inc
    MANDIR=/opt/man DOCDIR=/opt/doc/ftio-0.1.0 SYSCONFDIR=/etc/opt/ftio SYSTEMDUNITDIR=/etc/systemd/system
    MODULEFILEDIR=/opt/modules FTIOD_CONF=$T/site.conf"
$MAKE install $V2 >"$T/install3.log" 2>&1 || { cat "$T/install3.log"; fail "make install $V2"; }
for f in opt/ftio/sbin/ftiod opt/ftio/lib64/libftio.so.0 opt/ftio/lib64/pkgconfig/ftio.pc opt/ftio/inc/ftio.h \
         opt/man/man7/libftio.7 opt/doc/ftio-0.1.0/docs/SECURITY.md etc/opt/ftio/ftio/ftiod.conf \
         etc/opt/ftio/logrotate.d/ftiod etc/systemd/system/ftiod.service opt/modules/ftio/0.1.0; do
  [ -e "$S2/$f" ] || fail "with every directory set: missing /$f"
done
grep -qx 'ExecStart=/opt/ftio/sbin/ftiod --config /etc/opt/ftio/ftio/ftiod.conf' "$S2/etc/systemd/system/ftiod.service" ||
  fail "unit: $(grep ExecStart "$S2/etc/systemd/system/ftiod.service")"
"$S2/opt/ftio/sbin/ftiod" --help | grep -q " /etc/opt/ftio/ftio/ftiod.conf when it exists" ||
  fail "SYSCONFDIR=/etc/opt/ftio: ftiod's default --config: $("$S2/opt/ftio/sbin/ftiod" --help | grep -A1 -- '--config FILE')"
strings "$S2/opt/ftio/lib64/spank_ftio.so" | grep -qx /opt/ftio/lib64/libftio.so.0 ||
  fail "LIBDIR=/opt/ftio/lib64: spank_ftio.so's lib=: $(strings "$S2/opt/ftio/lib64/spank_ftio.so" | grep 'libftio\.so')"
grep -q 'FTIO_PRELOAD *//*opt/ftio/lib64/libftio.so.0' "$S2/opt/modules/ftio/0.1.0" || fail "module: FTIO_PRELOAD"
grep -q 'MANPATH *//*opt/man' "$S2/opt/modules/ftio/0.1.0" || fail "module: MANPATH"
$MAKE uninstall $V2 >/dev/null 2>&1 || fail "make uninstall $V2"
left=$(find "$S2" ! -type d)
[ -z "$left" ] || fail "left after uninstall: $left"
echo "ok: BINDIR LIBDIR INCLUDEDIR MANDIR DOCDIR SYSCONFDIR SYSTEMDUNITDIR MODULEFILEDIR honoured, uninstall clean"

# ---- the default prefix: one configuration directory, the tools' own directories -----
S3="$T/stage3"
$MAKE install DESTDIR="$S3" >"$T/install4.log" 2>&1 || { cat "$T/install4.log"; fail "make install (default PREFIX)"; }
for f in usr/local/etc/ftio/ftiod.conf usr/local/etc/ftio/relay.env usr/local/lib/spank_ftio.so \
         etc/logrotate.d/ftiod usr/local/lib/systemd/system/ftiod.service; do
  [ -e "$S3/$f" ] || fail "default PREFIX: missing /$f"
done
[ ! -e "$S3/usr/local/etc/logrotate.d" ] || fail "default PREFIX: a logrotate.d that logrotate never reads"
grep -qx 'ExecStart=/usr/local/bin/ftiod --config /usr/local/etc/ftio/ftiod.conf' \
  "$S3/usr/local/lib/systemd/system/ftiod.service" || fail "default PREFIX: unit's --config"
"$S3/usr/local/bin/ftiod" --help | grep -q " /usr/local/etc/ftio/ftiod.conf when it exists" ||
  fail "default PREFIX: ftiod reads $("$S3/usr/local/bin/ftiod" --help | grep -A1 -- '--config FILE')"
strings "$S3/usr/local/lib/spank_ftio.so" | grep -qx /usr/local/lib/libftio.so.0 || fail "default PREFIX: spank lib="
$MAKE uninstall DESTDIR="$S3" >/dev/null 2>&1 || fail "make uninstall (default PREFIX)"
left=$(find "$S3" ! -type d)
[ -z "$left" ] || fail "default PREFIX: left after uninstall: $left"
echo "ok: default PREFIX: ftiod, its unit and the installed ftiod.conf agree on /usr/local/etc/ftio; logrotate snippet in /etc/logrotate.d"

# ---- a prefix install, used in place ---------------------------------------------
P="$T/prefix"
$MAKE install PREFIX="$P" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install PREFIX=$P"; }
grep -q "logrotate reads /etc/logrotate.d only: link $P/etc/logrotate.d/ftiod there" "$T/install.log" ||
  fail "PREFIX=$P: no word on where logrotate reads"
# the installed ftiod reads the installed configuration file: a bad line there is its error
cp "$P/etc/ftio/ftiod.conf" "$T/conf.orig"
echo "no-such-option = 1" >>"$P/etc/ftio/ftiod.conf"
# (env -u: the test kit points FTIO_DAEMON_CONFIG away from the machine's file)
if env -u FTIO_DAEMON_CONFIG timeout 10 "$P/bin/ftiod" --auth none --listen "ipc://$T/x.in" >"$T/x.out" 2>&1; then fail "ftiod ignored $P/etc/ftio/ftiod.conf"; fi
grep -q "$P/etc/ftio/ftiod.conf:[0-9]*: " "$T/x.out" || fail "ftiod did not read $P/etc/ftio/ftiod.conf: $(cat "$T/x.out")"
cp "$T/conf.orig" "$P/etc/ftio/ftiod.conf"
systemd-analyze verify --man=no "$P/lib/systemd/system/ftiod.service" \
  "$P/lib/systemd/system/ftio-relay.service" >"$T/verify.out" 2>&1 ||
  fail "systemd-analyze verify: $(cat "$T/verify.out")"
grep '^ExecStart=' "$P/lib/systemd/system/ftio-relay.service" | sed 's/^ExecStart=//' >"$T/relay.cmd"
for v in $(grep -o '\${[A-Z_]*}' "$T/relay.cmd" | tr -d '${}'); do
  grep -q "^$v=" "$P/etc/ftio/relay.env" || fail "relay unit uses \${$v}, relay.env does not set it"
done
cat >"$T/app.c" <<'C'
#include <ftio.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    char buf[4096] = {0};
    for (int i = 0; i < 10; i++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || usleep(50000)) return 1;
    close(fd);
    int r = ftio_try_flush_named("after-writes");
    printf("loaded=%d flush=%d\n", ftio_loaded(), r);
    return 0;
}
C
CFLAGS=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags ftio)
echo "$CFLAGS" | grep -q -- "-I$P/include" || fail "pkg-config cflags: $CFLAGS"
cc $CFLAGS -o "$T/app" "$T/app.c"

out=$("$T/app" "$T/plain.dat")
[ "$out" = "loaded=0 flush=-1" ] || fail "without the shim: $out"

PRE=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --variable=preload ftio)
[ "$PRE" = "$P/lib/libftio.so.0" ] && [ -e "$PRE" ] || fail "preload variable $PRE"
PRELOAD=$(ftio_preload "$PRE")
mkdir "$T/spool2"
out=$(env LD_PRELOAD="$PRELOAD" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T/spool2" FTIO_JOB=inst \
      "$T/app" "$T/traced.dat")
[ "$out" = "loaded=1 flush=0" ] || fail "under the shim: $out"
ls "$T"/spool2/ftio-inst-*.msgpack >/dev/null 2>&1 || fail "no spool file"

"$P/bin/ftio" --json "$T"/spool2/ftio-inst-*.msgpack >"$T/result.json" || fail "ftio on the spool"
python3 - "$T/result.json" <<'PY' || fail "spool totals"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["bytes"] == 40960, r["bytes"]
assert r["records"] == 10, r["records"]
PY
# the module, loaded in a shell: ftio from the prefix, FTIO_PRELOAD = the
# preload variable of the pkg-config the module points to
(
  eval "$(env -u MANPATH MODULEPATH="$P/share/modulefiles" modulecmd sh load ftio)"
  [ "$(command -v ftio)" = "$P/bin/ftio" ] || fail "after module load: ftio is $(command -v ftio)"
  [ "$FTIO_PRELOAD" = "$P/lib/libftio.so.0" ] && [ -e "$FTIO_PRELOAD" ] || fail "FTIO_PRELOAD=$FTIO_PRELOAD"
  [ "$(pkg-config --variable=preload ftio)" = "$FTIO_PRELOAD" ] || fail "module's pkg-config path"
  MANPATH=$MANPATH man -w libftio | grep -qx "$P/share/man/man7/libftio.7" || fail "man libftio: $(man -w libftio 2>&1)"
) || exit 1
# the installed examples build on their own, as examples/README.md says
EX="$P/share/doc/ftio/examples"
[ -f "$EX/README.md" ] || fail "no examples/README.md installed"
cc $CFLAGS -o "$T/flush_points" "$EX/flush_points.c" || fail "installed flush_points.c does not build"
cc -o "$T/posix_periodic" "$EX/posix_periodic.c" || fail "installed posix_periodic.c does not build"
cc -o "$T/subscriber" "$EX/subscriber.c" -lzmq -ljansson -lm || fail "installed subscriber.c does not build"
if command -v "${MPICC:-mpicc}" >/dev/null; then
  "${MPICC:-mpicc}" -o "$T/checkpoint" "$EX/checkpoint.c" || fail "installed checkpoint.c does not build"
fi
mkdir "$T/spool3"
env LD_PRELOAD="$PRELOAD" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T/spool3" FTIO_JOB=ex \
  "$T/flush_points" "$T" 2 >/dev/null || fail "installed flush_points under the shim"
ls "$T"/spool3/ftio-ex-*.msgpack >/dev/null 2>&1 || fail "flush_points spooled nothing"

# a site in small: the installed ftiod, the relay started by the relay
# unit's command line (its variables pointed at this test's endpoints), and
# the installed shim's job going through the relay
"$P/bin/ftiod" --auth none --listen "ipc://$T/d.in" --pub "ipc://$T/d.pub" --status-endpoint "ipc://$T/d.st" \
  --log "$T/d.jsonl" --job-timeout 2 2>"$T/d.err" &
PIDS="$PIDS $!"
FTIO_RELAY_LISTEN="ipc://$T/relay.sock" FTIO_RELAY_UPSTREAM="ipc://$T/d.in"
eval "exec $(cat "$T/relay.cmd")" 2>"$T/relay.err" &
PIDS="$PIDS $!"
i=0
until grep -q "notice: listening on" "$T/d.err" && [ -S "$T/relay.sock" ]; do
  i=$((i + 1)); [ $i -gt 100 ] && fail "ftiod or relay did not start: $(cat "$T/d.err" "$T/relay.err")"
  sleep 0.1
done
env LD_PRELOAD="$PRELOAD" FTIO_ENDPOINT="ipc://$T/relay.sock" FTIO_SPOOL_DIR="$T/spool3" FTIO_JOB=viarelay \
  "$T/flush_points" "$T" 3 >/dev/null || fail "flush_points through the relay"
i=0
until grep -q '"topic":"ftio.viarelay.end"' "$T/d.jsonl" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 200 ] && fail "no ftio.viarelay.end from ftiod: $(tail -5 "$T/d.err")"
  sleep 0.1
done
! ls "$T"/spool3/ftio-viarelay-* >/dev/null 2>&1 || fail "the job through the relay spooled"

$MAKE uninstall PREFIX="$P" >"$T/uninstall.log" 2>&1 || { cat "$T/uninstall.log"; fail "make uninstall PREFIX=$P"; }
left=$(find "$P" ! -type d)
[ -z "$left" ] || fail "left after uninstall: $left"
echo "ok: prefix install: systemd-analyze verify (ftiod, relay), a job through the relay unit's command to ftiod, module load, examples build, pkg-config, flush points with and without the shim (preload variable), spool analysed, uninstall clean"
