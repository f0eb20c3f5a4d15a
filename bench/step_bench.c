/* SPDX-License-Identifier: BSD-3-Clause */
/* step_bench.c -- what one analysis step of ftiod costs for a job of a given
 * length ($(B)/bench/step; bench/sitescale.sh's companion, issue 18).
 *
 *   step [--hours H] [--steps K] [--sampling average|hold]
 *
 * Builds one job's state as ftiod does (job_merge() of batches: 64 ranks
 * writing in 10-s bursts every 60 s for H hours, ftiod's default limits:
 * 10 Hz bins over a 3600-s horizon), then times the last K boundaries of its
 * write mode the way an analysis thread takes them (sched_step.c): the copy
 * of the windows made under the daemon's lock (ftio_stream_prepare), and the
 * whole step (copy + ftio_stream_run: analyse, score, stabilise), in thread
 * CPU time.  Prints the medians: of the first analysis of a job that long
 * (its whole window: the stream is left as it was), and of the steady
 * state, the same boundaries taken in turn by the stream, whose period is
 * then established (the window forgets, online.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "analysis.h"
#include "daemon/job.h"
#include "grow.h"
#include "timeutil.h"

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* What one boundary needs (sched_step.c's pieces). */
struct stepper {
    struct ftio_stream *s;
    struct ftio_analyzer *an;
    struct ftio_stream_work *w;
};

/* One boundary bk taken as an analysis thread takes it: the copies of the
 * windows (under the daemon's lock there), the analyses, and (commit) the
 * results back into the stream -- without, the stream is left as it was:
 * the first analysis of a job that long, again.  Its thread CPU times in
 * ms; the analysis' return (-1 said on stderr). */
static int timed_step(struct stepper *st, double bk, bool commit, double *copy_ms, double *step_ms,
                      size_t *samples)
{
    char err[256];
    double c0 = cpu_s();
    int rc = ftio_stream_prepare(st->s, bk, false, st->w);
    double c1 = cpu_s();
    if (rc == 0) {
        rc = ftio_stream_run(st->w, st->an, bk, err, sizeof err);
        if (commit)
            ftio_stream_commit(st->s, st->w);
    }
    double c2 = cpu_s();
    if (rc < 0)
        fprintf(stderr, "step: %s\n", err);
    *copy_ms = (c1 - c0) * 1e3;
    *step_ms = (c2 - c0) * 1e3;
    *samples = ftio_stream_samples(st->w);
    return rc;
}

/* Steady state: the analyses of the last STEADY_S seconds of boundaries,
 * after STEADY_S / 3 more to bring the state there. */
#define STEADY_S 180.0

