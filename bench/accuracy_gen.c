/* SPDX-License-Identifier: BSD-3-Clause */
/* accuracy_gen.c -- the traces of the accuracy benchmark (bench/accuracy.sh):
 * the semi-synthetic sweep of the FTIO paper's §5 as docs/ACCURACY.md (a
 * copy of shared/docs/ACCURACY.md) fixes it, plus the families the FTIO
 * paper does not have: short pulse trains (IOR-like, duty <= 1 %), a write and
 * a read phase in every iteration, phase volumes that vary, a period that
 * changes halfway, and what real codes do (issue 16): phase bandwidths that
 * vary 6x, phases of two heights, a page-cache spike then a plateau, a
 * period that drifts.
 *
 *   accuracy-gen DIR [--per-combo N] [--seed S] [--families sweep,extra,activities,adversarial]
 *                    [--subset] [--spool]
 *
 * Per trace DIR/ID.csv (rank,op,t_start,t_end,bytes, the CSV `ftio` reads),
 * DIR/ID.truth (key value lines: true period per mode, phase starts, bytes
 * per phase), with --spool also DIR/ID.spool/ (one spool file per process,
 * clock anchored in the past, for `ftio replay` into ftiod).  DIR/manifest.tsv
 * lists id, family, parameter, value, noise.  The activity families (several
 * periodic activities per job, each with its own files) go to
 * DIR/activities.tsv (id, family, activities), DIR/ID.acts (truth per
 * activity) and DIR/ID.spool/ only: spool files carry file names, CSV does
 * not.  --subset: 2 traces per
 * combination of a fixed small set (the regression test of make check).
 * All randomness from one seeded xoshiro256** per trace (seed = base 10^6 +
 * experiment 10^5 + combination 10^3 + trace), so traces are reproducible.
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "wire.h"
#include "grow.h"

#define MIB 1048576.0

/* ---- randomness ----------------------------------------------------------- */

static uint64_t st[4];
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t next_u64(void)
{
    uint64_t r = rotl(st[1] * 5, 7) * 9, t = st[1] << 17;
    st[2] ^= st[0]; st[3] ^= st[1]; st[1] ^= st[2]; st[0] ^= st[3];
    st[2] ^= t; st[3] = rotl(st[3], 45);
    return r;
}
static void seed_rng(uint64_t s)
{
    for (int i = 0; i < 4; i++) {      /* splitmix64 */
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        st[i] = z ^ (z >> 31);
    }
}
static double uniform(void) { return (double)(next_u64() >> 11) * 0x1.0p-53; }
static double normal(void)
{
    double u = uniform(), v = uniform();
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}
/* LN(1, s): mean 1, log-sd s. */
static double lognormal1(double s) { return s > 0 ? exp(-s * s / 2 + s * normal()) : 1; }
static double expo(double mean) { return mean > 0 ? -mean * log(1 - uniform()) : 0; }
static double round_us(double t) { return round(t * 1e6) / 1e6; }

/* ---- one trace ------------------------------------------------------------ */

struct req { double ts, te, bytes; int rank, op; uint32_t fid; /* 0: the one file */ };

struct trace {
    struct req *r;
    size_t n, cap;
    double starts[2][64], ends[2][64], bytes[2][64];   /* per mode (0 write, 1 read) */
    int nphase[2];
    int change_at;          /* first phase of the new regime, 0 = none */
    char **names;           /* names[fid - 1]: file paths of the activity families */
    uint32_t nnames;
    size_t capnames;
    bool drift;             /* the period drifts: the truth is the current interval */
};

static void push(struct trace *t, double ts, double te, double bytes, int rank, int op)
{
    if (FTIO_GROW(t->r, t->cap, t->n + 1) < 0) {
        perror("accuracy-gen");
        exit(1);
    }
    ts = round_us(ts);
    te = fmax(round_us(te), ts + 1e-6);
    t->r[t->n++] = (struct req){ ts, te, bytes, rank, op, 0 };
}

