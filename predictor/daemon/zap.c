/* SPDX-License-Identifier: BSD-3-Clause */
/* zap.c -- who may connect: ftiod's ZeroMQ authentication handler (ZAP,
 * ZeroMQ RFC 27), run in its own thread.
 *
 * libzmq asks the handler bound at inproc://zeromq.zap.01 about every new
 * connection of a socket that has a ZAP domain:
 *
 *   "ingest"  (ROUTER, NULL mechanism): accepted while fewer than
 *             --max-connections are open, so idle connections cannot use up
 *             the descriptors the status socket needs.  Open connections are
 *             counted from the ingest socket's monitor events (accepted minus
 *             disconnected), read before each answer.
 *   "pub"     (PUB, CURVE): only client keys in the --curve-clients
 *             directory subscribe.
 *   "status"  (REP, CURVE): every key gets an encrypted channel; keys in the
 *             allow-list get the user id "admin" (every job), the others
 *             "user" (their own jobs, proven with MUNGE: control_serve.c).
 *
 * The allow-list directory is read again for each CURVE connection, so a key
 * added or removed takes effect for the next connection without a restart.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
#include "curve.h"
#include "daemon.h"

#define MONITOR_EP "inproc://ftiod-pull-monitor"

struct zap {
    struct ftiod *d;
    void *rep, *monitor;
    long  open;                    /* ingest connections open */
    struct ftiod_ratelimit rl;
};

/* Is the 32-byte public key in the allow-list directory? */
static bool allowed(const char *dir, const unsigned char *key)
{
    if (!dir)
        return false;
    char z85[FTIO_Z85_KEY_LEN + 1];
    if (!zmq_z85_encode(z85, key, 32))
        return false;
    DIR *dp = opendir(dir);
    if (!dp)
        return false;
    bool ok = false;
    struct dirent *e;
    while (!ok && (e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096], k[FTIO_Z85_KEY_LEN + 1], err[256];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        if (ftio_curve_load(path, 0, k, err, sizeof err) == 0 && strcmp(k, z85) == 0)
            ok = true;
    }
    closedir(dp);
    return ok;
}

static void read_monitor(struct zap *z)
{
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, z->monitor, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&m);
            return;
        }
        if (zmq_msg_size(&m) >= 6) {
            uint16_t ev;
            memcpy(&ev, zmq_msg_data(&m), 2);
            if (ev == ZMQ_EVENT_ACCEPTED)
                z->open++;
            else if (ev == ZMQ_EVENT_DISCONNECTED && z->open > 0)
                z->open--;
            pthread_mutex_lock(&z->d->lock);
            z->d->stats.connections = (uint64_t)z->open;
            pthread_mutex_unlock(&z->d->lock);
        }
        bool more = zmq_msg_more(&m);
        zmq_msg_close(&m);
        while (more) {   /* the endpoint frame */
            zmq_msg_init(&m);
            if (zmq_msg_recv(&m, z->monitor, 0) < 0)
                more = false;
            else
                more = zmq_msg_more(&m);
            zmq_msg_close(&m);
        }
    }
}

