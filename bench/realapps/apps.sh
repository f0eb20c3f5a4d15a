# SPDX-License-Identifier: BSD-3-Clause
# bench/realapps/apps.sh -- how each program of the realapps benchmark runs
# (sourced by run_one.sh).  app_NAME runs in RUNDIR/app with the shim's
# environment exported, $MPIRUN (mpirun -np $NP with LD_PRELOAD and the FTIO_*
# variables passed on), $HERE (this directory), $B and $REALAPPS_SIZE (full or
# test) set; its stdout/stderr go to RUNDIR/app.out / app.err.  Each program
# leaves the files and logs truth.py reads its truth from; the sizes are in
# one place here (full: the benchmark, ~50 s each; test: tests/realapps).
APPS="lammps gromacs fio rank0 uneven heights stagger drift hdf5"
# Programs whose files go to RUNDIR on disk instead of memory (run_one.sh).
DISK_APPS="uneven"

# size FULL TEST: the value for $REALAPPS_SIZE.
size() { if [ "$REALAPPS_SIZE" = test ]; then echo "$2"; else echo "$1"; fi; }

# LAMMPS: the LJ melt of in.melt, dumps every `dump` steps, restarts every
# `restart` steps, one file each (truth: their birth/modification times).
app_lammps() {
  echo "lammps steps=$(size 1500 1000) dump=$(size 100 50) restart=$(size 300 200)" >params
  timeout 600 $MPIRUN lmp -in "$HERE/in.melt" -var steps "$(size 1500 1000)" -var dump "$(size 100 50)" \
    -var restart "$(size 300 200)" -screen none
}

# GROMACS: a 4 nm box of SPC water (water.top, md.mdp), solvated and
# preprocessed here without the shim, then mdrun under it for a fixed wall
# time (-maxh: its speed on this shared machine varies fivefold, and so does
# the time between frames): trajectory frames appended to traj_comp.xtc every
# 500 steps, checkpoints every 6 s of wall time (-cpt 0.1: 8 of them, the
# heaviest activity), one file each (-cpnum), and one at the end.  Truth:
# the checkpoint files' times, and for the frames, which all go to one file,
# the file's modification time each time its size grows (watched every 50
# ms: the time of the frame's write, whatever the polling delay).
app_gromacs() {
  _s=$(size 55 25)
  echo "gromacs seconds=$_s nstxout-compressed=500 cpt=0.1" >params
  cp "$HERE/water.top" topol.top && cp "$HERE/md.mdp" md.mdp || return 1
  gmx_mpi -quiet solvate -cs spc216.gro -box 4 4 4 -o conf.gro -p topol.top >prep.log 2>&1 &&
    gmx_mpi -quiet grompp -f md.mdp -c conf.gro -p topol.top -o md.tpr >>prep.log 2>&1 ||
    { echo "gromacs preparation failed: $(tail -5 prep.log)" >&2; return 1; }
  # (the watcher ends with run_one.sh, $$, even when that is killed)
  ( while kill -0 $$ 2>/dev/null; do stat -c '%.9Y %s' traj_comp.xtc 2>/dev/null; sleep 0.05; done ) >xtc.sizes &
  _w=$!
  timeout 600 $MPIRUN gmx_mpi mdrun -s md.tpr -nsteps -1 -maxh "$(awk -v s="$_s" 'BEGIN { print s / 3600 }')" \
    -ntomp 1 -cpt 0.1 -cpnum
  _rc=$?
  kill $_w
  return $_rc
}

# fio: two think-time-paced write streams in one process (periodic.fio);
# truth: fio's own per-I/O completion logs (fio_bw.N.log, epoch ms).
app_fio() {
  echo "fio runtime=$(size 45 20)" >params
  RUNTIME=$(size 45 20) LD_PRELOAD=$SHIM_PRELOAD timeout 600 fio "$HERE/periodic.fio" --output-format=json \
    --output=fio.json
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
