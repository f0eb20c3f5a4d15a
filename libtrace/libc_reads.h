/* SPDX-License-Identifier: BSD-3-Clause */
/* libc_reads.h -- what glibc reads on the program's behalf (libc_reads.c):
 * its own files (locales, time zone, CPU lists, name services; and the
 * semaphore sem_open writes), the loader's reads of
 * objects loaded after start, stdio's read-ahead that the program never
 * consumed.  The kernel cross-check
 * (unseen.c) counts these apart from what no wrapper saw. */
#ifndef FTIO_LIBC_READS_H
#define FTIO_LIBC_READS_H

#include <stdint.h>
#include <stdio.h>
#include "shim.h"

/* A stream's get area before a call that may drop or refill it (stdio.c):
 * note it, make the call, then done(how); dropped() for a stream about to be
 * closed or replaced.  A few loads of the FILE: no system call, no lock. */
struct ftio_getarea {
    int ok, known;
    int64_t unread, from, to;
};
enum { FTIO_READAHEAD_CLOSE, FTIO_READAHEAD_FLUSH, FTIO_READAHEAD_SEEK };
FTIO_HIDDEN void ftio_readahead_note(FILE *fp, struct ftio_getarea *g);
FTIO_HIDDEN void ftio_readahead_done(FILE *fp, const struct ftio_getarea *g, int how);
FTIO_HIDDEN void ftio_readahead_dropped(FILE *fp);

/* Around a call that consumes from a stream without saying how much
 * (fscanf, getmntent): done() counts the bytes as passed (ftio_passed). */
struct ftio_consume {
    int ok;
    const char *ptr, *end;
};
FTIO_HIDDEN void ftio_consume_note(FILE *fp, struct ftio_consume *c);
FTIO_HIDDEN void ftio_consume_done(FILE *fp, const struct ftio_consume *c);

/* The shim's own dlopens (lazy.c, the flusher): loading() before them,
 * loaded() after with their handles: the objects those need are not the
 * application's reads; objects the application loaded meanwhile are. */
FTIO_HIDDEN void ftio_libc_reads_shim_loading(void);
FTIO_HIDDEN void ftio_libc_reads_shim_loaded(void *const *handles, int n);

/* unseen.c: start (constructor), fork child, and the end's figures. */
struct ftio_libc_reads {
    uint64_t files, loader, readahead, own;
    int missed_objects;            /* more objects than the table holds: some not counted */
};
FTIO_HIDDEN void ftio_libc_reads_init(void);
FTIO_HIDDEN void ftio_libc_reads_after_fork_child(void);
FTIO_HIDDEN void ftio_libc_reads_final(struct ftio_libc_reads *out);

/* unseen.c's, for the above: the image is traced (its counts started);
 * the calling thread's rchar and wchar (io[0], io[1]), and the bytes that
 * reading them moved (which the kernel adds to rchar after).  0 or -1. */
FTIO_HIDDEN int ftio_unseen_started(void);
FTIO_HIDDEN int ftio_unseen_thread_io(uint64_t io[2], uint64_t *len);

#endif
