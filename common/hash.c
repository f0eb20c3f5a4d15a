/* SPDX-License-Identifier: BSD-3-Clause */
/* hash.c -- FNV-1a 64 (job ids: the daemon of a job, its journal) and its
 * 32-bit fold, the file id of a path (hash.h).
 * Not cryptographic: ids only need to be stable and rarely collide among the
 * few thousand files of one job. */
#include <string.h>
#include "hash.h"

uint64_t ftio_hash64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = FTIO_FNV_BASIS;
    for (size_t i = 0; i < len; i++)
        h = ftio_fnv_step(h, p[i]);
    return h;
}

uint32_t ftio_hash_bytes(const void *data, size_t len)
{
    uint64_t h = ftio_hash64(data, len);
    uint32_t folded = (uint32_t)(h >> 32) ^ (uint32_t)h;
    return folded ? folded : 1;                   /* 0 is reserved: unknown */
}

uint32_t ftio_path_hash(const char *path)
{
    return ftio_hash_bytes(path, strlen(path));
}
