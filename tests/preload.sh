# preload.sh -- sourced by the shell tests: LD_PRELOAD values for a shim.
#
# Under `make asan` an instrumented .so links libasan, and ASan must be the
# first object in a process whose executable is not instrumented itself.
#   ftio_asan_prefix LIB   "" or "/path/libasan.so " when LIB links libasan
#   ftio_preload LIB       the LD_PRELOAD value for LIB (prefix + LIB)
ftio_asan_prefix() {
  if ldd "$1" 2>/dev/null | grep -q libasan; then
    echo "$(${CC:-cc} -print-file-name=libasan.so) "
  fi
}

ftio_preload() { echo "$(ftio_asan_prefix "$1")$1"; }
