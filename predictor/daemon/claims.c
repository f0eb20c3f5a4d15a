/* SPDX-License-Identifier: BSD-3-Clause */
/* claims.c -- who owns a job id (docs/SECURITY.md "Job ids", PROTOCOL.md §3).
 *
 * The one place of the ownership rules.  A job id is bound to a uid by an
 * authority, never by whoever sends first: Slurm's SPANK plugin, root in
 * slurmstepd before the step's tasks start, registers "<job>.<step>" -> uid
 * with a `claim` request on the control socket (accepted from root or
 * ftiod's own uid only, proven by MUNGE: control_serve.c).  Then, for a batch or a
 * request about id J from uid U (MUNGE-proven):
 *
 *   1. --auth none (U unknown): J itself; nothing to tell users apart by.
 *   2. J is claimed by U: J.  A step "<job>.<step>" (common/jobid.h) without a
 *      claim of its own has the claim of its Slurm job id: a prolog's
 *      `ftio claim $SLURM_JOB_ID USER` covers every step.
 *   3. J is claimed by nobody and U is trusted (root, ftiod's uid): J.
 *   4. otherwise: "u<U>:J", U's own namespace.
 *
 * So an id nobody registered lives in its sender's namespace, two users'
 * unregistered ids never collide, and nobody can occupy the id of another
 * user's step, before or after it starts: the scheduler subscribed to
 * `ftio.4711.0.` gets the owner's data only.  A job that still exists with
 * another owner under the resolved id (journals of an --auth none daemon)
 * is refused as foreign by the caller (admit.c).
 *
 * Claims live in memory: a chained hash on the id (ftio_hash64), at most
 * MAX_CLAIMS; when full, claims older than STALE_S whose job is gone make
 * room.  A restarted daemon gets them back from the jobs it restores (a job
 * with a bare id under MUNGE was claimed, or sent by a trusted uid); a claim
 * made while ftiod was down is lost, and that step's batches go to its
 * owner's namespace (documented; no one else's data gets in).
 *
 * Every function is called with d->lock held.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "auth.h"
#include "daemon.h"
#include "hash.h"
#include "jobid.h"

#define BUCKETS    4096
#define MAX_CLAIMS 65536
#define STALE_S    3600.0

struct claim {
    struct claim *next;
    int64_t uid;
    double  at;            /* monotonic s of the (last) claim */
    char    id[];
};

struct ftiod_claims {
    struct claim *bucket[BUCKETS];
    size_t n;
};

struct ftiod_claims *ftiod_claims_new(void)
{
    return calloc(1, sizeof(struct ftiod_claims));
}

void ftiod_claims_free(struct ftiod_claims *c)
{
    if (!c)
        return;
    for (size_t b = 0; b < BUCKETS; b++)
        for (struct claim *x = c->bucket[b], *next; x; x = next) {
            next = x->next;
            free(x);
        }
    free(c);
}

static struct claim **slot(struct ftiod_claims *c, const char *id)
{
    struct claim **p = &c->bucket[ftio_hash64(id, strlen(id)) % BUCKETS];
    while (*p && strcmp((*p)->id, id) != 0)
        p = &(*p)->next;
    return p;
}

bool ftiod_trusted_uid(int64_t uid)
{
    return uid == 0 || (uid > 0 && uid == (int64_t)geteuid());
}

/* Drop stale claims (old, and no job of that id in the table). */
static void sweep(struct ftiod *d, double now)
{
    struct ftiod_claims *c = d->claims;
    for (size_t b = 0; b < BUCKETS; b++)
        for (struct claim **p = &c->bucket[b]; *p;) {
            struct claim *x = *p;
            if (now - x->at > STALE_S && !job_table_find(&d->jobs, x->id)) {
                *p = x->next;
                free(x);
                c->n--;
            } else {
                p = &x->next;
            }
        }
}

int ftiod_claim(struct ftiod *d, const char *id, int64_t uid, const char **why)
{
    struct ftiod_claims *c = d->claims;
    struct job *j = job_table_find(&d->jobs, id);
    if (j && j->uid != uid && !(j->closed && !j->reopened) && d->cfg.auth != FTIO_AUTH_NONE) {
        /* A live job of another owner under that id: it was claimed (or
         * sent by root) before; Slurm does not run two steps of one id. */
        *why = "a running job of another uid has that id";
        return -1;
    }
    double now = ftiod_now();
    struct claim **p = slot(c, id);
    if (*p) {
        (*p)->uid = uid;
        (*p)->at = now;
    } else {
        if (c->n >= MAX_CLAIMS)
            sweep(d, now);
        if (c->n >= MAX_CLAIMS) {
            *why = "too many claims";
            return -1;
        }
        size_t len = strlen(id) + 1;
        struct claim *x = malloc(sizeof *x + len);
        if (!x) {
            *why = "out of memory";
            return -1;
        }
        x->next = NULL;
        x->uid = uid;
        x->at = now;
        memcpy(x->id, id, len);
        *p = x;
        c->n++;
    }
    /* An ended job of another owner under the id (Slurm reused it): the
     * new owner's batches start a new job when that one is forgotten;
     * until then they are refused as foreign and stay in the spool files. */
    return 0;
}

/* The claim that decides id: its own, else its Slurm job id's. */
static struct claim *claim_of(struct ftiod_claims *c, const char *id)
{
    struct claim *x = *slot(c, id);
    char job[FTIOD_ID_MAX + 1];
    if (!x && ftio_job_split(id, job, sizeof job, NULL, 0))
        x = *slot(c, job);
    return x;
}

const char *ftiod_claim_resolve(struct ftiod *d, const char *id, int64_t uid, char *out,
                                size_t cap)
{
    if (uid < 0 || d->cfg.auth == FTIO_AUTH_NONE)
        return id;
    struct claim *x = claim_of(d->claims, id);
    if (x ? x->uid == uid : ftiod_trusted_uid(uid))
        return id;
    snprintf(out, cap, "u%" PRId64 ":%s", uid, id);
    return out;
}

void ftiod_claim_restored(struct ftiod *d, const struct job *j)
{
    if (j->uid < 0 || d->cfg.auth == FTIO_AUTH_NONE || ftiod_claim_namespaced(j->id))
        return;
    const char *why;
    ftiod_claim(d, j->id, j->uid, &why);
}

bool ftiod_claim_namespaced(const char *id)
{
    if (id[0] != 'u' || id[1] < '0' || id[1] > '9')
        return false;
    const char *p = id + 1;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == ':';
}

bool ftiod_claim_stored(const struct job *j, const char *id, int64_t uid)
{
    if (uid != j->uid)
        return false;
    if (strcmp(id, j->id) == 0)
        return true;
    char ns[32];
    int n = snprintf(ns, sizeof ns, "u%" PRId64 ":", uid);
    return n > 0 && strncmp(j->id, ns, (size_t)n) == 0 && strcmp(j->id + n, id) == 0;
}
