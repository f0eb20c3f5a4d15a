#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mk/spdx.sh [--check|--add] -- the SPDX licence line of every source file.
#   --check (default)  list the tracked source files without it in their
#                      first 3 lines; exit 1 if any (tests/spdx.sh)
#   --add              insert it where it is missing: the first line, or the
#                      second after a "#!" or "#%Module" line
# Source files: C and headers, Fortran, shell, Python, make fragments and the
# Makefile, man pages, the packaging/ templates and tools/ scripts.  Not:
# test data, documentation, packaging/ftiod.conf (what `ftiod --print-config`
# prints, compared byte for byte by tests/cli/options.sh).
set -u
cd "$(dirname "$0")/.." || exit 2
ID="SPDX-License-Identifier: BSD-3-Clause"
what=${1:---check}

files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files
  else
    find . -type f ! -path './build*' ! -path './.git/*' | sed 's|^\./||'
  fi | while IFS= read -r f; do
    case $f in
      tests/data/*|packaging/ftiod.conf) continue ;;
      *.c|*.h|*.f90|*.sh|*.py|*.mk|Makefile|*.[1-8]|*.in|packaging/*|tools/*) ;;
      *) continue ;;
    esac
    [ -f "$f" ] && printf '%s\n' "$f"
  done
}

# The comment line for file $1.
line() {
  case $1 in
    *.c|*.h) echo "/* $ID */" ;;
    *.f90) echo "! $ID" ;;
    *.[1-8]) echo ".\\\" $ID" ;;
    *) echo "# $ID" ;;
  esac
}

missing=0
for f in $(files); do
  head -3 "$f" | grep -q "$ID" && continue
  if [ "$what" = --add ]; then
    l=$(line "$f")
    case $(head -c 2 "$f") in
      '#!'|'#%') { head -1 "$f"; printf '%s\n' "$l"; tail -n +2 "$f"; } >"$f.spdx" ;;
      *) { printf '%s\n' "$l"; cat "$f"; } >"$f.spdx" ;;
    esac
    chmod --reference="$f" "$f.spdx" && mv "$f.spdx" "$f" || exit 1
  else
    echo "$f"
  fi
  missing=$((missing + 1))
done
if [ "$what" = --add ]; then
  echo "spdx: added the line to $missing files"
elif [ $missing -gt 0 ]; then
  echo "spdx: $missing source files without '$ID' in their first 3 lines (sh mk/spdx.sh --add)" >&2
  exit 1
fi
exit 0
