/* SPDX-License-Identifier: BSD-3-Clause */
/* zmtp.h -- a minimal ZMTP 3 client (rfc.zeromq.org 23/37): the shim's way
 * to ftiod's ROUTER without loading libzmq, for a short process.
 *
 * One connection, a DEALER with the NULL mechanism: connect (ipc:// over
 * AF_UNIX, tcp:// over TCP to a numeric address), both greetings and READY
 * commands, whole messages out, acknowledgements (common/transport.h) in.
 * Every call is non-blocking or bounded by a deadline; any surprise (not
 * ZMTP 3, a mechanism other than NULL, an ERROR command, EOF, a malformed
 * frame, a deadline passed while a message was half written) is an error
 * and the connection is dead: the caller (sink.c) goes back to libzmq,
 * which keeps copies of everything unacknowledged, so nothing is lost.
 * Runs on the flusher thread only.
 */
#ifndef FTIO_ZMTP_H
#define FTIO_ZMTP_H

#include <stddef.h>
#include <stdint.h>
#include "transport.h"

struct ftio_zmtp {
    int           fd;            /* -1: closed */
    int           connecting;    /* TCP: connect() in progress, our greeting not sent */
    int           greeted;       /* the peer's greeting was read */
    int           ready;         /* ... and its READY: messages may go */
    int           direct;        /* ftiod's own listener (PATH.zmtp): messages may go at
                                    once, behind our greeting (PROTOCOL.md §1.6) */
    size_t        nin;
    size_t        skip;          /* bytes of an oversized frame still to discard */
    unsigned char in[8192];      /* what was read and not parsed yet (last: a short
                                    exchange touches its first page only) */
};

/* Can this endpoint be spoken to directly (ipc://PATH, tcp://IPv4:PORT)? */
int ftio_zmtp_endpoint_ok(const char *endpoint);

/* Connect and send our greeting and READY (never waits for the peer); for
 * ipc://PATH, to ftiod's own listener at PATH.zmtp when there is one
 * (z->direct), else to PATH.  0, or -1 with a one-line reason. */
int ftio_zmtp_open(struct ftio_zmtp *z, const char *endpoint, char *err, size_t errlen);

/* Read what is there (waiting until deadline_ns, CLOCK_MONOTONIC, at most,
 * for something to arrive; 0: no wait).  1 with *ack when an
 * acknowledgement was taken, 0 when none, -1 with a reason when the
 * connection is dead. */
int ftio_zmtp_recv_ack(struct ftio_zmtp *z, struct ftio_ack *ack, int64_t deadline_ns, char *err,
                       size_t errlen);

/* Send one message of n frames whole: the connection is dead when nothing
 * could be written for idle_ns, or at deadline_ns.  Only when z->ready or
 * z->direct.
 * 0, or -1 with a reason (the connection is then dead). */
int ftio_zmtp_send(struct ftio_zmtp *z, const void *const *frame, const size_t *len, int n,
                   int64_t idle_ns, int64_t deadline_ns, char *err, size_t errlen);

/* Wait until deadline_ns at most for something to read (or, while a TCP
 * connection is being made, for it to be made). */
void ftio_zmtp_wait(const struct ftio_zmtp *z, int64_t deadline_ns);

void ftio_zmtp_close(struct ftio_zmtp *z);

/* Is the process behind ftiod's own listener (z->direct: a local socket, its
 * listener's credentials) running, merely not scheduled yet, rather than
 * stopped or gone?  1 when known to run, 0 when not (or not known). */
int ftio_zmtp_peer_runs(const struct ftio_zmtp *z);

#endif
