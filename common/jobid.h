/* SPDX-License-Identifier: BSD-3-Clause */
/* jobid.h -- job ids that carry a batch-system step, "<job>.<step>"
 * (docs/PROTOCOL.md §1 and §2).
 *
 * Under Slurm every step of a job is a job of its own for ftio (two
 * concurrent steps have their own periods): the shim (libtrace/core.c) and
 * the SPANK plugin (slurm/spank_ftio.c) compose the id, ftiod splits it back
 * into the `jobid` and `step` fields of what it publishes, and `ftio sub
 * --job J` follows every step of J with the topic prefix "ftio.J.".
 */
#ifndef FTIO_JOBID_H
#define FTIO_JOBID_H

#include <stddef.h>

/* Slurm's name of step number `step`, as `squeue -s` shows it: the number,
 * or batch, extern, interactive for Slurm's reserved step ids. */
const char *ftio_slurm_step_name(unsigned long long step, char buf[24]);

/* The step named by SLURM_STEP_ID's text (a number; an unset or empty
 * variable is the batch script, which has none): "0", "batch", ... in buf. */
const char *ftio_slurm_step_env(const char *value, char buf[24]);

/* out = "<job>.<step>".  0, or -1 when it does not fit (out is then ""). */
int ftio_job_with_step(char *out, size_t cap, const char *job, const char *step);

/* A step-qualified id: digits, '.', then a number or batch / extern /
 * interactive, optionally in a user's namespace "u<uid>:" (ftiod gives ids
 * nobody claimed one; the job part keeps it: "u1000:4711", "0").  Returns 1 and fills job and step (when non-NULL), or 0 (id
 * is a job of its own: job = id, step = ""). */
int ftio_job_split(const char *id, char *job, size_t jcap, char *step, size_t scap);

#endif
