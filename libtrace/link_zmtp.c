/* SPDX-License-Identifier: BSD-3-Clause */
/* link_zmtp.c -- the ZMTP link (link.h): zmtp.c's connection, the frames a
 * DEALER sends, the batch signed here.  Used for a process's first second
 * (sink.c moves to ZeroMQ after it, or at any surprise), so a short process
 * never loads libzmq (FTIO_ZMTP; libtrace/README.md).  Only from the
 * flusher's private descriptor table: in a shared one the application may
 * close our socket and reuse its number, and our bytes would go into its file
 * (ZeroMQ aborts instead).
 */
#include "lazy.h"               /* MUNGE and libsodium, when authenticating */
#include "internal.h"
#include "link.h"
#include "timeutil.h"
#include "zmtp.h"

#define SEND_IDLE_NS (500 * 1000000ll)   /* no progress this long: dead (a loaded peer is slow, not dead) */

static struct ftio_zmtp zt FTIO_FLUSHER_STATE;   /* fd set by ftio_zmtp_open() */

static int zt_open(const char *endpoint, char *why, size_t wlen)
{
    if (!ftio_cfg.zmtp || ftio_thread_table != FTIO_TABLE_PRIVATE ||
        !ftio_zmtp_endpoint_ok(endpoint)) {
        snprintf(why, wlen, "not for this endpoint or table");
        return 1;
    }
    if (ftio_cfg.auth_mode == FTIO_AUTH_MUNGE && ftio_lazy_load(0, why, wlen) != 0)
        return 1;
    if (ftio_zmtp_open(&zt, endpoint, why, wlen) != 0)
        return -1;
    if (zt.direct)
        ftio_log("%s: ftiod's own listener (%s)", endpoint, "PATH.zmtp, PROTOCOL.md §1.6");
    return 0;
}

static int zt_send(const void *batch, size_t len, const struct ftio_auth_sender *auth,
                   int64_t deadline_ns, char *why, size_t wlen)
{
    if (!zt.ready && !zt.direct) {
        /* The peer's greeting and READY may be there (no acknowledgement
         * can come before them: nothing was sent).  ftiod's own listener
         * takes a message behind our greeting (zmtp.h). */
        struct ftio_ack a;
        if (ftio_zmtp_recv_ack(&zt, &a, 0, why, wlen) < 0)
            return -1;
        if (!zt.ready)
            return 1;
    }
    unsigned char frame[FTIO_AUTH_FRAME_MAX];
    size_t alen = auth ? ftio_auth_frame(auth, batch, len, frame, sizeof frame) : 0;
    if (auth && !alen)
        return 1;
    const void *f[3] = { "", batch, frame };
    size_t l[3] = { 0, len, alen };
    return ftio_zmtp_send(&zt, f, l, alen ? 3 : 2, SEND_IDLE_NS, deadline_ns ? deadline_ns : INT64_MAX,
                          why, wlen) == 0 ? 0 : -1;
}

static int zt_recv_ack(struct ftio_ack *ack, char *why, size_t wlen)
{
    return ftio_zmtp_recv_ack(&zt, ack, 0, why, wlen);
}

static int zt_wait(int unsent)
{
    (void)unsent;
    ftio_zmtp_wait(&zt, ftio_mono_ns() + 1000000);
    return 0;
}

static void zt_close(void)
{
    ftio_zmtp_close(&zt);
}

/* A fork child: the descriptor is the parent's flusher's (in its private
 * table, or shared with the parent): forgotten, never closed. */
static void zt_abandon(void)
{
    zt.fd = -1;
    zt.ready = 0;
}

static int zt_heard(void)
{
    return zt.ready;
}

static int zt_peer_runs(void)
{
    return ftio_zmtp_peer_runs(&zt);
}

const struct ftio_link ftio_link_zmtp = {
    "ZMTP", zt_open, zt_send, zt_recv_ack, zt_wait, zt_close, zt_abandon, zt_heard, zt_peer_runs,
};
