/* SPDX-License-Identifier: BSD-3-Clause */
/* handoff.c -- the end of an image: what the application's thread does when
 * the process exits (destructor, _exit, at_quick_exit, MPI_Abort/Finalize
 * without a daemon), dies of a fatal signal, or execs (lifecycle.c and
 * mpi_life.c call these).
 *
 * Each asks the flusher thread (flusher.c) to stop with a reason and waits
 * for it, bounded (FTIO_EXIT_WAIT_MS and a margin); the thread itself does
 * the last drain and the sink's end (sink.c).  A final stop (exit,
 * signal) overrides a hand-off in progress and is given once per image; an
 * exec hands the stream off (FTIO_STOP_HANDOFF, or FTIO_STOP_EXEC_TRACED
 * when the next image loads the shim and takes the unacknowledged batches),
 * and a failed exec re-arms the flusher so the next record starts a new one.
 * errno and the reentrancy flag are kept on every path.
 */
#include <errno.h>
#include "internal.h"

/* The image ends with the flusher still busy (stuck, or given its bounds:
 * ftio_flusher_wait_exited()): what it had not sent or spooled is gone, and
 * nobody else can tell (no final batch, no "lost").  Said always, not only
 * under FTIO_DEBUG. */
static void warn_unfinished(void)
{
    ftio_warn("this process ends before its last records were sent to ftiod or spooled (the "
              "flusher did not finish within its bound): its trace may be incomplete");
}

void ftio_flush_from_signal(int final)
{
    /* (A process whose records wait for its end, flusher.c: at a fatal
     * signal its thread delivers them; an application's handler does not
     * make them go sooner.) */
    if (!ftio_flusher_may_ask() || !atomic_load(&ftio_flusher_started) ||
        (!final && !ftio_flusher_running()))
        return;
    int saved = errno;
    if (!final)
        ftio_flusher_request(1);
    else if (ftio_flusher_begin_ending()) {
        if (!ftio_flusher_end_here()) {
            ftio_flusher_stop(FTIO_STOP_FINAL);
            if (!ftio_flusher_wait_exited())
                warn_unfinished();
        }
        ftio_mark_shut_down();
    }
    errno = saved;
}

void ftio_shutdown(void)
{
    if (!ftio_flusher_may_ask() || ftio_flusher_ending())
        return;
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    /* An exec'd image continuing a traced stream (FTIO_SEQ_BASE) closes it
     * with a final batch even if it recorded nothing itself. */
    if (!atomic_load(&ftio_flusher_started) && ftio_flusher_next_seq() > 0)
        ftio_flusher_start_if_needed();
    if (ftio_flusher_begin_ending()) {
        if (ftio_flusher_was_started() &&    /* nobody starts it behind our back now */
            !ftio_flusher_end_here()) {
            ftio_flusher_stop(FTIO_STOP_FINAL);
            if (ftio_flusher_wait_exited())
                ftio_flusher_join();
            else
                warn_unfinished();
        }
        ftio_mark_shut_down();
        ftio_log("shut down");
    }
    ftio_busy = busy;
    errno = saved;
}

int ftio_flusher_handoff(int next_traced)
{
    if (!ftio_flusher_may_ask() || ftio_flusher_ending())
        return 0;
    ftio_flusher_undefer();         /* records that waited for the end: the thread hands them off */
    if (!ftio_flusher_running())
        return 0;
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    int handed = ftio_flusher_stop(next_traced ? FTIO_STOP_EXEC_TRACED : FTIO_STOP_HANDOFF);
    if (handed && !ftio_flusher_wait_exited())
        ftio_log("pre-exec hand-off not finished within %d ms", ftio_flusher_wait_bound_ms());
    ftio_busy = busy;
    errno = saved;
    return handed;
}

void ftio_flusher_handoff_failed(void)
{
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    if (ftio_flusher_rearm())
        ftio_log("exec failed: tracing continues");
    ftio_busy = busy;
    errno = saved;
}
