# bench/realapps/apps.sh -- how each program of the realapps benchmark runs
# (sourced by run_one.sh).  app_NAME runs in RUNDIR/app with the shim's
# environment exported, $MPIRUN (mpirun -np $NP with LD_PRELOAD and the FTIO_*
# variables passed on), $HERE (this directory), $B and $REALAPPS_SIZE (full or
# test) set; its stdout/stderr go to RUNDIR/app.out / app.err.  Each program
# leaves the files and logs truth.py reads its truth from; the sizes are in
# one place here (full: the benchmark, ~50 s each; test: tests/realapps).
APPS="lammps rank0 uneven heights stagger drift hdf5"
# Programs whose files go to RUNDIR on disk instead of memory (run_one.sh).
DISK_APPS="uneven"

# size FULL TEST: the value for $REALAPPS_SIZE.
size() { if [ "$REALAPPS_SIZE" = test ]; then echo "$2"; else echo "$1"; fi; }

# LAMMPS: the LJ melt of in.melt, dumps every `dump` steps, restarts every
# `restart` steps, one file each (truth: their birth/modification times).
app_lammps() {
  echo "lammps steps=$(size 1500 600) dump=$(size 100 50) restart=$(size 300 200)" >params
  timeout 600 $MPIRUN lmp -in "$HERE/in.melt" -var steps "$(size 1500 600)" -var dump "$(size 100 50)" \
    -var restart "$(size 300 200)" -screen none
}

# Our examples (shapes.c, h5out.c): "compute" (sleep) then write, every rank
# noting its own phase times (truth: the phase lines on stdout).
app_shape() {
  _a="-n $(size 15 10) -c $(size 3 1.5) -b $(size 16M 8M)"
  echo "shapes $1 $_a" >params
  timeout 600 $MPIRUN "$B/bench/realapps/shapes" "$1" $_a
}
app_rank0() { app_shape rank0; }
app_uneven() { app_shape uneven; }
app_heights() { app_shape heights; }
app_stagger() { app_shape stagger; }
app_drift() { app_shape drift; }
app_hdf5() {
  _a="-n $(size 15 10) -c $(size 3 1.5) -m $(size 16 8)"
  echo "h5out $_a" >params
  timeout 600 $MPIRUN "$B/bench/realapps/h5out" $_a
}
