/* SPDX-License-Identifier: BSD-3-Clause */
/* app_key.c -- the hash of an application's arguments and its program name
 * (app_key.h), shared by the shim and `ftio scan --history`. */
#include <stdio.h>
#include <string.h>
#include "app_key.h"
#include "hash.h"
#include "numfmt.h"

/* Another use of the arguments than ours gets other hashes. */
static const char domain[] = "ftio-args-1";

void ftio_args_hash_init(struct ftio_args_hash *h)
{
    memset(h, 0, sizeof *h);
    h->exact = h->norm = FTIO_FNV_BASIS;
    for (size_t i = 0; i < sizeof domain; i++) {     /* with its NUL */
        h->exact = ftio_fnv_step(h->exact, (unsigned char)domain[i]);
        h->norm = ftio_fnv_step(h->norm, (unsigned char)domain[i]);
    }
}

void ftio_args_hash_add(struct ftio_args_hash *h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\0' || c == ' ') {
            h->spaces++;
            h->in_digits = false;
            continue;
        }
        /* a separator counts only when an argument follows it */
        for (; h->spaces > 0; h->spaces--) {
            h->exact = ftio_fnv_step(h->exact, ' ');
            h->norm = ftio_fnv_step(h->norm, ' ');
        }
        h->exact = ftio_fnv_step(h->exact, c);
        if (c >= '0' && c <= '9') {
            if (!h->in_digits)
                h->norm = ftio_fnv_step(h->norm, '#');
            h->in_digits = true;
        } else {
            h->norm = ftio_fnv_step(h->norm, c);
            h->in_digits = false;
        }
    }
}

/* "%016llx" each, without stdio: the shim's flusher calls this on a short
 * process's exit path (numfmt.h). */
void ftio_args_hash_hex(const struct ftio_args_hash *h, char exact[FTIO_ARGS_HASH_HEX],
                        char norm[FTIO_ARGS_HASH_HEX])
{
    *ftio_put_hex(exact, exact + 16, h->exact, 16) = '\0';
    *ftio_put_hex(norm, norm + 16, h->norm, 16) = '\0';
}

const char *ftio_app_prog(const char *exe)
{
    if (!exe)
        return "";
    const char *slash = strrchr(exe, '/');
    return slash ? slash + 1 : exe;
}

void ftio_app_split_cmdline(const char *cmdline, char *exe, size_t cap,
                            char args[FTIO_ARGS_HASH_HEX], char args_norm[FTIO_ARGS_HASH_HEX])
{
    const char *p = cmdline ? cmdline : "";
    while (*p == ' ')
        p++;
    size_t len = strcspn(p, " "), o = 0;
    for (size_t i = 0; i < len && o + 1 < cap; i++)
        if (!(p[i] == '/' && o > 0 && exe[o - 1] == '/'))
            exe[o++] = p[i];
    if (cap > 0)
        exe[o] = '\0';
    p += len;
    if (*p == ' ')      /* the one separator after argv[0]: an empty argument stays */
        p++;
    struct ftio_args_hash h;
    ftio_args_hash_init(&h);
    ftio_args_hash_add(&h, p, strlen(p));
    ftio_args_hash_hex(&h, args, args_norm);
}
