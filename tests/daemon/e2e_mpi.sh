#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# End to end under mpirun: 4 ranks of the checkpoint mini-app (compute 3 s +
# a collective MPI-IO checkpoint, 8 times) under libftio.so stream to ftiod.
# After at most 6 phases a published period is within 5 % of the true one
# (the median interval between the checkpoints' own start times, which the
# app prints) with class periodic or uncertain; the
# final summary is too; the job has 4 ranks and every write record once
# (nested POSIX records under MPI-IO are not counted twice: bytes = 8 x 4 x 32 MiB).
# Bursts are 32 MiB per rank so that they last a few samples: a burst much
# shorter than 1/fs makes a spike train, whose harmonics all have the same
# power, and the z-score test of ALGORITHM.md §3 then needs ~9 periods.
. "$(dirname "$0")/../lib.sh"
checkpoint_job e2e-mpi -n 8 -c 3 -b 32M
P=$(phase_period "$T/app.out" checkpoint) || fail "no phase times in the app's output"
echo "true period $P s"
jsonl "$T/d.log" "'\n'.join('%5.1f s  period %-8s %-8s records %d' % (m['window']['end'] - min(x['window']['start'] for x in all_of('ftio.$JOB.write')), m['period'] and round(m['period'], 3), m['class'], m['records']) for m in all_of('ftio.$JOB.write'))"
# Published with data of at most 6 phases (window end < 5.5 periods after the start).
ok=$(jsonl "$T/d.log" "(lambda P, w: any(m['period'] and abs(m['period'] - P) <= 0.05 * P and m['class'] in ('periodic', 'uncertain') and m['window']['end'] - min(x['window']['start'] for x in w) < 5.5 * P for m in w))($P, all_of('ftio.$JOB.write'))")
[ "$ok" = True ] || fail "no correct period within the first 6 phases"
final=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['period']")
cls=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['class']")
echo "final: period $final ($cls)"
close 0.05 "$final" "$P" || fail "final period $final vs $P"
[ "$cls" = periodic ] || [ "$cls" = uncertain ] || fail "final class $cls"
ranks=$(jsonl "$T/d.log" "last('ftio.$JOB.end')['summary']['write']['ranks']")
bytes=$(jsonl "$T/d.log" "int(last('ftio.$JOB.end')['summary']['write']['bytes'])")
[ "$ranks" = 4 ] || fail "ranks $ranks"
[ "$bytes" = $((8 * 4 * 33554432)) ] || fail "bytes $bytes, expected $((8 * 4 * 33554432))"
echo ok
