/* SPDX-License-Identifier: BSD-3-Clause */
/* control.c -- requests and replies of ftiod's control socket, both sides
 * (control.h); the REQ client with CURVE and the MUNGE credential. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "auth.h"
#include "control.h"
#include "curve.h"

static const char *const verb_names[FTIO_CTL_NVERBS] = {"status", "end", "last", "claim",
                                                         "machine", "apps", "app", "forget"};

/* The verbs without an argument. */
static int bare(enum ftio_control_verb v)
{
    return v == FTIO_CTL_STATUS || v == FTIO_CTL_MACHINE || v == FTIO_CTL_APPS;
}

const char *ftio_control_verb_name(enum ftio_control_verb v)
{
    return (unsigned)v < FTIO_CTL_NVERBS ? verb_names[v] : "?";
}

/* A job id the protocol can carry: non-empty, short enough, no space or
 * control character (a space separates the arguments). */
static int job_ok(const char *job, size_t len)
{
    if (len == 0 || len > FTIO_CONTROL_JOB_MAX)
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)job[i] <= ' ' || job[i] == 0x7f)
            return 0;
    return 1;
}

int ftio_control_encode(char *out, size_t cap, enum ftio_control_verb v, const char *job,
                        int64_t uid, char *err, size_t errlen)
{
    int n;
    if ((unsigned)v >= FTIO_CTL_NVERBS) {
        snprintf(err, errlen, "unknown request");
        return -1;
    }
    if (bare(v)) {
        n = snprintf(out, cap, "%s", verb_names[v]);
    } else {
        if (!job || !job_ok(job, strlen(job))) {
            snprintf(err, errlen, "job id must be 1..%d printable characters without spaces",
                     FTIO_CONTROL_JOB_MAX);
            return -1;
        }
        if (v == FTIO_CTL_CLAIM && (uid < 0 || uid > UINT32_MAX - 1)) {
            snprintf(err, errlen, "claim: uid %" PRId64 " out of range", uid);
            return -1;
        }
        n = v == FTIO_CTL_CLAIM ? snprintf(out, cap, "claim %s %" PRId64, job, uid)
                                : snprintf(out, cap, "%s %s", verb_names[v], job);
    }
    if (n < 0 || (size_t)n >= cap) {
        snprintf(err, errlen, "request too long");
        return -1;
    }
    return 0;
}

int ftio_control_decode(const char *req, size_t len, enum ftio_control_verb *v, char *job,
                        size_t cap, int64_t *uid, char *err, size_t errlen)
{
    *uid = -1;
    job[0] = '\0';
    const char *sp = memchr(req, ' ', len);
    size_t vlen = sp ? (size_t)(sp - req) : len;
    int found = -1;
    for (int i = 0; i < FTIO_CTL_NVERBS; i++)
        if (strlen(verb_names[i]) == vlen && memcmp(req, verb_names[i], vlen) == 0)
            found = i;
    if (found < 0) {
        snprintf(err, errlen, "unknown request (status, end JOB, last JOB, claim JOB UID, machine, "
                 "apps, app ID, forget ID)");
        return -1;
    }
    *v = (enum ftio_control_verb)found;
    const char *arg = sp ? sp + 1 : req + len;
    size_t alen = (size_t)(req + len - arg);
    if (bare(*v)) {
        if (sp) {
            snprintf(err, errlen, "%s: takes no argument", verb_names[*v]);
            return -1;
        }
        return 0;
    }
    size_t jlen = alen;
    if (*v == FTIO_CTL_CLAIM) {
        const char *usp = memchr(arg, ' ', alen);
        if (!usp) {
            snprintf(err, errlen, "claim: JOB UID expected");
            return -1;
        }
        jlen = (size_t)(usp - arg);
        const char *u = usp + 1;
        size_t ulen = (size_t)(req + len - u);
        uint64_t x = 0;
        if (ulen == 0 || ulen > 10) {
            snprintf(err, errlen, "claim: bad uid");
            return -1;
        }
        for (size_t i = 0; i < ulen; i++) {
            if (u[i] < '0' || u[i] > '9') {
                snprintf(err, errlen, "claim: bad uid");
                return -1;
            }
            x = x * 10 + (uint64_t)(u[i] - '0');
        }
        if (x > UINT32_MAX - 1) {
            snprintf(err, errlen, "claim: uid out of range");
            return -1;
        }
        *uid = (int64_t)x;
    }
    if (!job_ok(arg, jlen) || jlen + 1 > cap) {
        snprintf(err, errlen, "%s: no job id, or not a printable one without spaces",
                 verb_names[*v]);
        return -1;
    }
    memcpy(job, arg, jlen);
    job[jlen] = '\0';
    return 0;
}

