#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mk/deps.sh [demo|check] -- installs the Debian packages ftio needs, but only
# those that are missing, on a fresh Debian machine (run as root).
#   demo    what `make demo` needs: the build of ftiod, ftio, libftio.so and
#           the MPI example, and MPI to run it (Makefile: deps-demo)
#   check   (default) that and everything the tests run (Makefile: deps)
set -u
what=${1:-check}
# The build: compiler, the libraries ftio links, MPI (libftio.so's MPI-IO
# layer, the examples), python3 (the demo's summary and the tests' checks);
# libmicrohttpd-dev: ftiod's Prometheus endpoint (--metrics-listen), a
# maintained HTTP server rather than a parser of our own.
# SQLite and libpq: the stores of ftiod's memory of runs (predictor/history/).
DEMO="build-essential pkg-config libfftw3-dev libzmq3-dev libmsgpack-dev libjansson-dev
      zlib1g-dev libbz2-dev libmunge-dev libsodium-dev libopenmpi-dev openmpi-bin python3
      libmicrohttpd-dev libsqlite3-dev libpq-dev"
# The tests: Check (unit tests), munged (authentication tests), pyzmq (test
# subscribers), iproute2 (ss: sockets of a test's daemon).
CHECK="$DEMO check munge python3-zmq iproute2"
# The install test (tests/install.sh) checks the site files with their tools:
# logrotate -d, modulecmd (environment-modules), systemd-analyze verify, man.
CHECK="$CHECK logrotate environment-modules systemd man-db"
# chromium: the browser test of the pictures (tests/plot/browser.sh).
CHECK="$CHECK chromium"
# prometheus: scrapes ftiod's --metrics-listen in tests/forecast/metrics_prometheus.sh.
CHECK="$CHECK prometheus"
# libslurm-dev (<slurm/spank.h>) builds the SPANK plugin (slurm/); slurmctld,
# slurmd and slurm-client run it in tests/slurm/spank.sh.
CHECK="$CHECK libslurm-dev slurmctld slurmd slurm-client"
# The realapps benchmark and its tests (bench/realapps/, tests/realapps/) run
# real programs under the shim: LAMMPS (lmp), GROMACS (gmx_mpi), fio, and our
# HDF5 example built with Debian's parallel HDF5 (h5pcc).
CHECK="$CHECK lammps gromacs fio libhdf5-openmpi-dev"
# The shim's tests of what libc and libstdc++ open (tests/shim/every_byte.sh):
# PyTorch's torch.save(obj, path) writes through a C++ stream (python3-torch,
# run with Debian's /usr/bin/python3); stress-ng loads the machine for the
# burst test's repetitions.
CHECK="$CHECK python3-torch stress-ng"
# The memory of runs shared by several daemons: a real PostgreSQL server that
# tests/history/postgres.sh starts itself (initdb, pg_ctl); sqlite3 to look
# into and lock a store from the tests.
CHECK="$CHECK postgresql sqlite3"
case $what in
  demo)  PKGS=$DEMO ;;
  check) PKGS=$CHECK ;;
  *)     echo "usage: sh mk/deps.sh [demo|check]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing missing Debian packages ($what):$missing"
if [ "$(id -u)" != 0 ]; then
  echo "deps: not root; install them with: apt-get install$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt (an unattended upgrade, a second checkout's build) may hold the
# lock: wait for it rather than fail.
lock="-o DPkg::Lock::Timeout=900"
apt-get $lock update -qq && apt-get $lock install -y -qq --no-install-recommends $missing