struct params {
    double mu, sigma, lambda;
    int noise;              /* 0 none, 1 low, 2 high */
    int iterations, procs, reqs;
    double req_size, proc_bw;
    bool readwrite;         /* a read phase after each write phase */
    bool varvol;            /* requests per process vary by phase: 8..56 */
    double mu2;             /* > 0: compute mean from iteration change_at on */
    int change_at;
    double bw_spread;       /* > 1: each phase's bandwidth x U(1/bw_spread, 1), log-uniform */
    double height2;         /* > 0: every other phase at this share of the bandwidth */
    int spike_reqs;         /* > 0: the first spike_reqs requests of a rank at spike_factor x */
    double spike_factor;    /*      the bandwidth (page cache), the rest at the plateau */
    double drift;           /* > 0: compute mean x (1 + drift)^i (a period that drifts) */
    double delay;           /* > 0: a timer every mu s, each phase starting U(0, delay) s
                               after its tick (random start delays: jitter, not drift) */
};

/* One I/O phase of all processes from `begin`; returns its end (barrier). */
static double io_phase(struct trace *t, const struct params *p, double begin, int op, int reqs,
                       double bw)
{
    double f = lognormal1(0.15), first = INFINITY, last = -INFINITY;
    double base = p->req_size / (p->proc_bw * bw);
    for (int r = 0; r < p->procs; r++) {
        double s = begin + expo(p->lambda), g = lognormal1(0.05);
        for (int k = 0; k < reqs; k++) {
            double d = base * f * g * lognormal1(0.3);
            if (k < p->spike_reqs)
                d /= p->spike_factor;
            if (uniform() < 0.002)
                d *= 3 + 7 * uniform();
            double ts = round_us(s), te = fmax(round_us(s + d), ts + 1e-6);
            push(t, ts, te, p->req_size, r, op);
            first = fmin(first, ts);
            last = fmax(last, te);
            s = te + expo(2e-4);
        }
    }
    int m = op == 'r', i = t->nphase[m]++;
    t->starts[m][i] = first;
    t->ends[m][i] = last;
    t->bytes[m][i] = (double)p->procs * reqs * p->req_size;
    return last;
}

static void noise(struct trace *t, int level, double t_end, int rank)
{
    if (level == 0)
        return;
    double mean_bw = level == 1 ? 1e6 : 100e6, size = level == 1 ? 65536 : MIB;
    double inst = level == 1 ? 20e6 : 250e6;
    double dur = size / inst, gap = size / mean_bw - dur;
    for (double s = expo(gap); s < t_end;) {
        double e = s + dur * lognormal1(0.3);
        if (e > t_end)
            break;
        push(t, s, e, size, rank, 'w');
        s = e + expo(gap);
    }
}

static void generate(struct trace *t, const struct params *p)
{
    double now = 0;
    for (int i = 0; i < p->iterations; i++) {
        double mu = p->mu2 > 0 && i >= p->change_at ? p->mu2 : p->mu, c;
        if (p->drift > 0)
            mu *= pow(1 + p->drift, i);
        do
            c = mu + p->sigma * normal();
        while (!(c > 0));
        int reqs = p->varvol ? 8 + (int)(uniform() * 49) : p->reqs;
        double bw = 1;
        if (p->bw_spread > 1)
            bw = exp(-log(p->bw_spread) * uniform());
        if (p->height2 > 0 && i % 2)
            bw = p->height2;
        if (p->delay > 0)         /* the tick (i + 1) mu, late by U(0, delay) */
            c = fmax((i + 1) * p->mu + p->delay * uniform() - now, 0);
        now = io_phase(t, p, now + c, 'w', reqs, bw);
        if (p->readwrite)
            now = io_phase(t, p, now + 0.3 * mu, 'r', reqs, 1);
    }
    noise(t, p->noise, now, p->procs);
    t->change_at = p->mu2 > 0 ? p->change_at : 0;
    t->drift = p->drift > 0;
}

static int cmp_req(const void *a, const void *b)
{
    const struct req *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts ? 1 : x->rank - y->rank;
}

/* ---- output --------------------------------------------------------------- */

static void write_csv(const struct trace *t, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs("rank,op,t_start,t_end,bytes\n", f);
    for (size_t i = 0; i < t->n; i++)
        fprintf(f, "%d,%s,%.6f,%.6f,%.0f\n", t->r[i].rank, t->r[i].op == 'r' ? "read" : "write",
                t->r[i].ts, t->r[i].te, t->r[i].bytes);
    fclose(f);
}