int ftio_control_call(const struct ftio_query_opts *o, enum ftio_control_verb v, const char *job,
                      int64_t uid, json_t **reply, char *err, size_t errlen)
{
    *reply = NULL;
    char req[FTIO_CONTROL_REQ_MAX], *text = NULL;
    if (ftio_control_encode(req, sizeof req, v, job, uid, err, errlen) != 0 ||
        ftio_query(o, req, &text, err, errlen) != 0)
        return -1;
    json_error_t jerr;
    json_t *r = json_loads(text, 0, &jerr);
    free(text);
    if (!json_is_object(r)) {
        snprintf(err, errlen, "%s: bad answer: %s", o->endpoint, r ? "not a JSON object" : jerr.text);
        json_decref(r);
        return -1;
    }
    *reply = r;
    return 0;
}

const char *ftio_control_error(const json_t *reply)
{
    return json_string_value(json_object_get(reply, "error"));
}

int ftio_query(const struct ftio_query_opts *o, const char *request, char **reply, char *err,
               size_t errlen)
{
    *reply = NULL;
    size_t len = strlen(request);
    char *cred = NULL;
    if (o->munge) {
        char merr[256];
        cred = ftio_auth_query_cred(ftio_auth_munge_socket_env(), request, len, merr, sizeof merr);
        /* Without munged the query goes anonymous: an admin key (CURVE) or
         * a daemon without CURVE still answers. */
    }
    void *ctx = zmq_ctx_new();
    void *s = ctx ? zmq_socket(ctx, ZMQ_REQ) : NULL;
    int rc = -1, linger = 0;
    if (!s) {
        snprintf(err, errlen, "%s", zmq_strerror(errno));
        goto out;
    }
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    if (o->server_key && ftio_curve_client(s, o->server_key, o->key_file, err, errlen) != 0)
        goto out;
    if (zmq_connect(s, o->endpoint) < 0) {
        snprintf(err, errlen, "cannot connect to %s: %s", o->endpoint, zmq_strerror(errno));
        goto out;
    }
    if (zmq_send(s, request, len, cred ? ZMQ_SNDMORE : 0) < 0 ||
        (cred && zmq_send(s, cred, strlen(cred), 0) < 0)) {
        snprintf(err, errlen, "cannot send to %s: %s", o->endpoint, zmq_strerror(errno));
        goto out;
    }
    zmq_pollitem_t it = {.socket = s, .events = ZMQ_POLLIN};
    if (zmq_poll(&it, 1, (long)(o->timeout * 1000)) <= 0) {
        snprintf(err, errlen, "no answer from %s within %g s (is ftiod running%s?)", o->endpoint,
                 o->timeout, o->server_key ? ", is the server key right, is our key allowed" : "");
        goto out;
    }
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, s, 0) < 0) {
        zmq_msg_close(&msg);
        snprintf(err, errlen, "%s", zmq_strerror(errno));
        goto out;
    }
    *reply = malloc(zmq_msg_size(&msg) + 1);
    if (*reply) {
        memcpy(*reply, zmq_msg_data(&msg), zmq_msg_size(&msg));
        (*reply)[zmq_msg_size(&msg)] = 0;
        rc = 0;
    } else {
        snprintf(err, errlen, "out of memory");
    }
    zmq_msg_close(&msg);
out:
    free(cred);
    if (s)
        zmq_close(s);
    if (ctx)
        zmq_ctx_term(ctx);
    return rc;
}
