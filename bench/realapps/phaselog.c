/* SPDX-License-Identifier: BSD-3-Clause */
/* phaselog.c -- the examples' own record of their output phases (phaselog.h):
 * notes in memory, gathered to rank 0 and printed once at the end. */
#include "phaselog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "grow.h"

struct note {
    char activity[16];
    int index, rank;
    double start, end;
    long long bytes;
};

static struct note *notes;
static size_t n_notes, cap_notes;

double phaselog_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void sleep_until(double t)
{
    struct timespec ts = {.tv_sec = (time_t)t, .tv_nsec = (long)((t - (time_t)t) * 1e9)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

void phaselog_add(const char *activity, int index, double start, double end, long long bytes)
{
    if (FTIO_GROW(notes, cap_notes, n_notes + 1) < 0) {
        perror("phaselog");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    struct note *n = &notes[n_notes++];
    memset(n, 0, sizeof *n);
    snprintf(n->activity, sizeof n->activity, "%s", activity);
    MPI_Comm_rank(MPI_COMM_WORLD, &n->rank);
    n->index = index;
    n->start = start;
    n->end = end;
    n->bytes = bytes;
}

void phaselog_print(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = (int)(n_notes * sizeof(struct note));
    int *counts = NULL, *displs = NULL, total = 0;
    char *all = NULL;
    if (rank == 0) {
        counts = calloc(size, sizeof *counts);
        displs = calloc(size, sizeof *displs);
    }
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(total ? total : 1);
        if (!counts || !displs || !all) {
            perror("phaselog");
            MPI_Abort(comm, 1);
        }
    }
    MPI_Gatherv(notes, mine, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm);
    if (rank == 0) {
        const struct note *n = (const struct note *)all;
        for (int i = 0; i < total / (int)sizeof(struct note); i++)
            printf("phase %s %d %d %.6f %.6f %lld\n", n[i].activity, n[i].index, n[i].rank, n[i].start,
                   n[i].end, n[i].bytes);
        fflush(stdout);
    }
    free(counts);
    free(displs);
    free(all);
    free(notes);
    notes = NULL;
    n_notes = cap_notes = 0;
}
