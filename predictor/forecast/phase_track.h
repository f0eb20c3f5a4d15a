/* SPDX-License-Identifier: BSD-3-Clause */
/* phase_track.h -- each I/O phase of a job, described (PROTOCOL.md §2
 * Version 4, `phase`; ALGORITHM.md §12): how many processes moved data in
 * it, the bytes of the busiest one (the load skew), the files it touched,
 * its opens, metadata and sync calls, the file system its bytes went to,
 * its span from its first call to its last (a checkpoint's fsync included)
 * and so its achieved bandwidth.  Part of libftioforecast.a; ftiod feeds it
 * the records of every batch it merges (daemon/job_machine.c), `ftio` the
 * records of a trace in time order (cli/offline.c), so both describe the
 * same phases the same way.
 *
 * How, with memory that does not grow with the records or the job's
 * length:
 *   - per process, the *segments* not yet described: runs of its own data
 *     records (a record within `join` s of a segment extends it), each with
 *     its bytes, records, up to FTIO_PT_FIDS file ids (further files
 *     counted), its file system; room for FTIO_PT_SEGS of them, grown up to
 *     FTIO_PT_SEGS_MAX while its data runs ahead of the descriptions (a
 *     replayed spool file arrives whole before the first analysis), then a
 *     full set merges its two closest segments of one mode (the gaps inside
 *     a phase are shorter than those between phases: a replay of more than
 *     FTIO_PT_SEGS_MAX phases of one process before its first description
 *     describes its oldest ones merged).  Metadata (open, close, stat, other) and syncs
 *     within FTIO_PT_ATTACH s of a process's data are part of that
 *     segment, and stretch its span: an fsync after a checkpoint's writes
 *     is part of the checkpoint; a call further from any data is counted
 *     as between phases.
 *   - a job's *phase* is a maximal union of the processes' segments of one
 *     mode whose gaps are at most `gap` s (ftio_pt_settle; the caller
 *     derives `gap` from the period it knows, ftio_pt_gap).  A union that
 *     ended more than `gap` s before the data's horizon is over: it is
 *     described (every process's bytes in it summed apart, so `ranks` and
 *     `skew` are exact), kept in a ring of the last FTIO_PT_HISTORY phases,
 *     and its segments are freed.
 *   - records of a described phase that arrive late (a slow rank's batch,
 *     the fsync that ended it) update it; it is *confirmed* once every
 *     process in it has moved on (sent something later), sent its final
 *     batch, or the data went FTIO_PT_CONFIRM s past its end.  Only
 *     confirmed phases say how long a phase took (the duration model).
 * Times are the caller's seconds (ftiod: job-relative).  Not thread-safe:
 * the caller locks.
 */
#ifndef FTIO_PHASE_TRACK_H
#define FTIO_PHASE_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTIO_PT_SEGS    4       /* segments per process, to start with */
#define FTIO_PT_SEGS_MAX 64     /* segments per process at most */
#define FTIO_PT_FIDS    2       /* file ids kept exactly per segment */
#define FTIO_PT_HISTORY 16      /* described phases kept per mode */
#define FTIO_PT_ATTACH  1.0     /* s: metadata this close to a process's data is in its phase */
#define FTIO_PT_CONFIRM 10.0    /* s of data past a phase's end that confirm it anyway */
#define FTIO_PT_GAP_UNKNOWN 1.0 /* s: phases apart by more are two, while no period is known */
#define FTIO_PT_FS_UNKNOWN 0xffff   /* a segment whose files' file system is not known */
enum { FTIO_PT_WRITE = 0, FTIO_PT_READ = 1, FTIO_PT_NMODES = 2 };   /* ftiod's and trace.h's order */

struct ftio_pt_seg {
    double   ts, te;            /* first call's start, last call's end */
    double   bytes;
    uint32_t records, opens, meta, syncs;
    uint32_t fid[FTIO_PT_FIDS]; /* the first distinct file ids */
    uint32_t more_files;        /* further distinct files (counted, not kept) */
    uint32_t last_more;         /* the last of those (consecutive repeats count once) */
    uint16_t fs;                /* the caller's file system index of its first data */
    uint8_t  nfid, mode;
};

struct ftio_pt_proc {
    struct ftio_pt_seg *seg;    /* nseg of segcap */
    uint8_t  nseg, segcap;
    bool     final;
    double   te_max[FTIO_PT_NMODES];   /* no segment of a mode ends after this (an upper
                                          bound): a record starting later than it plus
                                          the join needs no search of the segments */
    /* metadata waiting for its next data record */
    uint32_t p_opens, p_meta, p_syncs;
    double   p_ts, p_te;
    /* the last described phase it moved data in, for its late records */
    uint64_t last_seq;          /* that phase's seq, 0: none */
    uint8_t  last_mode;
    bool     in_last;           /* it has not moved on from it yet */
    double   last_bytes;        /* its bytes in it */
};

