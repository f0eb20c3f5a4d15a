# SPDX-License-Identifier: BSD-3-Clause
# bench/shim_env.sh -- sourced by the benchmarks that run real programs under
# mpirun with the shim (bench/realapps/run_one.sh, bench/memory/run.sh).
# shim_env: SHIM_PRELOAD (the shim; a sanitizer build, make asan, links
# libasan, which must come first in a program that is not instrumented: a
# colon list, no blanks), ASAN_OPTIONS and MPIRUN (mpirun -np $NP passing the
# shim and the FTIO_* variables on to the ranks; mpirun itself is not
# traced).
shim_env() {
  SHIM_PRELOAD="$B/lib/libftio.so"
  if ldd "$SHIM_PRELOAD" 2>/dev/null | grep -q libasan; then
    # ASan started before any other constructor: tests/shim/asan_first.c
    SHIM_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so):$(cd "$B" && pwd)/tests/asan_first.so:$SHIM_PRELOAD"
  fi
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  MPIRUN="mpirun --allow-run-as-root --oversubscribe -np $NP -x LD_PRELOAD=$SHIM_PRELOAD -x FTIO_ENDPOINT
          -x FTIO_JOB -x FTIO_AUTH -x FTIO_SPOOL -x FTIO_SPOOL_DIR -x ASAN_OPTIONS"
}
