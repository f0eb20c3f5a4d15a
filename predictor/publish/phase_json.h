/* SPDX-License-Identifier: BSD-3-Clause */
/* phase_json.h -- a described I/O phase (forecast/phase_track.h) in the
 * prediction object (PROTOCOL.md §2 Version 4): the one writer of those
 * fields for ftiod (`phase`, `next`: daemon/job_machine.c) and `ftio`
 * (`phase`, `phases`: cli/phases.c), so both say the same in the same
 * words.  Part of libftiopublish.a (it needs the tracker's struct only). */
#ifndef FTIO_PHASE_JSON_H
#define FTIO_PHASE_JSON_H

#include <stdbool.h>
#include <jansson.h>
#include "forecast/phase_track.h"

/* Into o: "elapsed" (s from its first call to its last, syncs included),
 * "bandwidth" (bytes / elapsed), "ranks", "skew_bytes" (the busiest
 * process's bytes), "files", "opens", "metadata", "syncs", "fs" (fs: its
 * file system's name or NULL); dated: also "start", "end" (times as in p,
 * plus `origin`), "bytes", "records".  p NULL: the same keys, null. */
void ftio_report_json_described(json_t *o, const struct ftio_pt_phase *p, const char *fs,
                                bool dated, double origin);
/* The subset a prediction's "next" carries: "ranks", "skew_bytes", "files",
 * "fs". */
void ftio_report_json_next_described(json_t *next, const struct ftio_pt_phase *p, const char *fs);

#endif
