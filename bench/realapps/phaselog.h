/* SPDX-License-Identifier: BSD-3-Clause */
/* phaselog.h -- the truth of the realapps examples (shapes.c, h5out.c): each
 * rank notes when each of its output phases started and ended (CLOCK_REALTIME,
 * the clock ftiod's messages use) and how many bytes it wrote; at the end rank
 * 0 prints every rank's notes, one line each,
 *     phase ACTIVITY INDEX RANK START END BYTES
 * which bench/realapps/truth.py reads.  Kept in memory until then, so that
 * the truth does not add I/O of its own to the phases it describes. */
#ifndef REALAPPS_PHASELOG_H
#define REALAPPS_PHASELOG_H
#include <mpi.h>

double phaselog_now(void);          /* CLOCK_REALTIME in seconds */
void phaselog_add(const char *activity, int index, double start, double end, long long bytes);
void phaselog_print(MPI_Comm comm); /* collective: rank 0 prints everything */
/* sleep_until: the "computation" of the examples: sleep to an absolute
 * CLOCK_REALTIME deadline (seconds). */
void sleep_until(double t);

#endif
