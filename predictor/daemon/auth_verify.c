/* SPDX-License-Identifier: BSD-3-Clause */
/* auth_verify.c -- ftiod's side of authentication: which uid sent a batch or asks a
 * question (the sender side and the frame layout are in common/auth.h).
 *
 * A batch's auth frame carries a MUNGE credential and a MAC of the batch.
 * Decoding a credential is a round trip to munged, so each distinct
 * credential is decoded once and remembered (uid + session key) in a small
 * set-associative cache keyed by a hash of the credential; every batch then
 * costs one keyed BLAKE2b over its bytes.  A batch credential must be fresh
 * the first time this ftiod decodes it: munged's "replayed" verdict means
 * someone decoded it before, and unless that was us (its id is in `seen`:
 * the cache forgot it) it may have been a process that captured the batch
 * and now holds the key; "expired" is accepted on the same condition.  A
 * session key is good for FTIO_AUTH_SESSION_S after its credential was made.
 * A refused sender gets no acknowledgement, and the shim makes a new
 * session when the daemon stays silent (a restarted ftiod), so a legitimate
 * sender pays one resend.  Everything else (no frame, a bad frame, a credential munged rejects, a payload without
 * our tag, a wrong MAC) is refused with a static reason for the caller's
 * counters and rate-limited log.
 *
 * Used by the ingest thread only (batches and status queries), so no lock.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <munge.h>
#include <sodium.h>
#include "auth.h"
#include "daemon.h"

#define CACHE_SETS 1024
#define CACHE_WAYS 4
#define SEEN_SLOTS 65536           /* ids of credentials decoded by us (1 MB) */

struct cache_entry {
    unsigned char id[16];          /* BLAKE2b-128 of the credential; all 0 = free */
    unsigned char key[FTIO_AUTH_KEY_LEN];
    int64_t  uid;
    int64_t  made;                 /* the credential's encode time (s) */
    uint64_t used;                 /* stamp of the last hit (LRU within a set) */
};

struct ftiod_auth {
    int mode;                      /* enum ftio_auth_mode */
    munge_ctx_t ctx;
    uint64_t clock;
    struct cache_entry cache[CACHE_SETS][CACHE_WAYS];
    unsigned char seen[SEEN_SLOTS][16];
    char cred[FTIO_AUTH_CRED_MAX + 1];
};

struct ftiod_auth *ftiod_auth_new(int mode, const char *munge_socket, char *err, size_t errlen)
{
    struct ftiod_auth *a = calloc(1, sizeof *a);
    if (!a || sodium_init() < 0) {
        snprintf(err, errlen, "out of memory");
        free(a);
        return NULL;
    }
    a->mode = mode;
    if (mode == FTIO_AUTH_MUNGE) {
        a->ctx = munge_ctx_create();
        if (!a->ctx || (munge_socket && munge_ctx_set(a->ctx, MUNGE_OPT_SOCKET, munge_socket) !=
                                            EMUNGE_SUCCESS)) {
            snprintf(err, errlen, "cannot set up libmunge");
            ftiod_auth_free(a);
            return NULL;
        }
    }
    return a;
}

void ftiod_auth_free(struct ftiod_auth *a)
{
    if (!a)
        return;
    if (a->ctx)
        munge_ctx_destroy(a->ctx);
    sodium_memzero(a->cache, sizeof a->cache);
    free(a);
}

int ftiod_auth_mode(const struct ftiod_auth *a)
{
    return a->mode;
}

/* A credential munged vouched for (replayed and expired ones included:
 * the callers decide what they accept). */
struct decoded {
    void   *payload;      /* malloc'd; decoded_free() */
    int     plen;
    int64_t uid;
    int64_t made;         /* when it was encoded, Unix s (0: unknown) */
    bool    fresh;        /* neither replayed nor expired */
};

/* munge_decode of cred (NUL-terminated copy in a->cred); 0 with *c, else -1
 * with the reason. */
static int decode(struct ftiod_auth *a, const char *cred, size_t len, struct decoded *c,
                  const char **why)
{
    if (len == 0 || len > FTIO_AUTH_CRED_MAX || memchr(cred, 0, len)) {
        *why = "malformed credential";
        return -1;
    }
    memcpy(a->cred, cred, len);
    a->cred[len] = 0;
    uid_t u;
    gid_t g;
    c->payload = NULL;
    munge_err_t e = munge_decode(a->cred, a->ctx, &c->payload, &c->plen, &u, &g);
    if (e == EMUNGE_SUCCESS || e == EMUNGE_CRED_REPLAYED || e == EMUNGE_CRED_EXPIRED) {
        c->uid = (int64_t)u;
        c->fresh = e == EMUNGE_SUCCESS;
        time_t t = 0;
        c->made = munge_ctx_get(a->ctx, MUNGE_OPT_ENCODE_TIME, &t) == EMUNGE_SUCCESS ? (int64_t)t : 0;
        return 0;
    }
    free(c->payload);
    c->payload = NULL;
    *why = e == EMUNGE_SOCKET ? "munged unreachable"
         : e == EMUNGE_CRED_UNAUTHORIZED
             ? "credential restricted to another uid (set the shims' FTIO_AUTH_UID to ftiod's uid)"
             : "credential rejected by munged";
    return -1;
}