static void answer(struct zap *z)
{
    zmq_msg_t f[8];
    int n = 0;
    bool more = true;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, z->rep, 0) < 0) {
            zmq_msg_close(&m);
            break;
        }
        more = zmq_msg_more(&m);
        if (n < 8)
            f[n++] = m;
        else
            zmq_msg_close(&m);
    }
    if (n < 6) {          /* not a ZAP request: REP still owes an answer */
        for (int i = 0; i < n; i++)
            zmq_msg_close(&f[i]);
        zmq_send(z->rep, "", 0, 0);
        return;
    }
    struct ftiod *d = z->d;
    const char *status = "400", *text = "denied", *user = "";
    size_t dlen = zmq_msg_size(&f[2]), mlen = zmq_msg_size(&f[5]);
    const char *domain = zmq_msg_data(&f[2]), *mech = zmq_msg_data(&f[5]);
    bool curve = mlen == 5 && !memcmp(mech, "CURVE", 5) && n >= 7 && zmq_msg_size(&f[6]) == 32;
    if (dlen == 6 && !memcmp(domain, "ingest", 6)) {
        read_monitor(z);
        if (z->open <= (long)d->cfg.max_connections) {
            status = "200";
            text = "OK";
        } else {
            text = "too many connections";
            pthread_mutex_lock(&d->lock);
            d->stats.connections_refused++;
            pthread_mutex_unlock(&d->lock);
            ftiod_log_rl(&z->rl, "refused a connection: %ld open (--max-connections %zu)",
                         z->open - 1, d->cfg.max_connections);
        }
    } else if (dlen == 3 && !memcmp(domain, "pub", 3) && curve) {
        if (allowed(d->cfg.curve_clients, zmq_msg_data(&f[6]))) {
            status = "200";
            text = "OK";
            user = "admin";
        } else {
            text = "key not in the allow-list";
        }
    } else if (dlen == 6 && !memcmp(domain, "status", 6) && curve) {
        status = "200";
        text = "OK";
        user = allowed(d->cfg.curve_clients, zmq_msg_data(&f[6])) ? "admin" : "user";
    }
    /* version, request id, status code, status text, user id, metadata */
    zmq_send(z->rep, "1.0", 3, ZMQ_SNDMORE);
    zmq_send(z->rep, zmq_msg_data(&f[1]), zmq_msg_size(&f[1]), ZMQ_SNDMORE);
    zmq_send(z->rep, status, 3, ZMQ_SNDMORE);
    zmq_send(z->rep, text, strlen(text), ZMQ_SNDMORE);
    zmq_send(z->rep, user, strlen(user), ZMQ_SNDMORE);
    zmq_send(z->rep, "", 0, 0);
    for (int i = 0; i < n; i++)
        zmq_msg_close(&f[i]);
}

static void *zap_main(void *arg)
{
    struct zap *z = arg;
    zmq_pollitem_t it[2] = {
        {.socket = z->rep, .events = ZMQ_POLLIN},
        {.socket = z->monitor, .events = ZMQ_POLLIN},
    };
    while (!z->d->stop && !z->d->zap_stop) {
        if (zmq_poll(it, 2, 200) < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ETERM)
                break;
            continue;
        }
        if (it[1].revents & ZMQ_POLLIN)
            read_monitor(z);
        if (it[0].revents & ZMQ_POLLIN)
            answer(z);
    }
    zmq_close(z->rep);
    zmq_close(z->monitor);
    free(z);
    return NULL;
}

int ftiod_zap_start(struct ftiod *d, pthread_t *th)
{
    struct zap *z = calloc(1, sizeof *z);
    if (!z)
        return -1;
    z->d = d;
    z->rep = zmq_socket(d->zctx, ZMQ_REP);
    if (!z->rep || zmq_bind(z->rep, "inproc://zeromq.zap.01") != 0) {
        ftiod_log_at(FTIOD_ERROR, "cannot start the ZAP handler: %s", zmq_strerror(errno));
        goto fail;
    }
    int linger = 0;
    zmq_setsockopt(z->rep, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_socket_monitor(d->router, MONITOR_EP, ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0 ||
        !(z->monitor = zmq_socket(d->zctx, ZMQ_PAIR)) || zmq_connect(z->monitor, MONITOR_EP) != 0) {
        ftiod_log_at(FTIOD_ERROR, "cannot monitor the ingest socket: %s", zmq_strerror(errno));
        goto fail;
    }
    zmq_setsockopt(z->monitor, ZMQ_LINGER, &linger, sizeof linger);
    if (pthread_create(th, NULL, zap_main, z) != 0)
        goto fail;
    return 0;
fail:
    if (z->rep)
        zmq_close(z->rep);
    if (z->monitor)
        zmq_close(z->monitor);
    free(z);
    return -1;
}
