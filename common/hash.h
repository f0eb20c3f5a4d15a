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

uint32_t ftio_hash_bytes(const void *data, size_t len);   /* never 0 */
/* FNV-1a 64 itself: stable across hosts and versions, so a job id always
 * chooses the same daemon among several (PROTOCOL.md §1.5) and the same
 * journal name in --state-dir. */
uint64_t ftio_hash64(const void *data, size_t len);
uint32_t ftio_path_hash(const char *path);                /* NUL-terminated */

#endif
