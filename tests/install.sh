#!/bin/sh
# install.sh -- `make install` as a user would use it: install into a scratch
# prefix, build a program against the installed ftio.h through pkg-config,
# run it without the shim (flush points are no-ops) and under the installed
# libftio.so (its records land in the spool), then analyse the spool with the
# installed `ftio`.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

make -s --no-print-directory B="$B" install PREFIX="$T/prefix" >"$T/install.log" 2>&1 ||
  { cat "$T/install.log"; fail "make install"; }
P="$T/prefix"
for f in bin/ftio bin/ftiod lib/libftio.so include/ftio.h lib/pkgconfig/ftio.pc \
         share/man/man1/ftio.1 share/man/man1/ftiod.1; do
  [ -e "$P/$f" ] || fail "missing $f"
done
[ ! -e "$P/include/analysis.h" ] || fail "internal header installed"

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

PRELOAD=$(ftio_preload "$P/lib/libftio.so")
mkdir -p "$T/spool"
out=$(env LD_PRELOAD="$PRELOAD" FTIO_SPOOL=always FTIO_SPOOL_DIR="$T/spool" FTIO_JOB=inst \
      "$T/app" "$T/traced.dat")
[ "$out" = "loaded=1 flush=0" ] || fail "under the shim: $out"
ls "$T"/spool/ftio-inst-*.msgpack >/dev/null 2>&1 || fail "no spool file"

"$P/bin/ftio" --json "$T"/spool/ftio-inst-*.msgpack >"$T/result.json" || fail "ftio on the spool"
python3 - "$T/result.json" <<'PY' || fail "spool totals"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["bytes"] == 40960, r["bytes"]
assert r["records"] == 10, r["records"]
PY
echo "ok: install, pkg-config, flush points with and without the shim, spool analysed"
