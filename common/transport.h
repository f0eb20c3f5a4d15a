/* SPDX-License-Identifier: BSD-3-Clause */
/* transport.h -- how a batch travels to ftiod and how ftiod says it has it
 * (PROTOCOL.md §1.4).
 *
 * Senders (the shim, `ftio replay`, relays, test tools) use a ZeroMQ DEALER;
 * ftiod binds a ROUTER.  A batch is one message of frames
 *
 *     [empty delimiter] [batch] [auth frame, when authenticated]
 *
 * and ftiod answers each batch it decoded with one acknowledgement
 *
 *     [empty delimiter] ["FTK1" | seq (8 bytes, big endian) | status (1 byte)]
 *
 * status 0: merged (or a duplicate of a batch it has): the sender may forget
 * its copy; 1: refused (authentication, ownership, quotas): the sender keeps
 * it in its spool file.  The ROUTER prepends the identity of the connection
 * to what it receives and routes replies by it, so the frames before the
 * delimiter (one per hop: `ftio relay` is a plain ZeroMQ proxy) are the
 * reply's envelope.  A sender keeps a copy of every batch until its
 * acknowledgement arrives; whatever is not acknowledged at exit, or for too
 * long, goes to the spool file (the daemon drops a (process, seq) it has).
 */
#ifndef FTIO_TRANSPORT_H
#define FTIO_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "auth.h"

#define FTIO_ACK_MAGIC "FTK1"
#define FTIO_ACK_LEN   13
#define FTIO_ENVELOPE_MAX 8        /* hops (identity frames) a message may carry */

/* RENEW: the batch's session is unknown to this ftiod (it restarted):
 * make a new session and send again now (PROTOCOL.md §1.4); its seq is
 * FTIO_ACK_SEQ_ANY (the batch was not decoded). */
enum ftio_ack_status { FTIO_ACK_MERGED = 0, FTIO_ACK_REFUSED = 1, FTIO_ACK_RENEW = 2 };
#define FTIO_ACK_SEQ_ANY UINT64_MAX

struct ftio_ack {
    uint64_t seq;
    int      status;               /* enum ftio_ack_status */
};

/* Send one batch on a DEALER (flags: e.g. ZMQ_DONTWAIT): delimiter, batch,
 * and the auth frame when auth is not NULL.  The frames are queued together
 * or not at all.  0, or -1 with errno (EAGAIN: not queued). */
int ftio_batch_send(void *dealer, const struct ftio_auth_sender *auth, const void *batch,
                    size_t len, int flags);

/* Receive one acknowledgement on a DEALER without waiting: 1 with *ack, 0
 * when none is queued.  Messages that are not acknowledgements are skipped. */
int ftio_ack_recv(void *dealer, struct ftio_ack *ack);

/* The acknowledgement frame's bytes. */
void ftio_ack_encode(unsigned char out[FTIO_ACK_LEN], uint64_t seq, int status);

/* Close a socket that holds acknowledgements for senders (ftiod's ingest
 * ROUTER, `ftio relay`'s front): those still queued (a sender that reads a
 * little late: a loaded node, a slow flusher) leave for at most
 * min(left_ms, FTIO_ACK_LINGER_MS) instead of being dropped.  A dropped
 * one makes its sender send the batch again to the next daemon, which
 * without --state-dir counts it twice (tests/daemon/ack_linger.sh,
 * relay_ack_linger.sh).  Only a connected sender that does not read makes
 * the close (zmq_ctx_term) wait that long. */
#define FTIO_ACK_LINGER_MS 500
void ftio_ack_socket_close(void *sock, int left_ms);

#endif
