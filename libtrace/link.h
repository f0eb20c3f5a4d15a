/* SPDX-License-Identifier: BSD-3-Clause */
/* link.h -- one connection to ftiod's ROUTER (PROTOCOL.md §1.3, §1.4), as the
 * delivery policy (sink.c: copies kept until acknowledged, resends, the spool
 * file, the exec hand-off) uses it.  Two links offer the same few functions,
 * as Redis's ae.c puts epoll and kqueue behind one interface:
 *
 *   link_zmtp.c  the shim's own ZMTP 3.0 client (zmtp.c): a short process's
 *                batches reach ftiod without loading libzmq;
 *   link_zmq.c   a ZeroMQ DEALER: reconnection after a daemon restart, its
 *                queues; for a process alive longer than a second, and
 *                whenever ZMTP cannot be used or fails.
 *
 * Both send exactly the same frames (delimiter, batch, MUNGE auth frame) and
 * read the same acknowledgements.  One link is open at a time; every call is
 * on the flusher thread and never blocks past the deadline it is given.
 */
#ifndef FTIO_LINK_H
#define FTIO_LINK_H

#include <stddef.h>
#include <stdint.h>
#include "auth.h"
#include "transport.h"

struct ftio_link {
    const char *name;
    /* Connect to endpoint, never waiting for the peer.  0; 1 when this link
     * does not apply here (say why in FTIO_DEBUG only); -1 with why when it
     * failed (a bad endpoint, a library that cannot be loaded). */
    int  (*open)(const char *endpoint, char *why, size_t wlen);
    /* Send one batch whole, signed when auth is not NULL.  0 sent; 1 not now
     * (not connected yet, queue full); -1 the link is dead (why). */
    int  (*send)(const void *batch, size_t len, const struct ftio_auth_sender *auth,
                 int64_t deadline_ns, char *why, size_t wlen);
    /* The next acknowledgement, without waiting: 1 with *ack, 0 none, -1 the
     * link is dead (why). */
    int  (*recv_ack)(struct ftio_ack *ack, char *why, size_t wlen);
    /* Wait 1 ms at most for something to read (or, unsent batches waiting,
     * room to write).  -1 when the link is broken. */
    int  (*wait)(int unsent);
    void (*close)(void);
    /* A fork child: forget the parent's connection without touching it. */
    void (*abandon)(void);
    /* Has the peer answered the handshake?  A batch can be sent before
     * (ZMTP to ftiod's own listener, zmtp.h), and is then no sign that
     * anyone is there (sink.c's exit wait). */
    int  (*heard)(void);
    /* Is the peer a daemon that runs (only not scheduled yet), not one that
     * is stopped or gone?  0 when not or not known (sink.c's exit wait). */
    int  (*peer_runs)(void);
};

extern const struct ftio_link ftio_link_zmtp;
extern const struct ftio_link ftio_link_zmq;

#endif