int main(int argc, char **argv)
{
    double hours = 24;
    int steps = 30;
    enum ftio_sampling sampling = FTIO_SAMPLING_AVERAGE;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--hours"))
            hours = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sampling"))
            sampling = strcmp(argv[i + 1], "hold") ? FTIO_SAMPLING_AVERAGE : FTIO_SAMPLING_HOLD;
        else {
            fprintf(stderr, "usage: step [--hours H] [--steps K] [--sampling average|hold]\n");
            return 2;
        }
    }
    if (!(hours > 0) || steps < 1) {
        fprintf(stderr, "step: --hours > 0, --steps >= 1\n");
        return 2;
    }
    struct job_limits lim;
    job_limits_default(&lim);
    lim.opts.sampling = sampling;
    struct job *j = job_new("step", &lim);
    int64_t now = ftio_real_ns();
    const int64_t mono0 = 200000ll * 1000000000ll;
    const double span = hours * 3600;
    struct ftio_record rec[64 * 10];
    uint64_t seq[64] = {0};
    /* One batch per rank per burst: ten 1-s writes of 1 MiB. */
    for (double t = 0; t + 10 <= span; t += 60)
        for (int r = 0; r < 64; r++) {
            size_t n = 0;
            for (int k = 0; k < 10; k++) {
                double ts = t + k + 0.001 * r;
                rec[n++] = (struct ftio_record){
                    .t_start = (uint64_t)(mono0 + (int64_t)((ts - span) * 1e9)),
                    .t_end = (uint64_t)(mono0 + (int64_t)((ts - span + 0.9) * 1e9)),
                    .offset = -1, .bytes = 1 << 20, .op = FTIO_OP_WRITE,
                    .layer = FTIO_LAYER_POSIX,
                };
            }
            struct ftio_batch b = {
                .h = {.job = "step", .host = "h", .pid = r, .rank = r, .nranks = 64,
                      .seq = seq[r]++, .clock_mono = mono0, .clock_real = now},
                .rec = rec, .n = n,
            };
            job_merge(j, &b, &lim, 1.0, now);
        }
    struct ftio_stream *m = j->mode[JOB_WRITE].stream;
    const struct ftio_stream_totals *tot = ftio_stream_totals(m);
    double t0 = ftio_stream_origin(m);
    /* The last K boundaries with data: the end of the last burst. */
    double last = tot->t_max;
    double b = fmax(ftio_stream_next_boundary(m, last - steps - 1), ftio_stream_next_boundary(m, t0));
    if (b + steps > last + 1)
        steps = (int)fmax(1, floor(last + 1 - b));
    struct stepper sp = {.s = m, .an = ftio_analyzer_new(), .w = ftio_stream_work_new()};
    double *tc = calloc((size_t)steps, sizeof *tc), *ts = calloc((size_t)steps, sizeof *ts);
    int n = 0;
    size_t samples = 0;
    /* Warm: the first analysis at a window length plans its FFT. */
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int k = 0; k < steps; k++) {
            if (timed_step(&sp, b + k, false, &tc[n], &ts[n], &samples) < 0)
                return 1;
            n++;
        }
    }
    qsort(tc, (size_t)n, sizeof *tc, cmp);
    qsort(ts, (size_t)n, sizeof *ts, cmp);
    printf("job of %g h (%llu records, window %zu samples, sampling %s): step %.3f ms CPU "
           "(median of %d; max %.3f), of which the copy under the lock %.3f ms\n",
           hours, (unsigned long long)tot->records, samples,
           sampling == FTIO_SAMPLING_HOLD ? "hold" : "average", ts[n / 2], n, ts[n - 1],
           tc[n / 2]);

    /* Steady state: the same boundaries taken one after the other by the
     * stream, as ftiod's analysis thread does once the job's period is
     * established (published periodic): the window then holds the last
     * FTIO_ONLINE_HORIZON_PERIODS periods, not the job (online.c).  The
     * state is brought there by the analyses of the boundaries before. */
    double first = ftio_stream_next_boundary(m, t0);
    double warm = fmax(b - STEADY_S * 4 / 3, first), from = fmax(b - STEADY_S, first);
    size_t cap = 0, nsteady = 0, steady_samples = 0;
    double *tst = NULL;
    for (double bk = warm; bk < b + steps; bk += 1) {
        double copy_ms, step_ms;
        int rc = timed_step(&sp, bk, true, &copy_ms, &step_ms, &samples);
        if (rc < 0)
            return 1;
        /* Timed: the analyses (rc 0; 1 is a boundary with nothing new). */
        if (rc == 0 && bk >= from) {
            if (FTIO_GROW(tst, cap, nsteady + 1) < 0)
                return 1;
            tst[nsteady++] = step_ms;
            steady_samples = samples > steady_samples ? samples : steady_samples;
        }
    }
    if (nsteady > 0) {
        const struct ftio_online *on = ftio_stream_online(m);
        qsort(tst, nsteady, sizeof *tst, cmp);
        printf("  steady state (period established: %s %.3f s): window %zu samples, step %.3f ms "
               "CPU (median of the %zu analyses of %.0f s; max %.3f)\n",
               on->has_good ? ftio_class_name(on->good.cls) : "none",
               on->has_good ? on->good.dominant.period : NAN, steady_samples, tst[nsteady / 2],
               nsteady, STEADY_S, tst[nsteady - 1]);
    }
    /* The job's end (sched_step.c: its summary, once its last boundary is
     * analysed): the whole-window analysis the summary was, against what it
     * is when the last window holds all the data (stream.c summary_reuses:
     * its answer, the next phase predicted again).  Timed on the stream as
     * the steady state left it, each summary on a fresh copy of nothing:
     * prepare + run + commit do not change what the next one sees. */
    {
        /* ftiod first analyses every boundary up to the data's end. */
        for (double bk = ftio_stream_next_boundary(m, b + steps - 1); bk < tot->t_max + 1; bk += 1) {
            double copy_ms, step_ms;
            if (timed_step(&sp, bk, true, &copy_ms, &step_ms, &samples) < 0)
                return 1;
        }
        double tfull[16], treuse[16];
        int nfull = 0, nreuse = 0;
        for (int k = 0; k < 16; k++) {
            char err[256];
            double c0 = cpu_s();
            int rc = ftio_stream_prepare(m, tot->t_max, true, sp.w);
            bool reused = rc == 0 && ftio_stream_samples(sp.w) == 0;
            if (rc == 0)
                rc = ftio_stream_run(sp.w, sp.an, NAN, err, sizeof err);
            double c1 = cpu_s();
            if (rc != 0)
                break;
            if (reused)
                treuse[nreuse++] = (c1 - c0) * 1e3;
            else
                tfull[nfull++] = (c1 - c0) * 1e3;
            /* The same window analysed again (warm: the second time). */
            if (reused && k == 0) {
                struct ftio_samples x = {0};
                const struct ftio_result *r = &ftio_stream_activity_answer(m, -1).update->res;
                struct ftio_options o = ftio_stream_online(m)->opts;
                for (int again = 0; again < 2; again++) {
                    double c2 = cpu_s();
                    struct ftio_result full;
                    if (ftio_bins_samples_mode(ftio_stream_mode_bins(m), r->t0, r->t1, sampling,
                                               &x) != 0 ||
                        ftio_analyze(sp.an, &x, &o, x.t1, &full, err, sizeof err) != 0)
                        break;
                    tfull[0] = (cpu_s() - c2) * 1e3;
                    nfull = 1;
                }
                ftio_samples_free(&x);
            }
        }
        if (nreuse > 0 && nfull > 0) {
            qsort(treuse, (size_t)nreuse, sizeof *treuse, cmp);
            printf("  end summary: %.4f ms CPU reusing the last window's answer (median of %d), "
                   "%.3f ms sampling and analysing that window again\n",
                   treuse[nreuse / 2], nreuse, tfull[0]);
        } else if (nfull > 0) {
            double first_ms = tfull[0];
            qsort(tfull, (size_t)nfull, sizeof *tfull, cmp);
            printf("  end summary: %.3f ms CPU the first (FFT plan made), then %.3f ms (median of "
                   "%d; the last window's answer not reused)\n", first_ms, tfull[nfull / 2], nfull);
        }
    }
    free(tst);
    free(tc);
    free(ts);
    ftio_stream_work_free(sp.w);
    ftio_analyzer_free(sp.an);
    job_free(j);
    return 0;
}