/* True period of mode m: the mean spacing of phase starts (ACCURACY.md §1),
 * of the new regime when the period changes. */
static double true_period(const struct trace *t, int m)
{
    int a = t->change_at > 0 ? t->change_at : 0, b = t->nphase[m] - 1;
    if (t->drift)                 /* the current interval: the last one */
        a = b - 1;
    return b > a ? (t->starts[m][b] - t->starts[m][a]) / (b - a) : NAN;
}

static void write_truth(const struct trace *t, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    for (int m = 0; m < 2; m++) {
        if (t->nphase[m] < 2)
            continue;
        const char *mode = m ? "read" : "write";
        fprintf(f, "%s.period %.9f\n%s.change_at %d\n%s.drift %d\n", mode, true_period(t, m), mode,
                t->change_at, mode, t->drift);
        fprintf(f, "%s.starts", mode);
        for (int i = 0; i < t->nphase[m]; i++)
            fprintf(f, " %.6f", t->starts[m][i]);
        fprintf(f, "\n%s.ends", mode);
        for (int i = 0; i < t->nphase[m]; i++)
            fprintf(f, " %.6f", t->ends[m][i]);
        fprintf(f, "\n%s.bytes", mode);
        for (int i = 0; i < t->nphase[m]; i++)
            fprintf(f, " %.0f", t->bytes[m][i]);
        fputc('\n', f);
    }
    fclose(f);
}

/* One spool file per process (rank), clock anchored at a fixed day in 2025
 * (old data for ftiod), a batch per second of data as the shim flushes
 * (FTIO_FLUSH_MS=1000; at most 256 records): a replay then delivers every
 * rank's data in time order, as a live job would. */
/* Epoch second of the spool files' time 0 (the CSV's 0): yesterday's
 * midnight (UTC), so recent (ftiod takes no records older than 30 days) and
 * the same all day; written to DIR/spool-epoch for accuracy_eval.py. */
static int64_t spool_epoch;

static void write_spool(const struct trace *t, const char *dir, const char *id)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        exit(1);
    }
    int nranks = 0;
    for (size_t i = 0; i < t->n; i++)
        nranks = t->r[i].rank + 1 > nranks ? t->r[i].rank + 1 : nranks;
    const int64_t mono0 = 1000000000000ll, real0 = spool_epoch * 1000000000ll;
    struct ftio_record *rec = malloc(256 * sizeof *rec);
    for (int rank = 0; rank < nranks; rank++) {
        char path[8192];
        if (snprintf(path, sizeof path, "%s/ftio-%s-gen-%d.msgpack", dir, id, 100 + rank) >=
            (int)sizeof path) {
            fprintf(stderr, "accuracy-gen: path too long: %s\n", dir);
            exit(1);
        }
        FILE *f = fopen(path, "w");
        if (!f || !rec) {
            perror(path);
            exit(1);
        }
        size_t k = 0, left = 0;
        uint64_t seq = 0;
        /* The shim sends each file's path once, in the first batch using it. */
        unsigned char *sent = t->nnames ? calloc(t->nnames, 1) : NULL;
        struct ftio_file_entry *fe = t->nnames ? calloc(t->nnames, sizeof *fe) : NULL;
        size_t nfe = 0;
        double batch_start = 0;
        for (size_t i = 0; i < t->n; i++)
            left += t->r[i].rank == rank;
        for (size_t i = 0; i < t->n; i++) {
            if (t->r[i].rank != rank)
                continue;
            left--;
            if (k == 0)
                batch_start = t->r[i].ts;
            rec[k++] = (struct ftio_record){
                .t_start = (uint64_t)(mono0 + llround(t->r[i].ts * 1e9)),
                .t_end = (uint64_t)(mono0 + llround(t->r[i].te * 1e9)),
                .offset = -1, .bytes = (int64_t)t->r[i].bytes,
                .file_id = t->r[i].fid ? t->r[i].fid : 7,
                .op = t->r[i].op == 'r' ? FTIO_OP_READ : FTIO_OP_WRITE, .layer = FTIO_LAYER_POSIX,
            };
            uint32_t fid = t->r[i].fid;
            if (fid && !sent[fid - 1]) {
                sent[fid - 1] = 1;
                fe[nfe++] = (struct ftio_file_entry){ fid, t->names[fid - 1], NULL };
            }
            bool flush = k == 256 || left == 0;
            for (size_t nx = i + 1; !flush && nx < t->n; nx++)
                if (t->r[nx].rank == rank) {
                    flush = t->r[nx].te > batch_start + 1.0;
                    break;
                }
            if (flush) {
                struct ftio_batch_header h = {
                    .job = id, .host = "gen", .pid = 100 + rank, .rank = rank, .nranks = nranks,
                    .seq = seq++, .clock_mono = mono0, .clock_real = real0, .final = left == 0,
                    .nfiles = nfe, .files = fe,
                };
                struct ftio_wbuf w = { 0 };
                if (ftio_wire_encode(&w, &h, rec, k) != 0 ||
                    fwrite(w.data, 1, w.len, f) != w.len) {
                    fprintf(stderr, "accuracy-gen: cannot write %s\n", path);
                    exit(1);
                }
                ftio_wbuf_free(&w);
                k = 0;
                nfe = 0;
            }
        }
        free(sent);
        free(fe);
        fclose(f);
    }
    free(rec);
}

