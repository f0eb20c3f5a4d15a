# tests/mpiio/lib.sh -- helpers for the MPI layer's shell tests (sourced).
#
# Sets B (absolute build dir), HERE (this directory), T (a fresh mktemp -d,
# removed on exit with every background process we started), and provides
#   ftio_preload LIB, ftio_asan_prefix LIB   from tests/preload.sh
#   run_mpi NP ...   mpirun with the flags these tests need, bounded in time;
#                    its exit status is left in $rc (never aborts the test)
#   fail MSG         print "FAIL: MSG" and exit 1
B=${FTIO_TEST_BUILD:-build}
case "$B" in /*) ;; *) B="$PWD/$B" ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../preload.sh"
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


run_mpi() {
    np=$1; shift
    rc=0
    timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" -x ASAN_OPTIONS "$@" || rc=$?
}
