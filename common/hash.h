/* SPDX-License-Identifier: BSD-3-Clause */
/* hash.h -- the 32-bit path hash used as file id (record.h: file_id).
 *
 * The shim hashes each absolute path once at open time and sends the
 * id -> path mapping in the batch's "files" list (PROTOCOL.md §1); the daemon
 * and the offline tools only ever compare ids.  Both sides must agree on the
 * function, hence it lives here.  FNV-1a 64-bit, folded to 32 bits by XOR of
 * the halves.  0 means "unknown file" in a record, so the hash never returns 0.
 */
#ifndef FTIO_HASH_H
#define FTIO_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64, one step: the hash h with one more byte (or value) folded in.
 * Every FNV-1a in the tree is these few lines (ftio_hash64, the app key,
 * the keys of names below). */
#define FTIO_FNV_BASIS 0xcbf29ce484222325ull     /* FNV-1a 64's offset basis */
#define FTIO_FNV_PRIME 0x100000001b3ull
static inline uint64_t ftio_fnv_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * FTIO_FNV_PRIME;
}
/* The keys of names in memory only (the offline reader's processes,
 * activities' groups, the report's jobs) were written with FNV's offset
 * basis a digit short.  Any basis serves them; this one stays because their
 * values order output (bench/analysis_compare.sh compares byte for byte). */
#define FTIO_FNV_BASIS_NAMES 1469598103934665603ull
static inline uint64_t ftio_fnv_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = ftio_fnv_step(h, (unsigned char)*s);
    return h;
}

uint32_t ftio_hash_bytes(const void *data, size_t len);   /* never 0 */
/* FNV-1a 64 itself: stable across hosts and versions, so a job id always
 * chooses the same daemon among several (PROTOCOL.md §1.5) and the same
 * journal name in --state-dir. */
uint64_t ftio_hash64(const void *data, size_t len);
uint32_t ftio_path_hash(const char *path);                /* NUL-terminated */

#endif
