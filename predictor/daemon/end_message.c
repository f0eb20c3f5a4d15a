/* SPDX-License-Identifier: BSD-3-Clause */
/* end_message.c -- the end of a job (PROTOCOL.md §2): the `ftio.<job>.end`
 * message, with the summary of each mode and of each of its activities
 * (sched_step.c analysed the whole job when its processes were done; a
 * stopping daemon says the latest answers, as they were published), what
 * the summary is worth (`complete`), how the job ended and its losses, and
 * when it was made; then the job is closed: kept --late-batches seconds for
 * a corrected end (the next `revision`), remembered for --status and `ftio
 * sub --last` (status.c) and in its journal (state.c).
 */
#include <stdlib.h>
#include <string.h>
#include "history_glue.h"
#include "sched.h"
#include "timeutil.h"

/* The "summary" object: the latest answer of each mode that has one, as
 * its text was kept (job.h: said) when it was made -- a summary of the
 * whole job (sched_step.c), or for a stopping daemon the latest prediction
 * as published -- and built again only where none is (a prior of the
 * memory of runs published since): a stopping daemon does not make the JSON
 * of 10,000 summaries within its bound.  malloc'd, or NULL out of memory.
 * Lock held. */
static char *latest_summary_text(const struct job *j)
{
    char *parts[JOB_NMODES] = {0};
    const char *text[JOB_NMODES] = {0};
    size_t len[JOB_NMODES] = {0}, total = 2;
    bool ok = true;
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        const struct job_mode_state *m = &j->mode[mode];
        if (!job_mode_update(m))
            continue;
        if (m->said && m->said_seq == m->pub_seq) {
            text[mode] = m->said;
            len[mode] = m->said_len;
        } else {
            json_t *p = ftiod_prediction_json(j, mode);
            parts[mode] = p ? json_dumps(p, JSON_COMPACT) : NULL;
            json_decref(p);
            ok &= parts[mode] != NULL;
            text[mode] = parts[mode];
            len[mode] = parts[mode] ? strlen(parts[mode]) : 0;
        }
        total += len[mode] + strlen(job_mode_name(mode)) + 4;
    }
    char *out = ok ? malloc(total + 1) : NULL;
    if (out) {
        size_t n = 0;
        out[n++] = '{';
        for (int mode = 0; mode < JOB_NMODES; mode++) {
            if (!text[mode])
                continue;
            n += (size_t)sprintf(out + n, "%s\"%s\":", n > 1 ? "," : "", job_mode_name(mode));
            memcpy(out + n, text[mode], len[mode]);
            n += len[mode];
        }
        out[n++] = '}';
        out[n] = '\0';
    }
    for (int mode = 0; mode < JOB_NMODES; mode++)
        free(parts[mode]);
    return out;
}

/* The text of the end message o, whose "summary" is null, with `summary` in
 * its place (the first "summary":null is the key's: a string value has its
 * quotes escaped).  malloc'd, or NULL. */
static char *with_summary(const json_t *o, const char *summary)
{
    static const char key[] = "\"summary\":";
    char *text = json_dumps(o, JSON_COMPACT);
    char *at = text ? strstr(text, "\"summary\":null") : NULL;
    if (!at) {
        free(text);
        return NULL;
    }
    size_t head = (size_t)(at - text) + sizeof key - 1, slen = strlen(summary);
    const char *rest = at + sizeof key - 1 + 4;
    size_t rlen = strlen(rest);
    char *out = malloc(head + slen + rlen + 1);
    if (out) {
        memcpy(out, text, head);
        memcpy(out + head, summary, slen);
        memcpy(out + head + slen, rest, rlen + 1);
    }
    free(text);
    return out;
}

/* Caller holds the lock; it is dropped while publishing. */
void ftiod_end_message(struct ftiod *d, struct job *j, const char *why)
{
    ftiod_history_end(d, j);   /* the run, into the memory of runs (history_glue.h) */
    json_t *o = json_object();
    ftiod_set_job_fields(o, j->id);
    /* The summaries' texts (made with them, sched_step.c) go in its place. */
    char *summary = latest_summary_text(j);
    json_object_set_new(o, "summary", json_null());
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
    char *text = topic && summary ? with_summary(o, summary) : NULL;
    json_decref(o);
    if (!text)
        ftiod_log_at(FTIOD_ERROR, "job %s: its end message is lost: out of memory", j->id);
    if (text && !d->stop)    /* a stopping daemon answers no more --status */
        ftiod_ended_add(d, j, text);
    ftiod_state_end(d->state, j, j->revision, why);
    snprintf(j->ended_by, sizeof j->ended_by, "%s", why);
    j->closed = true;
    j->reopened = false;
    j->told = false;
    j->closed_at = ftiod_now();
    j->revision++;
    pthread_mutex_unlock(&d->lock);
    if (text)
        ftiod_publish_text(d, topic, text, strlen(text), FTIOD_PUB_LOG | FTIOD_PUB_COUNT);
    free(text);
    free(summary);
    free(topic);
    ftiod_lock_analysis(d);
}
