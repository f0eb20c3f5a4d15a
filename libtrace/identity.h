/* SPDX-License-Identifier: BSD-3-Clause */
/* identity.h -- the application identity a process image sends once, in its
 * first batch (PROTOCOL.md §1 `app`; identity.c). */
#ifndef FTIO_LIBTRACE_IDENTITY_H
#define FTIO_LIBTRACE_IDENTITY_H

#include "shim.h"
#include "wire.h"

/* Fill *out (its strings stay valid for the life of the image): computed on
 * the first call, cached after.  The flusher thread only: never on the
 * application's path.  Returns true when there is something to send. */
FTIO_HIDDEN bool ftio_identity_get(struct ftio_app_identity *out);

/* The constructor, before main(): where the image's initial arguments and
 * PATH lie (what /proc/self/cmdline and environ show), for the identity. */
FTIO_HIDDEN void ftio_identity_note(int argc, char **argv, char **envp);

#endif
