/* SPDX-License-Identifier: BSD-3-Clause */
/* defaults.h -- the default endpoints (and the horizon), named once for every program: the
 * shim (FTIO_ENDPOINT), ftiod (--listen, --pub, --status-endpoint), the CLI
 * (endpoints.c, which reads ftiod.conf and $FTIO_* first), the SPANK plugin
 * and the examples.  Loopback TCP so that a first run needs no
 * configuration; a site sets its own in ftiod.conf (packaging/ftiod.conf).
 * The man pages and docs spell the same text out; tests/cli/defaults_doc.sh
 * checks that the man pages' defaults are these. */
#ifndef FTIO_DEFAULTS_H
#define FTIO_DEFAULTS_H

/* Where the shims send their batches: ftiod's --listen (PROTOCOL.md §1). */
#define FTIO_DEFAULT_ENDPOINT     "tcp://127.0.0.1:5555"
/* ftiod's PUB socket of predictions (PROTOCOL.md §2). */
#define FTIO_DEFAULT_PUB          "tcp://127.0.0.1:5556"
/* ftiod's control socket, --status-endpoint (PROTOCOL.md §3, control.h). */
#define FTIO_DEFAULT_STATUS       "tcp://127.0.0.1:5557"
/* Seconds of signal ftiod keeps per job and mode (--horizon), which is also
 * the longest request it and `ftio --max-span` take as possible. */
#define FTIO_DEFAULT_HORIZON      3600

/* The node's `ftio relay` (packaging/ftio-relay.env, the shims' endpoint
 * where a relay runs). */
#define FTIO_DEFAULT_RELAY_SOCKET "ipc:///run/ftio/relay.sock"

#endif
