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

/* The "summary" object's parts: the latest answer of each mode that has
 * one, as its text was kept (job.h: said) when it was made -- a summary of
 * the whole job (sched_step.c), or for a stopping daemon the latest
 * prediction as published -- and built again only where none is (a prior
 * of the memory of runs published since, `made`, malloc'd): a stopping
 * daemon does not make the JSON of 10,000 summaries within its bound. */
struct summary_parts {
    const char *text[JOB_NMODES];   /* NULL: the mode says nothing */
    size_t len[JOB_NMODES];
    char *made[JOB_NMODES];
};

/* Fills s; false out of memory (free_parts() still to be called).  Lock
 * held. */
static bool summary_parts(const struct job *j, struct summary_parts *s)
{
    bool ok = true;
    *s = (struct summary_parts){0};
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        const struct job_mode_state *m = &j->mode[mode];
        if (!job_mode_update(m))
            continue;
        if (m->said && m->said_seq == m->pub_seq) {
            s->text[mode] = m->said;
            s->len[mode] = m->said_len;
        } else {
            json_t *p = ftiod_prediction_json(j, mode);
            s->made[mode] = p ? json_dumps(p, JSON_COMPACT) : NULL;
            json_decref(p);
            ok &= s->made[mode] != NULL;
            s->text[mode] = s->made[mode];
            s->len[mode] = s->made[mode] ? strlen(s->made[mode]) : 0;
        }
    }
    return ok;
}

static void free_parts(struct summary_parts *s)
{
    for (int mode = 0; mode < JOB_NMODES; mode++)
        free(s->made[mode]);
}

/* The summary object {"<mode>":<text>,...} written at out (NULL: only
 * measured); its length. */
static size_t put_summary(const struct summary_parts *s, char *out)
{
    size_t n = 0;
    bool first = true;
#define PUT(p, k) do { if (out) memcpy(out + n, (p), (k)); n += (k); } while (0)
    PUT("{", 1);
    for (int mode = 0; mode < JOB_NMODES; mode++) {
        if (!s->text[mode])
            continue;
        const char *name = job_mode_name(mode);
        PUT(first ? "\"" : ",\"", first ? 1u : 2u);
        PUT(name, strlen(name));
        PUT("\":", 2);
        PUT(s->text[mode], s->len[mode]);
        first = false;
    }
    PUT("}", 1);
#undef PUT
    return n;
}

/* The text of the end message o, whose "summary" is null, with the summary
 * of s in its place (the first "summary":null is the key's: a string value
 * has its quotes escaped), made in one buffer: o is dumped on the stack
 * when it fits, and the summaries' texts (KBs each) are copied once, into
 * the message.  malloc'd, or NULL. */
static char *with_summary(const json_t *o, const struct summary_parts *s)
{
    static const char key[] = "\"summary\":", null[] = "\"summary\":null";
    char stack[2048], *head = stack;
    size_t hlen = json_dumpb(o, stack, sizeof stack - 1, JSON_COMPACT);
    if (hlen >= sizeof stack - 1 && (head = malloc(hlen + 1)) != NULL)
        hlen = json_dumpb(o, head, hlen, JSON_COMPACT);
    char *out = NULL, *at = NULL;
    if (head && hlen > 0) {
        head[hlen] = '\0';
        at = strstr(head, null);
    }
    if (at) {
        size_t pre = (size_t)(at - head) + sizeof key - 1;
        const char *rest = at + sizeof null - 1;
        size_t rlen = hlen - (size_t)(rest - head), slen = put_summary(s, NULL);
        if ((out = malloc(pre + slen + rlen + 1)) != NULL) {
            memcpy(out, head, pre);
            put_summary(s, out + pre);
            memcpy(out + pre + slen, rest, rlen + 1);
        }
    }
    if (head != stack)
        free(head);
    return out;
}

/* Caller holds the lock; it is dropped while publishing. */
void ftiod_end_message(struct ftiod *d, struct job *j, const char *why)
{
    ftiod_history_end(d, j);   /* the run, into the memory of runs (history_glue.h) */
    json_t *o = json_object();
    ftiod_set_job_fields(o, j->id);
    /* The summaries' texts (made with them, sched_step.c) go in its place. */
    struct summary_parts parts;
    bool summary = summary_parts(j, &parts);
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
    char *text = topic && summary ? with_summary(o, &parts) : NULL;
    json_decref(o);
    free_parts(&parts);
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
    free(topic);
    ftiod_lock_analysis(d);
}