/* ---- the plan ------------------------------------------------------------- */

struct gen {
    const char *dir;
    int per_combo;
    long seed;
    bool sweep, extra, spool, acts, adv;
    FILE *manifest;
};

static void emit(struct gen *g, const char *family, const char *param, double value,
                 const char *noise_name, const struct params *p, long seed, int r)
{
    char id[256], path[4096];
    snprintf(id, sizeof id, "%s-%s%g-%s-%03d", family, param, value, noise_name, r);
    for (char *c = id; *c; c++)
        if (*c == '.')
            *c = 'p';
    struct trace t = { 0 };
    seed_rng((uint64_t)seed);
    generate(&t, p);
    qsort(t.r, t.n, sizeof *t.r, cmp_req);
    snprintf(path, sizeof path, "%s/%s.csv", g->dir, id);
    write_csv(&t, path);
    snprintf(path, sizeof path, "%s/%s.truth", g->dir, id);
    write_truth(&t, path);
    if (g->spool) {
        snprintf(path, sizeof path, "%s/%s.spool", g->dir, id);
        write_spool(&t, path, id);
    }
    fprintf(g->manifest, "%s\t%s\t%s\t%g\t%s\n", id, family, param, value, noise_name);
    free(t.r);
}

/* `per` runs of one configuration: run r with seed base + r. */
static void emit_runs(struct gen *g, const char *family, const char *param, double value,
                      const char *noise_name, const struct params *p, long base, int per)
{
    for (int r = 0; r < per; r++)
        emit(g, family, param, value, noise_name, p, base + r, r);
}

static const char *const noises[] = { "none", "low", "high" };

/* A family of the issue-16 shapes: p without noise (seeds base + r), then
 * with low noise (seeds base + 1000 + r). */
static void emit_quiet_and_noisy(struct gen *g, const char *family, const char *param, double value,
                                 struct params p, long base, int per)
{
    for (int v = 0; v < 2; v++) {
        p.noise = v;
        emit_runs(g, family, param, value, noises[v], &p, base + v * 1000, per);
    }
}

static struct params defaults(void)
{
    return (struct params){ .mu = 10, .iterations = 10, .procs = 8, .reqs = 32,
                            .req_size = MIB, .proc_bw = 24 * MIB };
}

