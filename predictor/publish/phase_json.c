/* SPDX-License-Identifier: BSD-3-Clause */
/* phase_json.c -- a described I/O phase as JSON fields (phase_json.h). */
#include <math.h>
#include "publish/phase_json.h"
#include "publish/report.h"

static void count(json_t *o, const char *k, const struct ftio_pt_phase *p, double v)
{
    json_object_set_new(o, k, p ? json_integer((json_int_t)v) : json_null());
}

static void number(json_t *o, const char *k, const struct ftio_pt_phase *p, double v)
{
    json_object_set_new(o, k, ftio_json_number(p ? v : NAN));
}

void ftio_report_json_described(json_t *o, const struct ftio_pt_phase *p, const char *fs,
                                bool dated, double origin)
{
    double el = p ? p->end - p->start : NAN;
    if (dated) {
        number(o, "start", p, p ? p->start + origin : NAN);
        number(o, "end", p, p ? p->end + origin : NAN);
        number(o, "bytes", p, p ? p->bytes : NAN);
        count(o, "records", p, p ? (double)p->records : 0);
    }
    number(o, "elapsed", p, el);
    number(o, "bandwidth", p, el > 0 ? p->bytes / el : NAN);
    count(o, "ranks", p, p ? p->ranks : 0);
    number(o, "skew_bytes", p, p ? p->skew_bytes : NAN);
    count(o, "files", p, p ? p->files : 0);
    count(o, "opens", p, p ? p->opens : 0);
    count(o, "metadata", p, p ? p->meta : 0);
    count(o, "syncs", p, p ? p->syncs : 0);
    json_object_set_new(o, "fs", p && fs ? json_string(fs) : json_null());
}

void ftio_report_json_next_described(json_t *next, const struct ftio_pt_phase *p, const char *fs)
{
    count(next, "ranks", p, p ? p->ranks : 0);
    number(next, "skew_bytes", p, p ? p->skew_bytes : NAN);
    count(next, "files", p, p ? p->files : 0);
    json_object_set_new(next, "fs", p && fs ? json_string(fs) : json_null());
}