/* What the payload carries after its tag (of tagsize bytes, its NUL
 * included), when it is the tag and blen bytes; else NULL. */
static const void *tagged(const struct decoded *c, const char *tag, size_t tagsize, size_t blen)
{
    return c->plen == (int)(tagsize + blen) && memcmp(c->payload, tag, tagsize) == 0
               ? (const char *)c->payload + tagsize : NULL;
}

/* The payload may hold a session key: wiped before it is freed. */
static void decoded_free(struct decoded *c)
{
    if (c->payload)
        sodium_memzero(c->payload, (size_t)c->plen);
    free(c->payload);
    c->payload = NULL;
}

int ftiod_auth_batch(struct ftiod_auth *a, const void *batch, size_t len, const void *frame,
                     size_t flen, int64_t *uid, const char **why)
{
    *uid = -1;
    if (a->mode == FTIO_AUTH_NONE)
        return 0;
    const unsigned char *mac;
    const char *cred;
    size_t clen;
    if (!frame) {
        *why = "no authentication (a shim with FTIO_AUTH=none?)";
        return -1;
    }
    if (ftio_auth_frame_parse(frame, flen, &mac, &cred, &clen) != 0) {
        *why = "malformed authentication frame";
        return -1;
    }
    unsigned char id[16];
    crypto_generichash(id, sizeof id, (const unsigned char *)cred, clen, NULL, 0);
    if (sodium_is_zero(id, sizeof id))
        id[0] = 1;
    struct cache_entry *set = a->cache[(id[0] | (size_t)id[1] << 8) % CACHE_SETS];
    struct cache_entry *e = NULL, *victim = &set[0];
    for (int w = 0; w < CACHE_WAYS; w++) {
        if (memcmp(set[w].id, id, sizeof id) == 0) {
            e = &set[w];
            break;
        }
        if (set[w].used < victim->used)
            victim = &set[w];
    }
    int64_t now = (int64_t)time(NULL);
    if (e && now - e->made > FTIO_AUTH_SESSION_S) {
        memset(e->id, 0, sizeof e->id);       /* the sender makes a new session */
        *why = "session expired";
        return FTIOD_AUTH_RENEW;
    }
    if (!e) {
        struct decoded c;
        if (decode(a, cred, clen, &c, why) != 0)
            return -1;
        unsigned char *seen = a->seen[(id[2] | (size_t)id[3] << 8) % SEEN_SLOTS];
        const void *key = tagged(&c, FTIO_AUTH_BATCH_TAG, sizeof FTIO_AUTH_BATCH_TAG,
                                 FTIO_AUTH_KEY_LEN);
        const char *refuse = NULL;
        int rc = -1;
        /* A session this ftiod does not know (it restarted, or forgot it)
         * or one that is too old: the sender is told to make a new one at
         * once (a "renew" acknowledgement, PROTOCOL.md §1.4).  Nothing is
         * taken from the batch: it stays refused. */
        if (!key) {
            refuse = "credential is not a batch credential";
        } else if (!c.fresh && memcmp(seen, id, sizeof id) != 0) {
            refuse = "credential replayed or expired before ftiod saw it (captured?)";
            rc = FTIOD_AUTH_RENEW;
        } else if (now - c.made > FTIO_AUTH_SESSION_S) {
            refuse = "session expired";
            rc = FTIOD_AUTH_RENEW;
        }
        if (refuse) {
            *why = refuse;
        } else {
            e = victim;
            memcpy(e->id, id, sizeof id);
            memcpy(e->key, key, FTIO_AUTH_KEY_LEN);
            e->uid = c.uid;
            e->made = c.made;
            memcpy(seen, id, sizeof id);
        }
        decoded_free(&c);
        if (!e)
            return rc;
    }
    e->used = ++a->clock;
    unsigned char want[FTIO_AUTH_MAC_LEN];
    ftio_auth_mac(e->key, batch, len, want);
    if (sodium_memcmp(want, mac, FTIO_AUTH_MAC_LEN) != 0) {
        *why = "batch does not match its MAC (forged or altered)";
        return -1;
    }
    *uid = e->uid;
    return 0;
}

int ftiod_auth_query(struct ftiod_auth *a, const void *req, size_t len, const void *cred,
                     size_t clen, int64_t *uid, const char **why)
{
    *uid = -1;
    if (a->mode == FTIO_AUTH_NONE || !a->ctx) {
        *why = "this ftiod runs --auth none";
        return -1;
    }
    struct decoded c;
    if (decode(a, cred, clen, &c, why) != 0)
        return -1;
    if (!c.fresh) {
        decoded_free(&c);
        *why = "query credential replayed or expired";
        return -1;
    }
    const void *asked = tagged(&c, FTIO_AUTH_QUERY_TAG, sizeof FTIO_AUTH_QUERY_TAG, len);
    bool ok = asked && memcmp(asked, req, len) == 0;
    decoded_free(&c);
    if (!ok) {
        *why = "credential does not match the query";
        return -1;
    }
    *uid = c.uid;
    return 0;
}