static void plan(struct gen *g, bool subset)
{
    int per = subset ? 2 : g->per_combo;
    if (g->sweep) {
        /* (a) mu x noise, (b) lambda, (c) sigma: ACCURACY.md §2. */
        static const double mu[] = { 5, 10, 20, 40, 80 }, lam[] = { 0, 0.5, 1, 2, 4 },
                            sig[] = { 0, 1, 2, 4, 8 };
        int c = 0;
        for (int v = 0; v < 5; v++)
            for (int nz = 0; nz < 3; nz++, c++) {
                if (subset && (v == 0 || v == 3))
                    continue;
                struct params p = defaults();
                p.mu = mu[v];
                p.noise = nz;
                emit_runs(g, "mu", "mu", mu[v], noises[nz], &p, g->seed * 1000000 + 100000 + c * 1000, per);
            }
        /* (b) and (c): one parameter at a time, lambda then sigma. */
        for (int k = 0; k < 2; k++)
            for (int v = 0; v < 5; v++) {
                if (subset && v % 2)
                    continue;
                const char *name = k ? "sigma" : "lambda";
                struct params p = defaults();
                double value = k ? sig[v] : lam[v];
                if (k)
                    p.sigma = value;
                else
                    p.lambda = value;
                emit_runs(g, name, name, value, "none", &p,
                          g->seed * 1000000 + (k ? 300000 : 200000) + v * 1000, per);
            }
    }
    if (g->extra) {
        /* Short pulses: 1 request of 1 MiB per rank at 32 MiB/s (~0.03 s)
         * every 5 s (duty 0.6 %), and of 48 MiB/s every 10 s; with noise. */
        for (int v = 0; v < 2; v++)
            for (int nz = 0; nz < 2; nz++) {
                struct params p = defaults();
                p.mu = v ? 10 : 5;
                p.reqs = 1;
                p.proc_bw = (v ? 48 : 32) * MIB;
                p.iterations = v ? 12 : 24;
                p.noise = nz;
                emit_runs(g, "pulse", "T", p.mu, noises[nz], &p, g->seed * 1000000 + 400000 + (v * 2 + nz) * 1000, per);
            }
        for (int v = 0; v < 2; v++) {
            struct params p = defaults();
            p.mu = v ? 20 : 10;
            p.readwrite = true;
            emit_runs(g, "readwrite", "mu", p.mu, "none", &p, g->seed * 1000000 + 500000 + v * 1000, per);
        }
        struct params p = defaults();
        p.varvol = true;
        emit_quiet_and_noisy(g, "varvol", "mu", p.mu, p, g->seed * 1000000 + 600000, per);
        for (int v = 0; v < 2; v++) {
            struct params p = defaults();
            p.mu = v ? 6 : 10;
            p.mu2 = v ? 10 : 6;
            p.iterations = 16;
            p.change_at = 8;
            emit_runs(g, "change", "mu2", p.mu2, "none", &p, g->seed * 1000000 + 700000 + v * 1000, per);
        }
        /* What real codes do (issue 16): phases whose bandwidth varies 6x
         * from phase to phase (a shared file system's mood); phases of two
         * heights in turn (every other output at a quarter of the rate);
         * a page-cache spike (the first 4 requests of a rank at 8x) then a
         * long plateau that moves most bytes, with short compute between
         * (the plateau outlasts the quiet); a period growing 2 % per
         * phase (truth: the current, last interval), with and without noise. */
        p = defaults();
        p.bw_spread = 6;
        emit_quiet_and_noisy(g, "bwvary", "x", 6, p, g->seed * 1000000 + 800000, per);
        p = defaults();
        p.height2 = 0.25;
        emit_quiet_and_noisy(g, "twoheight", "h", 0.25, p, g->seed * 1000000 + 810000, per);
        p = defaults();
        p.mu = 3;
        p.reqs = 48;
        p.proc_bw = 8 * MIB;
        p.spike_reqs = 4;
        p.spike_factor = 8;
        emit_quiet_and_noisy(g, "plateau", "mu", p.mu, p, g->seed * 1000000 + 820000, per);
        p = defaults();
        p.drift = 0.02;
        p.iterations = 30;
        emit_quiet_and_noisy(g, "drift", "d", 0.02, p, g->seed * 1000000 + 830000, per);
    }
    if (g->adv) {
        /* Adversarial (issue 28), truth by construction: three phases with
         * two near-equal gaps (two intervals: too little evidence for
         * `periodic`); a stationary timer every 15 s whose phases start a
         * random 1, 2 or 4 s late (jitter that a trend must not be taken
         * for: such a job read 16.3 s at 0.99 for 14.6 s). */
        struct params p = defaults();
        p.iterations = 3;
        emit_quiet_and_noisy(g, "adv-three", "mu", p.mu, p, g->seed * 1000000 + 900000, per);
        static const double delays[] = { 1, 2, 4 };
        for (int v = 0; v < 3; v++) {
            p = defaults();
            p.mu = 15;
            p.iterations = 12;
            p.delay = delays[v];
            emit_runs(g, "adv-delay", "D", delays[v], "none", &p, g->seed * 1000000 + 910000 + v * 1000, per);
        }
    }
}

/* ---- activity families: several periodic activities per job ------------ */

/* A job of `steps` compute steps; activity k writes a phase every every[k]
 * steps (all ranks, reqs[k] requests of 1 MiB each, one after the other),
 * activities due at the same step one after the other, as a simulation that
 * dumps every N steps and checkpoints every M does.  Files: one per output
 * (name with %d: the step) or one fixed file; `shared`: every activity writes
 * the same file, so only the phases' shapes tell them apart.  Truth per
 * activity (DIR/ID.acts): its file pattern (digits as '#'), the shape class
 * ftio should give it, phase starts, ends, bytes, period (mean spacing). */
#define ACT_MAX 3
#define ACT_PHASES 512

struct act_spec {
    const char *name, *pattern;
    int every, reqs;
    double mid;     /* > 0: written at this fraction of the step's compute, not after
                       it (a checkpoint on a wall-clock timer, as GROMACS -cpt) */
};
struct act_family {
    const char *family;
    int nact, steps;
    double step;            /* s of compute per step */
    bool shared;
    struct act_spec a[ACT_MAX];
};
struct act_truth { int n; double starts[ACT_PHASES], ends[ACT_PHASES], bytes[ACT_PHASES]; };

static uint32_t act_file(struct trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->nnames; i++)
        if (strcmp(t->names[i], name) == 0)
            return i + 1;
    if (FTIO_GROW(t->names, t->capnames, (size_t)t->nnames + 1) < 0 ||
        !(t->names[t->nnames] = strdup(name))) {
        perror("accuracy-gen");
        exit(1);
    }
    return ++t->nnames;
}

static void act_generate(struct trace *t, const struct act_family *f, const struct params *p,
                         struct act_truth *truth)
{
    double now = 0;
    for (int s = 1; s <= f->steps; s++) {
        double begin = now;
        now += f->step * lognormal1(0.03);
        for (int k = 0; k < f->nact; k++) {
            const struct act_spec *a = &f->a[k];
            if (s % a->every)
                continue;
            char name[256];
            snprintf(name, sizeof name, a->name, s);
            uint32_t fid = act_file(t, name);
            double first = INFINITY, last = -INFINITY, base = p->req_size / p->proc_bw;
            double t_at = a->mid > 0 ? begin + a->mid * (now - begin) : now;
            for (int r = 0; r < p->procs; r++) {
                double at = t_at + expo(0.002);
                for (int q = 0; q < a->reqs; q++) {
                    double d = base * lognormal1(0.2);
                    push(t, at, at + d, p->req_size, r, 'w');
                    t->r[t->n - 1].fid = fid;
                    first = fmin(first, t->r[t->n - 1].ts);
                    last = fmax(last, t->r[t->n - 1].te);
                    at += d + expo(2e-4);
                }
            }
            struct act_truth *tr = &truth[k];
            if (tr->n < ACT_PHASES) {
                tr->starts[tr->n] = first;
                tr->ends[tr->n] = last;
                tr->bytes[tr->n] = (double)p->procs * a->reqs * p->req_size;
                tr->n++;
            }
            now = fmax(now, last);
        }
    }
}

static void act_write_truth(const struct act_family *f, const struct act_truth *truth,
                            const char *path)
{
    FILE *o = fopen(path, "w");
    if (!o) {
        perror(path);
        exit(1);
    }
    /* Shared file: the activity of the smaller phases is "small". */
    int small = 0;
    for (int k = 1; k < f->nact; k++)
        if (f->a[k].reqs < f->a[small].reqs)
            small = k;
    for (int k = 0; k < f->nact; k++) {
        const struct act_truth *tr = &truth[k];
        fprintf(o, "%d.pattern %s\n%d.shape %s\n", k, f->a[k].pattern, k,
                !f->shared ? "all" : k == small ? "small" : "large");
        fprintf(o, "%d.period %.9f\n", k,
                tr->n > 1 ? (tr->starts[tr->n - 1] - tr->starts[0]) / (tr->n - 1) : NAN);
        const char *key[3] = { "starts", "ends", "bytes" };
        const double *v[3] = { tr->starts, tr->ends, tr->bytes };
        for (int j = 0; j < 3; j++) {
            fprintf(o, "%d.%s", k, key[j]);
            for (int i = 0; i < tr->n; i++)
                fprintf(o, j == 2 ? " %.0f" : " %.6f", v[j][i]);
            fputc('\n', o);
        }
    }
    fclose(o);
}

