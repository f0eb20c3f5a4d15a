/* SPDX-License-Identifier: BSD-3-Clause */
/* message.h -- one ZeroMQ message of several frames, received whole
 * without waiting: the ROUTER's batches (ingest.c) and the control socket's
 * requests (control_serve.c) are both read this way, so that a sender of
 * too many frames costs a bounded array and a flag, never an allocation. */
#ifndef FTIOD_MESSAGE_H
#define FTIOD_MESSAGE_H

#include <stdbool.h>
#include <zmq.h>
#include "transport.h"

/* Frames kept: the envelope's identities, its delimiter, a batch and its
 * authentication frame. */
#define FTIOD_MESSAGE_FRAMES (FTIO_ENVELOPE_MAX + 3)

/* Every frame up to FTIOD_MESSAGE_FRAMES kept, the rest counted in `extra`
 * and discarded. */
struct ftiod_message {
    zmq_msg_t f[FTIOD_MESSAGE_FRAMES];
    int  n;
    bool extra;
};

/* Receive the next message of sock; -1 when nothing is queued. */
int  ftiod_message_recv(void *sock, struct ftiod_message *m);
void ftiod_message_close(struct ftiod_message *m);

#endif
