/* SPDX-License-Identifier: BSD-3-Clause */
/* priors.c -- what a lookup's runs say (history.h): their answers grouped by
 * mode and activity, each group made a prior by the rule of analysis/prior.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app_key.h"
#include "history/history.h"

/* An activity across runs: the last component of its pattern. */
static const char *group_key(const char *pattern)
{
    return ftio_app_prog(pattern);
}

size_t ftio_store_priors(const struct ftio_store_match *m, struct ftio_store_prior *out, size_t max)
{
    size_t n = 0;
    struct ftio_prior_run *runs = malloc((m->n ? m->n : 1) * sizeof *runs);
    bool *done = calloc(m->n ? m->n : 1, sizeof *done);
    for (int mode = 0; runs && done && mode < 2; mode++) {
        /* the mode's own answers first (pattern "" sorts first), then each activity */
        for (size_t i = 0; i < m->n && n < max; i++) {
            const struct ftio_store_answer *a = &m->row[i].a;
            if (done[i] || a->mode != mode)
                continue;
            const char *key = group_key(a->pattern);
            bool own = a->pattern[0] == '\0';
            size_t k = 0;
            for (size_t j = i; j < m->n; j++) {
                const struct ftio_store_answer *b = &m->row[j].a;
                if (done[j] || b->mode != mode || (b->pattern[0] == '\0') != own ||
                    strcmp(group_key(b->pattern), key) != 0)
                    continue;
                done[j] = true;
                runs[k++] = (struct ftio_prior_run){ b->period, b->confidence, (enum ftio_class)b->cls,
                                                     b->bytes, b->duration, b->first_offset };
            }
            struct ftio_store_prior *p = &out[n];
            if (!ftio_prior_from_runs(runs, k, m->level, &p->p))
                continue;
            p->mode = mode;
            snprintf(p->pattern, sizeof p->pattern, "%s", own ? "" : key);
            n++;
        }
    }
    free(runs);
    free(done);
    return n;
}
