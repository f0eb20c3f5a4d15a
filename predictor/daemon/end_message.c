/* SPDX-License-Identifier: BSD-3-Clause */
/* end_message.c -- the end of a job (PROTOCOL.md §2): the `ftio.<job>.end`
 * message, with the summary of each mode and of each of its activities
 * (sched_step.c analysed the whole job just before; a stopping daemon says
 * the latest answers), what the summary is worth (`complete`), how the job
 * ended and its losses, and when it was made; then the job is closed: kept --late-batches seconds
 * for a corrected end (the next `revision`), remembered for --status and
 * `ftio sub --last` (status.c) and in its journal (state.c).
 */
#include <stdlib.h>
#include "history_glue.h"
#include "sched.h"
#include "timeutil.h"

/* Caller holds the lock; it is dropped while publishing. */
void ftiod_end_message(struct ftiod *d, struct job *j, const char *why)
{
    ftiod_history_end(d, j);   /* the run, into the memory of runs (history_glue.h) */
    json_t *o = json_object();
    json_t *sum = json_object();
    ftiod_set_job_fields(o, j->id);
    for (int mode = 0; mode < JOB_NMODES; mode++)
        if (job_mode_update(&j->mode[mode]))
            json_object_set_new(sum, job_mode_name(mode), ftiod_prediction_json(j, mode));
    json_object_set_new(o, "summary", sum);
    /* What the summary is worth (PROTOCOL.md §2): decided by job.c. */
    struct job_verdict v = job_end_verdict(j, why);
    why = v.ended_by;
    uint64_t without_final = j->nprocs - j->nfinal;
    json_object_set_new(o, "complete", json_boolean(v.complete));
    json_object_set_new(o, "incomplete", v.reason ? json_string(v.reason) : json_null());
    json_object_set_new(o, "ended_by", json_string(why));
    json_object_set_new(o, "missing_batches", json_integer((json_int_t)j->lost_batches));
    json_object_set_new(o, "lost_records", json_integer((json_int_t)j->lost));
    json_t *unseen = json_object();          /* the kernel cross-check, per mode */
    for (int mode = 0; mode < JOB_NMODES; mode++)
        json_object_set_new(unseen, job_mode_name(mode), json_integer((json_int_t)j->unseen[mode]));
    json_object_set_new(o, "unseen_bytes", unseen);
    json_t *dropped = json_object();
    for (int k = 0; k < JOB_NDROPS; k++)
        json_object_set_new(dropped, job_drop_name(k), json_integer((json_int_t)j->dropped[k]));
    json_object_set_new(o, "dropped_records", dropped);
    json_object_set_new(o, "counters_clamped", json_boolean(j->clamped));
    json_object_set_new(o, "clocks_corrected", json_integer((json_int_t)j->clock_fixed));
    json_object_set_new(o, "clocks_flagged", json_integer((json_int_t)j->clock_flagged));
    json_object_set_new(o, "processes", json_integer((json_int_t)j->nprocs));
    json_object_set_new(o, "processes_without_final", json_integer((json_int_t)without_final));
    json_object_set_new(o, "revision", json_integer((json_int_t)j->revision));
    json_object_set_new(o, "time", json_real((double)ftio_real_ns() * 1e-9));
    json_object_set_new(o, "bytes", json_real(j->bytes));
    char *topic = ftiod_topic_of(j->id, "end");
    if (d->cfg.verbose || j->revision)
        ftiod_log("job %s: ended (%s%s): %llu records, %llu lost, %llu batches missing",
                  j->id, why, j->revision ? ", corrected by late batches" : "",
                  (unsigned long long)j->data_records,
                  (unsigned long long)j->lost, (unsigned long long)j->lost_batches);
    ftiod_ended_add(d, j, o);
    ftiod_state_end(d->state, j, j->revision, why);
    snprintf(j->ended_by, sizeof j->ended_by, "%s", why);
    j->closed = true;
    j->reopened = false;
    j->told = false;
    j->closed_at = ftiod_now();
    j->revision++;
    pthread_mutex_unlock(&d->lock);
    if (topic)
        ftiod_publish(d, topic, o);
    else
        json_decref(o);
    free(topic);
    pthread_mutex_lock(&d->lock);
}
