/* SPDX-License-Identifier: BSD-3-Clause */
/* curve.h -- ZeroMQ CURVE keys (docs/SECURITY.md).
 *
 * ftiod's PUB and status sockets are CURVE servers when it has a secret key
 * (--curve-secret): traffic is encrypted, and only clients whose public key
 * is in its allow-list (--curve-clients DIR) may subscribe or read every
 * job's status.  Key files are text: a ".pub" file holds one line, the Z85
 * public key (40 characters); a ".key" file holds "public <z85>" and
 * "secret <z85>" lines and is created mode 0600.  `ftio keygen NAME` writes
 * NAME.pub and NAME.key.
 *
 * The client of the status (control) socket is common/control.h.
 */
#ifndef FTIO_CURVE_H
#define FTIO_CURVE_H

#include <stddef.h>

#define FTIO_Z85_KEY_LEN 40

/* A key given as 40 Z85 characters or as a file holding one ("secret" line
 * preferred when want_secret, else "public" or the only key).  0, or -1
 * with the reason. */
int ftio_curve_load(const char *arg, int want_secret, char out[FTIO_Z85_KEY_LEN + 1], char *err,
                    size_t errlen);
/* Both halves of a .key file (or of a file with a secret key: the public
 * one is derived). */
int ftio_curve_load_pair(const char *path, char pub[FTIO_Z85_KEY_LEN + 1],
                         char sec[FTIO_Z85_KEY_LEN + 1], char *err, size_t errlen);
/* `ftio keygen`: NAME.key (0600, O_EXCL) and NAME.pub. */
int ftio_curve_keygen(const char *name, char *err, size_t errlen);

/* Make socket a CURVE client of a server with that public key; own keys
 * from key_file, or a fresh pair when NULL (an anonymous client: encrypted,
 * but not on any allow-list). */
int ftio_curve_client(void *socket, const char *server_key, const char *key_file, char *err,
                      size_t errlen);

#endif
