# SPDX-License-Identifier: BSD-3-Clause
# bench/memory/apps.sh -- the programs of the memory benchmark (sourced by
# run.sh): the realapps benchmark's real programs and examples
# (bench/realapps/: their inputs, and truth.py reads their files and logs),
# each in two versions: as before (`same`) and with a changed output interval
# (`changed`), the way users change an input between runs:
#   rank0    our MPI example (shapes rank0), -c 3 -> -c 5: the arguments
#            change only by their numbers (found by args_norm)
#   lammps   -var dump 50 -> 75: the same, a real code
#   gromacs  nstxout-compressed 500 -> 1000 in the .mdp, the same mdrun
#            command line (found by its exact arguments: the prior is wrong
#            and must hand over)
#   fio      the checkpoint stream's think time 3 s -> 4.5 s, another job
#            file (found by the program alone)
#   heights  (the archive's program) shapes heights, two activities
# app_NAME VERSION runs in RUNDIR/app with $MPIRUN, $HERE (bench/memory),
# $REAL (bench/realapps), $B set, and leaves RUNDIR/app/params for truth.py.
ALL_MEMORY_APPS="rank0 lammps gromacs fio"

app_rank0() {
  _c=3; [ "$1" = changed ] && _c=5
  echo "shapes rank0 -n 8 -c $_c -b 16M" >params
  timeout 600 $MPIRUN "$B/bench/realapps/shapes" rank0 -n 8 -c "$_c" -b 16M
}

app_lammps() {
  _d=50; [ "$1" = changed ] && _d=75
  echo "lammps steps=1000 dump=$_d restart=200" >params
  timeout 600 $MPIRUN lmp -in "$REAL/in.melt" -var steps 1000 -var dump "$_d" -var restart 200 -screen none
}

app_gromacs() {
  _x=500; [ "$1" = changed ] && _x=1000
  echo "gromacs seconds=30 nstxout-compressed=$_x cpt=0.1" >params
  cp "$REAL/water.top" topol.top &&
    sed "s/^nstxout-compressed .*/nstxout-compressed = $_x/" "$REAL/md.mdp" >md.mdp || return 1
  gmx_mpi -quiet solvate -cs spc216.gro -box 4 4 4 -o conf.gro -p topol.top >prep.log 2>&1 &&
    gmx_mpi -quiet grompp -f md.mdp -c conf.gro -p topol.top -o md.tpr >>prep.log 2>&1 ||
    { echo "gromacs preparation failed: $(tail -5 prep.log)" >&2; return 1; }
  ( while kill -0 $$ 2>/dev/null; do stat -c '%.9Y %s' traj_comp.xtc 2>/dev/null; sleep 0.05; done ) >xtc.sizes &
  _w=$!
  timeout 600 $MPIRUN gmx_mpi mdrun -s md.tpr -nsteps -1 -maxh "$(awk 'BEGIN { print 30 / 3600 }')" \
    -ntomp 1 -cpt 0.1 -cpnum
  _rc=$?
  kill $_w
  return $_rc
}

# fio's job files: the realapps one, and one whose checkpoints think 4.5 s
# (both outside the run directories, so that the same version has the same
# arguments every run)
app_fio() {
  _f="$OUT/periodic.fio"
  [ "$1" = changed ] && _f="$OUT/periodic-slow.fio"
  [ -f "$OUT/periodic.fio" ] || cp "$REAL/periodic.fio" "$OUT/periodic.fio"
  [ -f "$OUT/periodic-slow.fio" ] ||
    sed 's/^thinktime=3s/thinktime=4500ms/' "$REAL/periodic.fio" >"$OUT/periodic-slow.fio"
  echo "fio runtime=30" >params
  RUNTIME=30 LD_PRELOAD=$SHIM_PRELOAD timeout 600 fio "$_f" --output-format=json --output=fio.json
}

app_heights() {
  echo "shapes heights -n 9 -c 3 -b 8M" >params
  timeout 600 $MPIRUN "$B/bench/realapps/shapes" heights -n 9 -c 3 -b 8M
}
