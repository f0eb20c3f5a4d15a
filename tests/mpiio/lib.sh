# tests/mpiio/lib.sh -- helpers for the MPI layer's shell tests (sourced).
#
# Sets B (absolute build dir), HERE (this directory), T (a fresh mktemp -d,
# removed on exit with every background process we started), and provides
#   preload_of LIB   the LD_PRELOAD value for LIB: under `make asan` the .so
#                    links libasan, which must come first in the process
#   asan_prefix LIB  just that prefix ("" or "/path/libasan.so ")
#   run_mpi NP ...   mpirun with the flags these tests need, bounded in time;
#                    its exit status is left in $rc (never aborts the test)
#   fail MSG         print "FAIL: MSG" and exit 1
B=${FTIO_TEST_BUILD:-build}
case "$B" in /*) ;; *) B="$PWD/$B" ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
PIDS=""
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$T"
}
trap cleanup EXIT INT TERM
unset FTIO_JOB FTIO_SPOOL FTIO_DISABLE FTIO_LAYERS FTIO_EXCLUDE FTIO_FLUSH_MS FTIO_BUFFER_MB FTIO_DEBUG
export LC_ALL=C
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

fail() { echo "FAIL: $*"; exit 1; }

asan_prefix() {
    if ldd "$1" | grep -q libasan; then
        echo "$(${CC:-cc} -print-file-name=libasan.so) "
    fi
}

preload_of() { echo "$(asan_prefix "$1")$1"; }

run_mpi() {
    np=$1; shift
    rc=0
    timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" -x ASAN_OPTIONS "$@" || rc=$?
}