/* One described phase. */
struct ftio_pt_phase {
    uint64_t seq;               /* 1, 2, ... per mode */
    double   start, end;        /* its first call's start, last call's end */
    double   bytes;
    uint64_t records;
    uint32_t ranks;             /* processes that moved data in it */
    double   skew_bytes;        /* bytes of the busiest of them */
    uint32_t files;             /* distinct files of its data */
    bool     files_exact;       /* false: some process touched more than FTIO_PT_FIDS */
    uint32_t opens, meta, syncs;
    uint16_t fs;                /* the file system of most of its bytes */
    double   fs_share;          /* the share of its bytes there */
    uint32_t waiting;           /* processes of it that have not moved on */
    bool     confirmed, taken;  /* confirmed; handed out by ftio_pt_take_confirmed */
};

struct ftio_pt_mode {
    struct ftio_pt_phase ring[FTIO_PT_HISTORY];   /* the last ones, ring order */
    size_t   n, head;           /* how many; index of the oldest */
    uint64_t next_seq;
    double   settled;           /* phases ending before this were described */
    double   seg_end_floor;     /* no segment of the mode ends before this (a lower
                                   bound, exact after each settle's scan): a settle
                                   that cannot describe returns without the scan */
    double   union_floor;       /* the first union of its segments in start order
                                   (the next phase to describe), joined by any gap
                                   of at least union_gap, ends no sooner (a lower
                                   bound, exact after a settle that clustered): a
                                   settle returns without the scan and the sort until
                                   a phase can end (ftio settles a trace's every
                                   second, most of them within a phase's gap) */
    double   union_gap;
    uint64_t late_records;      /* data of a phase no longer in the ring */
    double   late_bytes;
};

struct ftio_pt {
    double   join;              /* s: a process's records this close are one segment */
    struct ftio_pt_proc *proc;
    size_t   nproc, cap;
    size_t   seg_bytes;         /* the processes' segment arrays */
    struct ftio_pt_mode mode[FTIO_PT_NMODES];
    uint64_t meta_between;      /* metadata calls far from any data */
};

/* join: 2 / fs is the rule of ALGORITHM.md §10 (0.2 s at 10 Hz). */
void ftio_pt_init(struct ftio_pt *t, double join);
void ftio_pt_free(struct ftio_pt *t);
/* A new process: its index, or -1 out of memory. */
long ftio_pt_proc_add(struct ftio_pt *t);
/* Bytes held (per-process state and the rings). */
size_t ftio_pt_memory(const struct ftio_pt *t);

/* One data record (mode FTIO_PT_READ / _WRITE) of process p. */
void ftio_pt_data(struct ftio_pt *t, size_t p, int mode, double ts, double te, double bytes,
                  uint32_t fid, uint16_t fs);
/* One metadata record of process p: op as common/record.h (open, close,
 * sync, stat, other; seeks are not counted). */
void ftio_pt_meta(struct ftio_pt *t, size_t p, int op, double ts, double te);
/* Process p sent its final batch: it moves on from every phase. */
void ftio_pt_final(struct ftio_pt *t, size_t p);

/* The gap that separates two phases of a mode: half its compute time when
 * a period T with phases of duration D is known (at least 2 join), else
 * FTIO_PT_GAP_UNKNOWN. */
double ftio_pt_gap(const struct ftio_pt *t, double period, double duration);
/* Describe the phases of `mode` that ended more than gap s before upto
 * (the data's horizon: nothing earlier is still to come; INFINITY at a
 * trace's end), and confirm those the data passed by FTIO_PT_CONFIRM.
 * Returns how many were described, -1 out of memory (nothing changed). */
int  ftio_pt_settle(struct ftio_pt *t, int mode, double upto, double gap);
/* The described phases of a mode, oldest first: k = 0 .. n-1. */
const struct ftio_pt_phase *ftio_pt_phase_at(const struct ftio_pt *t, int mode, size_t k);
size_t ftio_pt_count(const struct ftio_pt *t, int mode);
/* The next confirmed phase not yet taken that ended by `before` (oldest
 * first), or NULL. */
const struct ftio_pt_phase *ftio_pt_take_confirmed(struct ftio_pt *t, int mode, double before);

/* The typical phase of a mode: the medians, field by field, of the last
 * `last` described phases (confirmed ones when there are any) -- of those
 * within a factor 2 of like_bytes when some are (the phases the period
 * is of: a job's dumps and its checkpoints are both phases of its signal),
 * all when like_bytes is NAN --, start 0 and end its duration; false when
 * none.  fs: the file system of most of them, seq the newest one's. */
bool ftio_pt_typical(const struct ftio_pt *t, int mode, size_t last, double like_bytes,
                     struct ftio_pt_phase *out);

#endif
