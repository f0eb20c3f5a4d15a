/* SPDX-License-Identifier: BSD-3-Clause */
/* control.h -- the control socket of ftiod (its --status-endpoint,
 * PROTOCOL.md §3): the one owner of its requests and replies, for both
 * sides.  Clients: `ftiod --status`, `ftio end`, `ftio sub --last`, the
 * SPANK plugin (end of a step, claim of a step); the server: ftiod's
 * dispatch table (predictor/daemon/control_serve.c).
 *
 * A request is one text frame "VERB[ JOB[ UID]]", optionally followed by a
 * MUNGE credential of exactly that text (common/auth.h), on REQ/REP with
 * optional CURVE (common/curve.h).  The reply is one JSON object; a refusal
 * or failure is {"error": "...", ...}.
 *
 *   status            the status document (jobs the asker may see)
 *   end JOB           end JOB now: {"ending": JOB[, "steps": N]}
 *   last JOB          its latest predictions: {"job": JOB, "write": {...},
 *                     "read": {...}} or {"job": JOB, "steps": [...]}
 *   claim JOB UID     JOB belongs to UID (root or ftiod's uid only):
 *                     {"claimed": JOB, "uid": UID}
 *   machine           the latest machine message (PROTOCOL.md §2 `ftio.machine`;
 *                     a user's: the totals and their own jobs only)
 *   apps              the memory of runs: the applications the asker may see,
 *                     {"apps": [...]} (`ftio history list`)
 *   app ID            one of them, its runs and the priors they give
 *                     {"app": {...}, "runs": [...], "priors": [...]}
 *   forget ID|all     forget it (all: every one the asker may forget),
 *                     {"forgotten": N}
 */
#ifndef FTIO_CONTROL_H
#define FTIO_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum ftio_control_verb {
    FTIO_CTL_STATUS, FTIO_CTL_END, FTIO_CTL_LAST, FTIO_CTL_CLAIM, FTIO_CTL_MACHINE,
    FTIO_CTL_APPS, FTIO_CTL_APP, FTIO_CTL_FORGET,      /* the memory of runs */
    FTIO_CTL_NVERBS
};

/* The longest request: "claim " + a job id + " " + a uid. */
#define FTIO_CONTROL_JOB_MAX 4096
#define FTIO_CONTROL_REQ_MAX (FTIO_CONTROL_JOB_MAX + 32)

const char *ftio_control_verb_name(enum ftio_control_verb v);

/* Encode a request into out (cap >= FTIO_CONTROL_REQ_MAX is always enough):
 * job for end/last/claim (a non-empty id of at most FTIO_CONTROL_JOB_MAX
 * bytes, no spaces; for app and forget the application's id), uid for
 * claim.  0, or -1 with the reason. */
int ftio_control_encode(char *out, size_t cap, enum ftio_control_verb v, const char *job,
                        int64_t uid, char *err, size_t errlen);
/* Decode a request (server): the verb, its job id into job (cap >=
 * FTIO_CONTROL_JOB_MAX + 1) and the claim's uid.  0, or -1 with the reason. */
int ftio_control_decode(const char *req, size_t len, enum ftio_control_verb *v, char *job,
                        size_t cap, int64_t *uid, char *err, size_t errlen);

struct ftio_query_opts {
    const char *endpoint;        /* ftiod's --status-endpoint */
    const char *server_key;      /* NULL: no CURVE */
    const char *key_file;        /* NULL: anonymous CURVE keys */
    double      timeout;         /* s */
    int         munge;           /* 1: attach a MUNGE credential when munged answers */
};
/* Send a request text, get the raw reply; *reply is malloc'd
 * (NUL-terminated).  0, or -1 with the reason. */
int ftio_query(const struct ftio_query_opts *o, const char *request, char **reply, char *err,
               size_t errlen);

/* Ask one daemon: encode, send, parse the reply as a JSON object.  0 with
 * *reply (a new reference; it may be an {"error": ...} answer), or -1 with
 * the reason (no answer, not a JSON object). */
int ftio_control_call(const struct ftio_query_opts *o, enum ftio_control_verb v, const char *job,
                      int64_t uid, json_t **reply, char *err, size_t errlen);
/* The "error" of a reply, or NULL when it is not one. */
const char *ftio_control_error(const json_t *reply);

#endif
