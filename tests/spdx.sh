#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# suite-lane: beside   (tests/run.sh: nothing here depends on time or load)
# spdx.sh -- every tracked source file (C, headers, Fortran, shell, Python,
# make fragments, man pages, packaging templates, tools) carries the line
# "SPDX-License-Identifier: BSD-3-Clause" in its first 3 lines (mk/spdx.sh
# says which files count and adds the line: sh mk/spdx.sh --add).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
sh mk/spdx.sh --check >"$T/missing" 2>"$T/err" || bad "without the SPDX line: $(head -20 "$T/missing" | tr '\n' ' ')"
n=$(git ls-files 2>/dev/null | grep -c '\.[ch]$')
[ "${n:-0}" -gt 100 ] || bad "git ls-files lists $n C files: is this the repository?"
ok "every source file has its SPDX line ($n C files among them)"
finish