static void act_emit(struct gen *g, FILE *manifest, const struct act_family *f, long seed, int r)
{
    char id[256], path[4096];
    snprintf(id, sizeof id, "%s-%03d", f->family, r);
    struct params p = defaults();
    struct trace t = { 0 };
    struct act_truth *truth = calloc(ACT_MAX, sizeof *truth);
    if (!truth) {
        perror("accuracy-gen");
        exit(1);
    }
    seed_rng((uint64_t)seed);
    act_generate(&t, f, &p, truth);
    qsort(t.r, t.n, sizeof *t.r, cmp_req);
    snprintf(path, sizeof path, "%s/%s.acts", g->dir, id);
    act_write_truth(f, truth, path);
    snprintf(path, sizeof path, "%s/%s.spool", g->dir, id);
    write_spool(&t, path, id);   /* the format that carries file names */
    fprintf(manifest, "%s\t%s\t%d\n", id, f->family, f->nact);
    for (uint32_t i = 0; i < t.nnames; i++)
        free(t.names[i]);
    free(t.names);
    free(t.r);
    free(truth);
}

/* Frequent small dumps + rare large checkpoints; two of comparable volume
 * (10 s and 60 s); two sharing one file, the large phases halfway between
 * two small ones (a timer's checkpoint: ALGORITHM.md §10 says why phases
 * that run into each other in one file stay one phase); three (3 s, 15 s,
 * 60 s). */
static void act_plan(struct gen *g, bool subset)
{
    static const struct act_family fam[] = {
        { "act-smalllarge", 2, 64, 4.0, false,
          { { "/scratch/gen/dump.%d.dat", "/scratch/gen/dump.#.dat", 1, 1, 0 },
            { "/scratch/gen/ckpt_%04d.h5", "/scratch/gen/ckpt_#.h5", 8, 32, 0 } } },
        { "act-comparable", 2, 42, 10.0, false,
          { { "/scratch/gen/frames.xtc", "/scratch/gen/frames.xtc", 1, 8, 0 },
            { "/scratch/gen/state.cpt", "/scratch/gen/state.cpt", 6, 48, 0 } } },
        { "act-shared", 2, 48, 5.0, true,
          { { "/scratch/gen/shared.dat", "/scratch/gen/shared.dat", 1, 2, 0 },
            { "/scratch/gen/shared.dat", "/scratch/gen/shared.dat", 8, 32, 0.5 } } },
        { "act-three", 3, 120, 3.0, false,
          { { "/scratch/gen/dump.%d.lammpstrj", "/scratch/gen/dump.#.lammpstrj", 1, 1, 0 },
            { "/scratch/gen/restart.%d.bin", "/scratch/gen/restart.#.bin", 5, 8, 0 },
            { "/scratch/gen/ckpt_%04d.h5", "/scratch/gen/ckpt_#.h5", 20, 48, 0 } } },
    };
    /* Adversarial (issue 28): 8 x 16 MiB every 10 s beside 8 x 64 MiB every
     * 60 s (on a timer, between two of the others: the whole signal read
     * 19.6-20 s), and small frequent outputs (8 x 1 MiB every 2 or 10 s)
     * beside big checkpoints (8 x 64 MiB every 30 or 60 s), 8 of them. */
    static const struct act_family adv[] = {
        { "adv-act-10-60", 2, 36, 10.0, false,
          { { "/scratch/gen/frames.%d.dat", "/scratch/gen/frames.#.dat", 1, 16, 0 },
            { "/scratch/gen/ckpt.%d.dat", "/scratch/gen/ckpt.#.dat", 6, 64, 0.5 } } },
        { "adv-act-2-30", 2, 120, 2.0, false,
          { { "/scratch/gen/out_%d.dat", "/scratch/gen/out_#.dat", 1, 1, 0 },
            { "/scratch/gen/ckpt_%05d.bin", "/scratch/gen/ckpt_#.bin", 15, 64, 0 } } },
        { "adv-act-2-60", 2, 240, 2.0, false,
          { { "/scratch/gen/out_%d.dat", "/scratch/gen/out_#.dat", 1, 1, 0 },
            { "/scratch/gen/ckpt_%05d.bin", "/scratch/gen/ckpt_#.bin", 30, 64, 0 } } },
        { "adv-act-10-30", 2, 24, 10.0, false,
          { { "/scratch/gen/out_%d.dat", "/scratch/gen/out_#.dat", 1, 1, 0 },
            { "/scratch/gen/ckpt_%05d.bin", "/scratch/gen/ckpt_#.bin", 3, 64, 0 } } },
        { "adv-act-10-60s", 2, 48, 10.0, false,
          { { "/scratch/gen/out_%d.dat", "/scratch/gen/out_#.dat", 1, 1, 0 },
            { "/scratch/gen/ckpt_%05d.bin", "/scratch/gen/ckpt_#.bin", 6, 64, 0 } } },
    };
    char path[4096];
    snprintf(path, sizeof path, "%s/activities.tsv", g->dir);
    FILE *m = fopen(path, "w");
    if (!m) {
        perror(path);
        exit(1);
    }
    int per = subset ? 2 : g->per_combo;
    for (size_t f = 0; g->acts && f < sizeof fam / sizeof fam[0]; f++)
        for (int r = 0; r < per; r++)
            act_emit(g, m, &fam[f], g->seed * 1000000 + 800000 + (long)f * 1000 + r, r);
    /* small beside big: 4 configurations, 24 traces in all by default */
    for (size_t f = 0; g->adv && f < sizeof adv / sizeof adv[0]; f++)
        for (int r = 0; r < (f == 0 ? per : (per + 1) / 2); r++)
            act_emit(g, m, &adv[f], g->seed * 1000000 + 950000 + (long)f * 1000 + r, r);
    fclose(m);
}

