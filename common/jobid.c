/* SPDX-License-Identifier: BSD-3-Clause */
/* jobid.c -- composing and splitting step-qualified job ids (jobid.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobid.h"

/* Slurm's reserved step ids (slurm.h; stable since Slurm 20.11). */
#define SLURM_STEP_INTERACTIVE 0xfffffffaull
#define SLURM_STEP_BATCH       0xfffffffbull
#define SLURM_STEP_EXTERN      0xfffffffcull

static const char *const named_steps[] = { "batch", "extern", "interactive" };

const char *ftio_slurm_step_name(unsigned long long step, char buf[24])
{
    if (step == SLURM_STEP_BATCH)
        return strcpy(buf, "batch");
    if (step == SLURM_STEP_EXTERN)
        return strcpy(buf, "extern");
    if (step == SLURM_STEP_INTERACTIVE)
        return strcpy(buf, "interactive");
    snprintf(buf, 24, "%llu", step);
    return buf;
}

const char *ftio_slurm_step_env(const char *value, char buf[24])
{
    if (!value || !*value)
        return strcpy(buf, "batch");
    char *end;
    unsigned long long s = strtoull(value, &end, 10);
    if (*end || value[0] == '-')
        return strcpy(buf, "batch");   /* not Slurm's: the script's own step */
    return ftio_slurm_step_name(s, buf);
}

int ftio_job_with_step(char *out, size_t cap, const char *job, const char *step)
{
    int n = snprintf(out, cap, "%s.%s", job, step);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            out[0] = '\0';
        return -1;
    }
    return 0;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int is_step(const char *s)
{
    if (all_digits(s, strlen(s)))
        return 1;
    for (size_t i = 0; i < sizeof named_steps / sizeof *named_steps; i++)
        if (strcmp(s, named_steps[i]) == 0)
            return 1;
    return 0;
}

/* The length of a user's namespace prefix "u<uid>:" (ftiod's claims.c), or 0. */
static size_t namespace_len(const char *id)
{
    if (id[0] != 'u')
        return 0;
    size_t n = strspn(id + 1, "0123456789");
    return n && id[1 + n] == ':' ? n + 2 : 0;
}

int ftio_job_split(const char *id, char *job, size_t jcap, char *step, size_t scap)
{
    size_t ns = namespace_len(id);
    const char *dot = strchr(id + ns, '.');
    int split = dot && all_digits(id + ns, (size_t)(dot - id - ns)) && is_step(dot + 1);
    size_t jlen = split ? (size_t)(dot - id) : strlen(id);
    if (job && jcap)
        snprintf(job, jcap, "%.*s", (int)jlen, id);
    if (step && scap)
        snprintf(step, scap, "%s", split ? dot + 1 : "");
    return split;
}
