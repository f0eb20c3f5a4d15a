/* SPDX-License-Identifier: BSD-3-Clause */
/* zmtp_listen.h -- ftiod's own ZMTP listener beside an ipc:// --listen: the
 * shims' direct way in, read and acknowledged on the ingest thread
 * (zmtp_listen.c says why; docs/PROTOCOL.md §1.6). */
#ifndef FTIOD_ZMTP_LISTEN_H
#define FTIOD_ZMTP_LISTEN_H

#include <stddef.h>
#include "daemon.h"

/* A reply to the message being handled (its acknowledgement). */
typedef void (*ftiod_zmtp_reply_fn)(void *rctx, const unsigned char *ack, size_t len);
/* One whole message of n frames (at most 4: n == 4 says "4 or more"). */
typedef void (*ftiod_zmtp_message_fn)(void *ctx, const void *const *frame, const size_t *len, int n,
                                      ftiod_zmtp_reply_fn reply, void *rctx);

/* Listen beside an ipc:// endpoint (under the caller's umask).  Returns the
 * listener's own endpoint (ipc://PATH.zmtp) for its permissions, or NULL
 * when there is none (not ipc://, the path too long, bind failed: the
 * shims then use the ROUTER, as before). */
const char *ftiod_zmtp_listen_open(struct ftiod *d, const char *endpoint);
/* What the ingest loop polls (readable: call serve), -1 when none. */
int ftiod_zmtp_listen_fd(void);
/* Accept, read, and hand every whole message to fn; never blocks. */
void ftiod_zmtp_listen_serve(ftiod_zmtp_message_fn fn, void *ctx);
/* Close every connection (their unacknowledged batches stay the shims'),
 * remove the socket file. */
void ftiod_zmtp_listen_close(void);

#endif