static int usage(void)
{
    fputs("usage: accuracy-gen DIR [--per-combo N] [--seed S]\n"
          "                    [--families sweep,extra,activities,adversarial]\n"
          "                    [--subset] [--spool]\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    struct gen g = { .per_combo = 12, .seed = 1, .sweep = true, .extra = true, .acts = true, .adv = true };
    bool subset = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--per-combo") && i + 1 < argc) {
            g.per_combo = atoi(argv[++i]);
        } else if (!strcmp(a, "--seed") && i + 1 < argc) {
            g.seed = atol(argv[++i]);
        } else if (!strcmp(a, "--families") && i + 1 < argc) {
            const char *f = argv[++i];
            g.sweep = strstr(f, "sweep") != NULL;
            g.extra = strstr(f, "extra") != NULL;
            g.acts = strstr(f, "activities") != NULL;
            g.adv = strstr(f, "adversarial") != NULL;
        } else if (!strcmp(a, "--subset")) {
            subset = true;
        } else if (!strcmp(a, "--spool")) {
            g.spool = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (a[0] != '-' && !g.dir) {
            g.dir = a;
        } else {
            fprintf(stderr, "accuracy-gen: unknown argument %s\n", a);
            return usage();
        }
    }
    if (!g.dir || g.per_combo < 1 || g.per_combo > 999 || g.seed < 0)
        return usage();
    if (mkdir(g.dir, 0755) != 0 && errno != EEXIST) {
        perror(g.dir);
        return 1;
    }
    char path[4096];
    spool_epoch = ((int64_t)time(NULL) / 86400 - 1) * 86400;
    snprintf(path, sizeof path, "%s/spool-epoch", g.dir);
    FILE *ef = fopen(path, "w");
    if (!ef || fprintf(ef, "%lld\n", (long long)spool_epoch) < 0 || fclose(ef) != 0) {
        perror(path);
        return 1;
    }
    snprintf(path, sizeof path, "%s/manifest.tsv", g.dir);
    g.manifest = fopen(path, "w");
    if (!g.manifest) {
        perror(path);
        return 1;
    }
    plan(&g, subset);
    fclose(g.manifest);
    if (g.acts || g.adv)
        act_plan(&g, subset);
    return 0;
}
