#!/bin/sh
# Installs the Debian packages ftio needs, but only those that are missing, so
# that `make check` / `make demo` work on a fresh Debian machine (run as root).
PKGS="build-essential pkg-config iproute2 libfftw3-dev libzmq3-dev libmsgpack-dev libjansson-dev
      zlib1g-dev libbz2-dev libmunge-dev munge libsodium-dev libopenmpi-dev openmpi-bin check python3 python3-zmq"
# The install test (tests/install.sh) checks the site files with their tools:
# logrotate -d, modulecmd (environment-modules), systemd-analyze verify, man.
PKGS="$PKGS logrotate environment-modules systemd man-db"
# chromium: the browser test of the pictures (tests/plot/browser.sh).
PKGS="$PKGS chromium"
# libslurm-dev (<slurm/spank.h>) builds the SPANK plugin (slurm/); slurmctld,
# slurmd and slurm-client run it in tests/slurm/spank.sh.
PKGS="$PKGS libslurm-dev slurmctld slurmd slurm-client"
# The realapps benchmark and its tests (bench/realapps/, tests/realapps/) run
# real programs under the shim: LAMMPS (lmp), GROMACS (gmx_mpi), fio, and our
# HDF5 example built with Debian's parallel HDF5 (h5pcc).
PKGS="$PKGS lammps gromacs fio libhdf5-openmpi-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing missing Debian packages:$missing"
if [ "$(id -u)" != 0 ]; then
  echo "deps: not root; install them with: apt-get install$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing
