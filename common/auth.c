/* SPDX-License-Identifier: BSD-3-Clause */
/* auth.c -- the sender side of authenticated ingest and queries (auth.h).
 *
 * libmunge asks the local munged for credentials; libsodium supplies the
 * random session key and the keyed BLAKE2b MAC.  Used by the shim's flusher
 * thread (once per process image for the credential, once per batch for the
 * MAC), by `ftio replay`, the test generator and the status clients.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <munge.h>
#include <sodium.h>
#include <sys/stat.h>
#include "auth.h"

int ftio_auth_mode_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "munge") == 0)
        return FTIO_AUTH_MUNGE;
    if (strcmp(s, "none") == 0)
        return FTIO_AUTH_NONE;
    return -1;
}

const char *ftio_auth_mode_name(int mode)
{
    return mode == FTIO_AUTH_NONE ? "none" : "munge";
}

int ftio_auth_client_mode(char *err, size_t errlen)
{
    const char *m = getenv("FTIO_AUTH");
    int mode = m && *m ? ftio_auth_mode_parse(m) : FTIO_AUTH_MUNGE;
    if (mode < 0 && err)
        snprintf(err, errlen, "FTIO_AUTH=%s: expected munge or none", m);
    return mode;
}

int ftio_auth_query_munge(void)
{
    return ftio_auth_client_mode(NULL, 0) != FTIO_AUTH_NONE;
}

const char *ftio_auth_munge_socket_env(void)
{
    const char *s = getenv("FTIO_MUNGE_SOCKET");
    return s && *s ? s : NULL;
}

/* The uid of a user of /etc/passwd, read directly: the daemon's account is
 * a local system user, and the shim must not wake NSS modules (LDAP, sssd)
 * inside the application.  0 when found. */
static int passwd_uid(const char *name, uid_t *uid)
{
    FILE *f = fopen("/etc/passwd", "re");
    if (!f)
        return -1;
    char line[1024];
    size_t n = strlen(name);
    int rc = -1;
    while (rc != 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, name, n) != 0 || line[n] != ':')
            continue;
        const char *p = strchr(line + n + 1, ':');      /* past the password field */
        char *end;
        unsigned long u = p ? strtoul(p + 1, &end, 10) : 0;
        if (p && end != p + 1 && *end == ':' && u < (uid_t)-1) {
            *uid = (uid_t)u;
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/* The owner of an ipc:// endpoint's socket file, when nobody else could have
 * put it there: its directory is writable by its owner only, and that owner
 * is the socket's or root.  (In a directory like /tmp anyone could bind a
 * fake daemon there and then own the socket file.) */
static int ipc_owner(const char *endpoint, uid_t *uid)
{
    if (!endpoint || strncmp(endpoint, "ipc://", 6) != 0)
        return -1;
    const char *path = endpoint + 6;
    struct stat st, dst;
    if (path[0] != '/' || lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
        return -1;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t dl = slash == path ? 1 : (size_t)(slash - path);
    if (dl >= sizeof dir)
        return -1;
    memcpy(dir, path, dl);
    dir[dl] = 0;
    if (stat(dir, &dst) != 0 || (dst.st_mode & 022) || (dst.st_uid != 0 && dst.st_uid != st.st_uid))
        return -1;
    *uid = st.st_uid;
    return 0;
}

int ftio_auth_daemon_uid(const char *setting, const char *endpoint, uid_t *uid, char *how,
                         size_t howlen)
{
    if (setting && *setting) {
        char *end;
        unsigned long u = strtoul(setting, &end, 10);
        if (strcmp(setting, "any") == 0) {
            *uid = (uid_t)-1;
            snprintf(how, howlen, "FTIO_AUTH_UID=any: any uid may decode");
        } else if (setting[0] >= '0' && setting[0] <= '9' && !*end && u < (uid_t)-1) {
            *uid = (uid_t)u;
            snprintf(how, howlen, "FTIO_AUTH_UID=%lu", u);
        } else if (passwd_uid(setting, uid) == 0) {
            snprintf(how, howlen, "FTIO_AUTH_UID=%s (uid %u)", setting, (unsigned)*uid);
        } else {
            snprintf(how, howlen, "FTIO_AUTH_UID=%s is neither a uid, a user of /etc/passwd "
                                  "nor \"any\"", setting);
            return -1;
        }
        return 0;
    }
    if (ipc_owner(endpoint, uid) == 0)
        snprintf(how, howlen, "uid %u, the owner of %s", (unsigned)*uid, endpoint);
    else if (passwd_uid("ftio", uid) == 0)
        snprintf(how, howlen, "uid %u, the system user ftio", (unsigned)*uid);
    else {
        *uid = 0;
        snprintf(how, howlen, "root (no FTIO_AUTH_UID, no user ftio)");
    }
    return 0;
}

void ftio_auth_mac(const unsigned char key[FTIO_AUTH_KEY_LEN], const void *buf, size_t len,
                   unsigned char out[FTIO_AUTH_MAC_LEN])
{
    crypto_generichash(out, FTIO_AUTH_MAC_LEN, buf, len, key, FTIO_AUTH_KEY_LEN);
}

/* A credential for payload (len bytes); NULL with a reason on failure. */
static char *encode(const char *socket, uid_t restrict_uid, const void *payload, int len,
                    char *err, size_t errlen)
{
    munge_ctx_t ctx = munge_ctx_create();
    if (!ctx) {
        snprintf(err, errlen, "munge: out of memory");
        return NULL;
    }
    munge_err_t e = EMUNGE_SUCCESS;
    if (socket)
        e = munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket);
    if (e == EMUNGE_SUCCESS && restrict_uid != (uid_t)-1)
        e = munge_ctx_set(ctx, MUNGE_OPT_UID_RESTRICTION, restrict_uid);
    char *cred = NULL;
    if (e == EMUNGE_SUCCESS)
        e = munge_encode(&cred, ctx, payload, len);
    if (e != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "munge: %s", munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx)
                                                                  : munge_strerror(e));
        free(cred);
        cred = NULL;
    }
    munge_ctx_destroy(ctx);
    return cred;
}

int ftio_auth_sender_init(struct ftio_auth_sender *s, const char *socket, uid_t restrict_uid,
                          char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (sodium_init() < 0) {
        snprintf(err, errlen, "libsodium could not initialise");
        return -1;
    }
    randombytes_buf(s->key, sizeof s->key);
    unsigned char payload[sizeof FTIO_AUTH_BATCH_TAG + FTIO_AUTH_KEY_LEN];
    memcpy(payload, FTIO_AUTH_BATCH_TAG, sizeof FTIO_AUTH_BATCH_TAG);
    memcpy(payload + sizeof FTIO_AUTH_BATCH_TAG, s->key, FTIO_AUTH_KEY_LEN);
    s->cred = encode(socket, restrict_uid, payload, (int)sizeof payload, err, errlen);
    sodium_memzero(payload, sizeof payload);
    if (!s->cred) {
        sodium_memzero(s->key, sizeof s->key);
        return -1;
    }
    s->cred_len = strlen(s->cred);
    if (s->cred_len > FTIO_AUTH_CRED_MAX) {
        snprintf(err, errlen, "munge: credential of %zu bytes is too long", s->cred_len);
        ftio_auth_sender_free(s);
        return -1;
    }
    return 0;
}

size_t ftio_auth_frame(const struct ftio_auth_sender *s, const void *batch, size_t len,
                       unsigned char *out, size_t cap)
{
    size_t need = FTIO_AUTH_MAGIC_LEN + FTIO_AUTH_MAC_LEN + s->cred_len;
    if (!s->cred || cap < need)
        return 0;
    memcpy(out, FTIO_AUTH_MAGIC, FTIO_AUTH_MAGIC_LEN);
    ftio_auth_mac(s->key, batch, len, out + FTIO_AUTH_MAGIC_LEN);
    memcpy(out + FTIO_AUTH_MAGIC_LEN + FTIO_AUTH_MAC_LEN, s->cred, s->cred_len);
    return need;
}

void ftio_auth_sender_free(struct ftio_auth_sender *s)
{
    free(s->cred);
    sodium_memzero(s->key, sizeof s->key);
    s->cred = NULL;
    s->cred_len = 0;
}

int ftio_auth_sender_from_env(int mode_override, const char *endpoint,
                              struct ftio_auth_sender **out, char *err, size_t errlen)
{
    *out = NULL;
    int mode = mode_override >= 0 ? mode_override : ftio_auth_client_mode(err, errlen);
    if (mode < 0)
        return -1;
    if (mode == FTIO_AUTH_NONE)
        return 0;
    uid_t restrict_uid;
    if (ftio_auth_daemon_uid(getenv("FTIO_AUTH_UID"), endpoint, &restrict_uid, err, errlen) != 0)
        return -1;
    struct ftio_auth_sender *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (ftio_auth_sender_init(s, ftio_auth_munge_socket_env(), restrict_uid, err, errlen) != 0) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

char *ftio_auth_query_cred(const char *socket, const void *req, size_t len, char *err,
                           size_t errlen)
{
    if (len > 65536) {
        snprintf(err, errlen, "query too long");
        return NULL;
    }
    size_t n = sizeof FTIO_AUTH_QUERY_TAG + len;
    unsigned char *payload = malloc(n);
    if (!payload) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memcpy(payload, FTIO_AUTH_QUERY_TAG, sizeof FTIO_AUTH_QUERY_TAG);
    memcpy(payload + sizeof FTIO_AUTH_QUERY_TAG, req, len);
    char *cred = encode(socket, (uid_t)-1, payload, (int)n, err, errlen);
    free(payload);
    return cred;
}

int ftio_auth_frame_parse(const void *frame, size_t len, const unsigned char **mac,
                          const char **cred, size_t *cred_len)
{
    const unsigned char *p = frame;
    if (len <= FTIO_AUTH_MAGIC_LEN + FTIO_AUTH_MAC_LEN || len > FTIO_AUTH_FRAME_MAX ||
        memcmp(p, FTIO_AUTH_MAGIC, FTIO_AUTH_MAGIC_LEN) != 0)
        return -1;
    *mac = p + FTIO_AUTH_MAGIC_LEN;
    *cred = (const char *)p + FTIO_AUTH_MAGIC_LEN + FTIO_AUTH_MAC_LEN;
    *cred_len = len - FTIO_AUTH_MAGIC_LEN - FTIO_AUTH_MAC_LEN;
    return 0;
}
