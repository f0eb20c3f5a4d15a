/* SPDX-License-Identifier: BSD-3-Clause */
/* job_machine.h -- what ftiod keeps of each job for the machine view
 * (issue 26; PROTOCOL.md §2 Version 4): its phases described
 * (forecast/phase_track.h), the file systems its files live on (the third
 * element of a batch's `files` entries), its bytes of the last seconds for
 * the machine's observed aggregate, and per mode the duration model's view
 * of it and its predicted next phase.
 *
 * Kept apart from job.c, sched_step.c and prediction_json.c, which call it
 * in one place each: job_merge() hands every merged batch's records to
 * job_machine_data() (per process, per record: O(1), no allocation after
 * the process's first batch); the analysis thread calls
 * job_machine_step() after each analysis of (job, mode), with the lock
 * held (the phases the data has passed are described, those confirmed
 * teach the duration model, the next one is predicted);
 * ftiod_prediction_json() adds job_machine_json()'s fields.  The machine
 * thread (machine.c) reads the jobs through job_machine_drain() and
 * job_machine_trains().  Memory: the phase tracker's per-process state,
 * the last JM_OBS seconds of bytes, a few file systems: it does not grow
 * with the records or the job's length.
 */
#ifndef FTIOD_JOB_MACHINE_H
#define FTIOD_JOB_MACHINE_H

#include <jansson.h>
#include "batch_requests.h"
#include "forecast/duration.h"
#include "forecast/forecast.h"
#include "forecast/phase_track.h"
#include "job.h"

#define JM_FS       4      /* file systems of one job (beyond: unknown) */
#define JM_OBS      8      /* seconds of its bytes kept for the machine thread */
#define JM_FILES    256    /* file id -> file system cache, jobs on >= 2 file systems */
#define JM_PATTERNS 32     /* activity pattern -> file system */

struct ftiod_machine;

/* Bytes of one wall-clock second per mode and file system (slot JM_FS:
 * unknown). */
struct jm_obs {
    int64_t sec;           /* Unix second; 0: empty */
    double  bytes[JOB_NMODES][JM_FS + 1];
};

struct jm_mode {
    struct ftio_dm_job *dm;            /* once a phase was confirmed */
    bool   has_typical;
    struct ftio_pt_phase typical;      /* start 0, end its duration */
    bool   has_pred;
    struct ftio_dm_prediction pred;    /* of the phase at next_start */
    double next_start;                 /* job-relative s */
    double next_load;                  /* B/s of the others predicted during it */
};

struct job_machine {
    struct ftio_pt pt;
    char    *fs_name[JM_FS];           /* "TYPE:MOUNTPOINT" */
    size_t   nfs;
    int      gfs[JM_FS + 1];           /* the machine's index of each (machine.c), -1 before */
    uint32_t *fkey;                    /* fid -> fs slot, direct-mapped (NULL: one fs) */
    uint8_t  *fval;
    struct { uint64_t hash; uint8_t fs; } pat[JM_PATTERNS];
    size_t   npat;
    struct jm_obs obs[JM_OBS];
    double   obs_late;                 /* bytes too old (or too new) for the observed series */
    uint64_t app;                      /* hash of its application identity, 0: unknown */
    struct jm_mode mode[JOB_NMODES];
};

void   job_machine_free(struct job_machine *m);
size_t job_machine_memory(const struct job *j);

/* A batch's application identity and file entries alone (its records are
 * held: job_clock.c; they come through job_machine_begin() later). */
struct job_machine *job_machine_files(struct job *j, const struct ftio_batch *b,
                                      const struct job_limits *lim);
/* job.c's merge of batch b (anchor corrected) of process p hands the
 * machine view each record as it converts it (one conversion for both):
 * job_machine_begin() (false: nothing of this batch goes there, no record
 * placed in time before the job's first data), then per record in the
 * batch's order job_machine_data() for a data request (ts, te: job
 * seconds) or job_machine_other() for one that is not (metadata), then
 * job_machine_end(). */
struct job_machine_batch {
    struct job_machine *m;
    size_t proc;                       /* the process's index in the phase tracker */
    struct ftio_batch_clock clk;
    double horizon;
    int64_t origin_ns;
};
bool job_machine_begin(struct job *j, struct job_proc *p, const struct ftio_batch *b,
                       const struct job_limits *lim, struct job_machine_batch *mb);
void job_machine_data(struct job_machine_batch *mb, const struct ftio_record *r,
                      const struct ftio_wall_request *q, double ts, double te);
void job_machine_other(struct job_machine_batch *mb, const struct ftio_record *r,
                       const struct ftio_convert_options *co);
void job_machine_end(struct job_machine_batch *mb, const struct ftio_batch *b);

/* sched_step.c, lock held: (j, mode) was analysed at boundary b (its
 * update is in j->mode[mode]); b INFINITY at the job's end. */
void job_machine_step(struct ftiod_machine *mc, struct job *j, int mode, double b);

/* prediction_json.c: the `phase` and `next` fields of (j, mode) into o,
 * whose times are epoch s (origin added). */
void job_machine_json(const struct job *j, int mode, double origin, json_t *o);

/* machine.c, lock held: move the complete seconds (before `before`, Unix
 * s) of j's bytes to add(ctx, global fs, mode, second, bytes). */
void job_machine_drain(struct job *j, struct ftiod_machine *mc, int64_t before,
                       void (*add)(void *ctx, int fs, int mode, int64_t sec, double bytes),
                       void *ctx);
/* machine.c, lock held: j's predicted phase trains (epoch s) at `now`,
 * at most max, job index `idx`; returns how many. */
size_t job_machine_trains(const struct job *j, struct ftiod_machine *mc, uint32_t idx,
                          double now, struct ftio_fc_train *out, size_t max);
/* The machine's index of j's file system slot (JM_FS: unknown). */
int job_machine_gfs(const struct job *j, struct ftiod_machine *mc, int slot);
/* The file system slot of an activity's pattern (dflt when unknown). */
int job_machine_fs_of_pattern(const struct job_machine *m, const char *pattern, int dflt);

#endif
