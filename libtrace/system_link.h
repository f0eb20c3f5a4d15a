/* SPDX-License-Identifier: BSD-3-Clause */
/* system_link.h -- the system's <link.h> (dl_iterate_phdr, the loader's
 * link maps) for libc_reads.c: a plain <link.h> finds libtrace/link.h first
 * (the shim's connection to ftiod, -Ilibtrace), so this header, found
 * through -Ilibtrace itself, takes the next one on the search path. */
#include_next <link.h>
