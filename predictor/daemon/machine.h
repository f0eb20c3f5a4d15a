/* SPDX-License-Identifier: BSD-3-Clause */
/* machine.h -- ftiod's view of the whole machine (issue 26; PROTOCOL.md §2
 * Version 4, topic `ftio.machine`): one thread that, every second, takes
 * each live job's bytes of the last seconds and its predicted phases
 * (job_machine.h), sums them per file system into the observed and the
 * predicted aggregate (forecast/forecast.h), finds the collisions, and
 * publishes the result on `ftio.machine` (and, every --machine-log s, in
 * --log).  It also holds what the jobs share: the file systems seen, the
 * observed series, the duration model's fits (the site's, one per
 * application) and the latest forecast, which the analysis threads read
 * for the load a job's next phase will meet.  Everything here is under
 * d->lock except the thread's own computation.
 */
#ifndef FTIOD_MACHINE_H
#define FTIOD_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "forecast/duration.h"
#include "forecast/forecast.h"

struct ftiod;
struct ftiod_machine;

#define MACHINE_MAX_FS   64      /* file systems the machine tells apart (more: "other") */
#define MACHINE_APPS     1024    /* applications with a duration fit of their own */
#define MACHINE_TOPIC    "ftio.machine"

/* Defaults and bounds of the options (ftiod_opts[]). */
#define MACHINE_HORIZON_DEFAULT 600    /* s predicted */
#define MACHINE_HISTORY_DEFAULT 300    /* s observed */
#define MACHINE_LOG_DEFAULT     60     /* s between machine messages in --log */
#define MACHINE_JOBS_DEFAULT    64     /* jobs listed with their phases per message */

struct ftiod_machine *ftiod_machine_new(double horizon, double history);
void ftiod_machine_free(struct ftiod_machine *m);
/* The thread: started after the analysis threads, stopped before. */
int  ftiod_machine_start(struct ftiod *d);
void ftiod_machine_stop(struct ftiod *d);

/* The machine's index of a file system name (registered on first sight;
 * "unknown" for NULL; "other" past MACHINE_MAX_FS), and its name. */
int  ftiod_machine_fs(struct ftiod_machine *m, const char *name);
const char *ftiod_machine_fs_name(const struct ftiod_machine *m, int fs);
/* Bytes every job moved on fs (both modes) in [a, b] (Unix s), from the
 * observed series; NAN when [a, b] is not inside what it holds complete. */
double ftiod_machine_observed(const struct ftiod_machine *m, int fs, double a, double b);
/* Unix s up to which the observed series is complete. */
double ftiod_machine_complete(const struct ftiod_machine *m);
/* Mean B/s the latest forecast expects on fs over [a, b]; NAN without one. */
double ftiod_machine_expected(const struct ftiod_machine *m, int fs, double a, double b);
/* The duration model's fits: the site's, and an application's (NULL for
 * app 0 or when the table is full of others). */
struct ftio_dm_fit *ftiod_machine_site_fit(struct ftiod_machine *m);
struct ftio_dm_fit *ftiod_machine_app_fit(struct ftiod_machine *m, uint64_t app);
/* A prediction was published `latency` s after its boundary was due
 * (the analysis latency histogram of the metrics). */
void ftiod_machine_note_latency(struct ftiod_machine *m, double latency);

/* The control socket's `machine` request: the last machine message (an
 * admin's: as published; a user's: the totals and their own jobs' phases
 * only).  Takes d->lock.  New reference. */
json_t *ftiod_machine_view(struct ftiod *d, bool admin, int64_t uid);

/* The metrics of the machine view in the Prometheus text format, appended
 * to f (metrics.c; caller holds d->lock), and the records merged per
 * second over the last tick. */
void   ftiod_machine_metrics(const struct ftiod_machine *m, FILE *f);
double ftiod_machine_records_rate(const struct ftiod_machine *m);

#endif
