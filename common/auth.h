/* SPDX-License-Identifier: BSD-3-Clause */
/* auth.h -- who sent a batch, and who asks a question (PROTOCOL.md §1.3).
 *
 * ftiod trusts a uid only when MUNGE vouches for it.  MUNGE is what every
 * Slurm site already runs: munged on each node shares a key, and a credential
 * encoded by a process carries that process' uid, which munged on the daemon's
 * node decodes and vouches for.  A credential costs a round trip to munged, so
 * a sender asks for one per process image, not per batch:
 *
 *   - the credential's payload is a fresh random 32-byte session key
 *     (FTIO_AUTH_BATCH_TAG + key); munged encrypts it and the credential is
 *     restricted to ftiod's uid (ftio_auth_daemon_uid() below), so only
 *     ftiod learns the key: a process that captures a batch (a fake daemon
 *     bound to the endpoint while the real one restarts) can neither decode
 *     the credential nor sign with it;
 *   - every batch travels as two ZeroMQ frames: the batch itself, then the
 *     auth frame "FTA1" + MAC + credential, where MAC = keyed BLAKE2b-256 of
 *     the batch bytes under the session key (libsodium).
 *
 * ftiod decodes each distinct credential once (cache), then checks one MAC
 * per batch: a forged batch, or a copied credential glued to other bytes,
 * fails.  A credential must be fresh the first time ftiod decodes it: munged's
 * "replayed" (someone decoded it first) and "expired" verdicts are accepted
 * only for a credential this ftiod decoded before (its cache forgot it), and
 * a session key is good for FTIO_AUTH_SESSION_S after the credential was
 * made.  Senders make a new session every FTIO_AUTH_RENEW_S and whenever the
 * daemon stops answering (a restarted ftiod has never seen the old one).
 * Status queries carry a one-shot credential whose payload is
 * FTIO_AUTH_QUERY_TAG + the request itself, which munged's replay cache makes
 * single-use.
 *
 * The sender side lives here (the shim, `ftio replay`, the test generator and
 * `ftio sub`/`ftiod --status` share it); the checking side is ftiod's
 * (predictor/daemon/auth_verify.c).  Nothing here is on the shim's hot path: the
 * flusher thread calls it once per batch.
 */
#ifndef FTIO_AUTH_H
#define FTIO_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FTIO_AUTH_MAGIC      "FTA1"
#define FTIO_AUTH_MAGIC_LEN  4
#define FTIO_AUTH_KEY_LEN    32
#define FTIO_AUTH_MAC_LEN    32
#define FTIO_AUTH_CRED_MAX   4096            /* a MUNGE credential is ~200 bytes */
#define FTIO_AUTH_FRAME_MAX  (FTIO_AUTH_MAGIC_LEN + FTIO_AUTH_MAC_LEN + FTIO_AUTH_CRED_MAX)
/* Credential payloads start with a purpose tag (NUL included), so a batch
 * credential can never pass for a query and the reverse. */
#define FTIO_AUTH_BATCH_TAG  "ftio-batch-key-1"
#define FTIO_AUTH_QUERY_TAG  "ftio-query-1"

/* A session key's life at ftiod, counted from the credential's encode time,
 * and the age at which senders make a new one (below munged's default TTL of
 * 300 s, so that a new credential is fresh when it first arrives). */
#define FTIO_AUTH_SESSION_S  3600
#define FTIO_AUTH_RENEW_S    120

enum ftio_auth_mode { FTIO_AUTH_MUNGE = 0, FTIO_AUTH_NONE = 1 };

/* The uid a batch credential is restricted to (only it may decode): from
 * setting (FTIO_AUTH_UID: a number, a user of /etc/passwd, or "any" for no
 * restriction), else the owner of endpoint's socket file when it is an
 * ipc:// endpoint in a directory only that owner (or root) can write, else
 * the system user "ftio" of /etc/passwd, else root.  *uid = (uid_t)-1 for
 * "any".  how says which rule chose it.  0, or -1 with the reason in how
 * (a setting that is neither). */
int ftio_auth_daemon_uid(const char *setting, const char *endpoint, uid_t *uid, char *how,
                         size_t howlen);

/* "munge" / "none" -> mode; -1 for anything else. */
int ftio_auth_mode_parse(const char *s);
const char *ftio_auth_mode_name(int mode);

/* The mode of the client tools (`ftio replay`, `sub`, `end`, `claim`,
 * `ftiod --status`): FTIO_AUTH, the one place it is read (munge when unset
 * or empty).  -1 for any other value, with "FTIO_AUTH=X: expected munge or
 * none" in err (err may be NULL).  (The shim reads its FTIO_* table,
 * libtrace/config.c.) */
int ftio_auth_client_mode(char *err, size_t errlen);
/* Does a query to ftiod carry a MUNGE credential?  Unless FTIO_AUTH=none:
 * under a wrong value too, and the daemon says what it refuses. */
int ftio_auth_query_munge(void);

/* Where munged listens: $FTIO_MUNGE_SOCKET, else NULL (libmunge's default). */
const char *ftio_auth_munge_socket_env(void);

/* Keyed BLAKE2b-256 of buf (the batch MAC). */
void ftio_auth_mac(const unsigned char key[FTIO_AUTH_KEY_LEN], const void *buf, size_t len,
                   unsigned char out[FTIO_AUTH_MAC_LEN]);

/* A sender's session: one credential, one key. */
struct ftio_auth_sender {
    unsigned char key[FTIO_AUTH_KEY_LEN];
    char  *cred;                 /* malloc'd MUNGE credential, NULL until made */
    size_t cred_len;
};

/* Make the session: a fresh key and a MUNGE credential carrying it.
 * socket: munged's socket (NULL = default); restrict_uid: only that uid may
 * decode it ((uid_t)-1 = anyone).  Returns 0, or -1 with a one-line reason
 * in err (munged absent, ...). */
int ftio_auth_sender_init(struct ftio_auth_sender *s, const char *socket, uid_t restrict_uid,
                          char *err, size_t errlen);
/* The auth frame of one batch into out (cap >= FTIO_AUTH_FRAME_MAX is always
 * enough); returns its length. */
size_t ftio_auth_frame(const struct ftio_auth_sender *s, const void *batch, size_t len,
                       unsigned char *out, size_t cap);
/* Forget the session (wipes the key). */
void ftio_auth_sender_free(struct ftio_auth_sender *s);

/* For tools that send batches (`ftio replay`, test generators): the session
 * asked by the environment (FTIO_AUTH, default munge; FTIO_MUNGE_SOCKET;
 * FTIO_AUTH_UID, else ftio_auth_daemon_uid()'s default for endpoint), or
 * mode_override >= 0.  *out is NULL under "none".  0, or -1 with the reason. */
int ftio_auth_sender_from_env(int mode_override, const char *endpoint,
                              struct ftio_auth_sender **out, char *err, size_t errlen);

/* A one-shot credential for a status query whose text is req[0..len).
 * Returns a malloc'd credential or NULL with the reason in err. */
char *ftio_auth_query_cred(const char *socket, const void *req, size_t len, char *err,
                           size_t errlen);

/* Parse an auth frame: points *mac and *cred into it.  -1 if malformed. */
int ftio_auth_frame_parse(const void *frame, size_t len, const unsigned char **mac,
                          const char **cred, size_t *cred_len);

#endif
