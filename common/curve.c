/* SPDX-License-Identifier: BSD-3-Clause */
/* curve.c -- CURVE key files (curve.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>
#include "auth.h"
#include "curve.h"

static int is_z85_key(const char *s, size_t n)
{
    if (n != FTIO_Z85_KEY_LEN)
        return 0;
    uint8_t bin[32];
    char tmp[FTIO_Z85_KEY_LEN + 1];
    memcpy(tmp, s, n);
    tmp[n] = 0;
    return zmq_z85_decode(bin, tmp) != NULL;
}

/* The key labelled `label` in the file (or an unlabelled line when label is
 * NULL or no labelled line exists).  1 found, 0 not, -1 unreadable. */
static int find_in_file(const char *path, const char *label, char out[FTIO_Z85_KEY_LEN + 1],
                        char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int found = 0, lineno = 0;
    char bare[FTIO_Z85_KEY_LEN + 1] = "";
    while (!found && fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '#' || !*p)
            continue;
        char *end = p + strlen(p);
        while (end > p && isspace((unsigned char)end[-1]))
            *--end = 0;
        /* "label KEY" (Z85 has no blanks, but has '=' and quotes: split
         * on blanks only) or a bare KEY */
        char *sp = strpbrk(p, " \t");
        if (sp) {
            char *val = sp;
            while (*val == ' ' || *val == '\t')
                val++;
            size_t vn = strlen(val);
            if (label && (size_t)(sp - p) == strlen(label) && !strncmp(p, label, strlen(label)) &&
                is_z85_key(val, vn)) {
                memcpy(out, val, vn);
                out[vn] = 0;
                found = 1;
            }
        } else if (is_z85_key(p, strlen(p)) && !bare[0]) {
            memcpy(bare, p, FTIO_Z85_KEY_LEN + 1);
        }
    }
    fclose(f);
    if (!found && bare[0]) {
        memcpy(out, bare, FTIO_Z85_KEY_LEN + 1);
        found = 1;
    }
    return found;
}

int ftio_curve_load(const char *arg, int want_secret, char out[FTIO_Z85_KEY_LEN + 1], char *err,
                    size_t errlen)
{
    if (!arg || !*arg) {
        snprintf(err, errlen, "empty key");
        return -1;
    }
    if (is_z85_key(arg, strlen(arg)) && access(arg, F_OK) != 0) {
        memcpy(out, arg, FTIO_Z85_KEY_LEN + 1);
        return 0;
    }
    int r = find_in_file(arg, want_secret ? "secret" : "public", out, err, errlen);
    if (r == 0)
        snprintf(err, errlen, "%s: no %s key (40 Z85 characters) in it", arg,
                 want_secret ? "secret" : "public");
    return r == 1 ? 0 : -1;
}

int ftio_curve_load_pair(const char *path, char pub[FTIO_Z85_KEY_LEN + 1],
                         char sec[FTIO_Z85_KEY_LEN + 1], char *err, size_t errlen)
{
    if (find_in_file(path, "secret", sec, err, errlen) != 1) {
        if (!strchr(err, ':'))
            snprintf(err, errlen, "%s: no secret key in it", path);
        return -1;
    }
    if (zmq_curve_public(pub, sec) != 0) {
        snprintf(err, errlen, "%s: not a valid secret key", path);
        return -1;
    }
    return 0;
}

int ftio_curve_keygen(const char *name, char *err, size_t errlen)
{
    char pub[FTIO_Z85_KEY_LEN + 1], sec[FTIO_Z85_KEY_LEN + 1];
    if (zmq_curve_keypair(pub, sec) != 0) {
        snprintf(err, errlen, "cannot make keys: %s", zmq_strerror(errno));
        return -1;
    }
    char path[4096];
    const char *ext[2] = {".key", ".pub"};
    for (int i = 0; i < 2; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s%s", name, ext[i]) >= sizeof path) {
            snprintf(err, errlen, "name too long");
            return -1;
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      i == 0 ? 0600 : 0644);
        if (fd < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        char buf[256];
        int n = i == 0 ? snprintf(buf, sizeof buf,
                                  "# ftio CURVE key pair: keep this file secret\n"
                                  "public %s\nsecret %s\n", pub, sec)
                       : snprintf(buf, sizeof buf, "%s\n", pub);
        if (write(fd, buf, (size_t)n) != n || close(fd) != 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
    }
    memset(sec, 0, sizeof sec);
    return 0;
}

int ftio_curve_client(void *socket, const char *server_key, const char *key_file, char *err,
                      size_t errlen)
{
    char srv[FTIO_Z85_KEY_LEN + 1], pub[FTIO_Z85_KEY_LEN + 1], sec[FTIO_Z85_KEY_LEN + 1];
    if (ftio_curve_load(server_key, 0, srv, err, errlen) != 0)
        return -1;
    if (key_file) {
        if (ftio_curve_load_pair(key_file, pub, sec, err, errlen) != 0)
            return -1;
    } else if (zmq_curve_keypair(pub, sec) != 0) {
        snprintf(err, errlen, "cannot make keys: %s", zmq_strerror(errno));
        return -1;
    }
    int rc = zmq_setsockopt(socket, ZMQ_CURVE_SERVERKEY, srv, FTIO_Z85_KEY_LEN) |
             zmq_setsockopt(socket, ZMQ_CURVE_PUBLICKEY, pub, FTIO_Z85_KEY_LEN) |
             zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, sec, FTIO_Z85_KEY_LEN);
    memset(sec, 0, sizeof sec);
    if (rc != 0) {
        snprintf(err, errlen, "CURVE: %s", zmq_strerror(errno));
        return -1;
    }
    return 0;
}
