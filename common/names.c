/* SPDX-License-Identifier: BSD-3-Clause */
/* names.c -- human names of ops and layers (wire.h), for tools and logs.
 * The strings match the ones used on the command line (FTIO_LAYERS etc). */
#include "wire.h"

const char *ftio_op_name(int op)
{
    static const char *const names[FTIO_OP_COUNT] = {
        [FTIO_OP_READ] = "read",   [FTIO_OP_WRITE] = "write",
        [FTIO_OP_OPEN] = "open",   [FTIO_OP_CLOSE] = "close",
        [FTIO_OP_SYNC] = "sync",   [FTIO_OP_SEEK]  = "seek",
        [FTIO_OP_STAT] = "stat",   [FTIO_OP_META]  = "meta",
    };
    return op >= 0 && op < FTIO_OP_COUNT ? names[op] : "unknown";
}

const char *ftio_layer_name(int layer)
{
    static const char *const names[FTIO_LAYER_COUNT] = {
        [FTIO_LAYER_POSIX] = "posix", [FTIO_LAYER_STDIO] = "stdio",
        [FTIO_LAYER_MPIIO] = "mpiio", [FTIO_LAYER_API]   = "api",
    };
    return layer >= 0 && layer < FTIO_LAYER_COUNT ? names[layer] : "unknown";
}
