/* SPDX-License-Identifier: BSD-3-Clause */
/* core.c -- process state of libftio.so: initialisation, identity (job, host,
 * pid, rank), symbol resolution and diagnostics.
 *
 * The constructor runs while the process is still single-threaded: it
 * resolves every real function, reads the environment, sizes the descriptor
 * table and installs the fork/exit/signal hooks.  It does not start the
 * flusher thread: that happens on the first record (ring.c), so programs that
 * never touch a traced file (shell utilities under LD_PRELOAD) stay untouched.
 * The destructor (and every other exit path, lifecycle.c) calls
 * ftio_shutdown(), which is idempotent.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "identity.h"
#include "internal.h"
#include "jobid.h"

__thread int ftio_busy __attribute__((tls_model("initial-exec")));
__thread int ftio_mpiio_depth __attribute__((tls_model("initial-exec")));
__thread int ftio_quiet __attribute__((tls_model("initial-exec")));
int ftio_log_fd = 2;
int ftio_active FTIO_HOT;
unsigned ftio_layer_mask FTIO_HOT;
int ftio_record_nested FTIO_HOT;
/* Where a traced call finds its thread-local variables (shim.h FTIO_FAST). */
FTIO_FAST_DEF(ftio_busy);
FTIO_FAST_DEF(ftio_mpiio_depth);
FTIO_FAST_DEF(ftio_prod);
FTIO_FAST_DEF(ftio_thread_table);
FTIO_FAST_DEF(ftio_unseen_thread_known);
/* The first of the section, page-aligned: the hot globals do not straddle a
 * page boundary by chance.  (Defined after them: gcc emits this file's
 * variables in the reverse order, so it comes first; tests/shim/hot_page.sh
 * checks that the section is one page.) */
static char hot_page_start[1] FTIO_HOT __attribute__((aligned(FTIO_PAGE), used));

void ftio_tls_fast_init(void)
{
    FTIO_FAST_SET(ftio_busy);
    FTIO_FAST_SET(ftio_mpiio_depth);
    FTIO_FAST_SET(ftio_prod);
    FTIO_FAST_SET(ftio_thread_table);
    FTIO_FAST_SET(ftio_unseen_thread_known);
    ftio_mpi_tls_fast_init();
}
struct ftio_identity ftio_id FTIO_WARM;

static atomic_int initialised FTIO_WARM;
static atomic_int paused FTIO_WARM;
static atomic_int shut_down FTIO_WARM;

void ftio_set_paused(int p)
{
    atomic_store(&paused, p);
    int on = atomic_load(&initialised) && !atomic_load(&paused) && !atomic_load(&shut_down);
    __atomic_store_n(&ftio_active, on, __ATOMIC_RELAXED);
}

/* glibc keeps some names (the __xstat family on newer releases) only as
 * versioned compatibility symbols, which plain dlsym may not return. */
void *ftio_resolve(const char *name)
{
    static const char *const versions[] = { "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0" };
    void *p = dlsym(RTLD_NEXT, name);
    for (size_t i = 0; !p && i < sizeof versions / sizeof *versions; i++)
        p = dlvsym(RTLD_NEXT, name, versions[i]);
    return p;
}

void ftio_set_rank(int rank, int nranks)
{
    atomic_store(&ftio_id.rank, rank);
    atomic_store(&ftio_id.nranks, nranks);
    ftio_log("rank %d of %d", rank, nranks);
}

static void vlog(const char *fmt, va_list ap)
{
    if (ftio_quiet)
        return;
    char buf[512];
    int n = snprintf(buf, sizeof buf, "ftio[%ld]: ", (long)atomic_load(&ftio_id.pid));
    if (n < 0)
        return;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    int saved = errno, busy = ftio_busy;
    ftio_busy = 1;
    ssize_t w = write(ftio_log_fd, buf, len);
    ftio_unseen_own_write(w);              /* the shim's line, not the program's unseen */
    ftio_busy = busy;
    errno = saved;
}

void ftio_log(const char *fmt, ...)
{
    if (!ftio_cfg.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void ftio_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

size_t ftio_strlcpy(char *dst, size_t cap, const char *src)
{
    size_t len = strlen(src);
    if (cap) {
        size_t n = len < cap ? len : cap - 1;
        memcpy(dst, src, n);
        dst[n] = '\0';
    }
    return len;
}

size_t ftio_concat(char *dst, size_t cap, const char *a, const char *b, const char *c)
{
    const char *part[3] = { a, b, c ? c : "" };
    size_t at = 0, want = 0;
    for (int i = 0; i < 3; i++) {
        size_t len = strlen(part[i]);
        want += len;
        if (cap && at < cap - 1) {
            size_t n = len < cap - 1 - at ? len : cap - 1 - at;
            memcpy(dst + at, part[i], n);
            at += n;
        }
    }
    if (cap)
        dst[at] = '\0';
    return want;
}

/* Keep ids usable in a file name (the spool file embeds job and host). */
static void sanitize(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            *s = '_';
}

/* First set variable among names, or NULL. */
static const char *first_env(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* Under Slurm: "<SLURM_JOB_ID>.<step>" (common/jobid.h), every step a job of
 * its own; the batch script, which has no SLURM_STEP_ID, is step "batch". */
static const char *slurm_job(char *buf, size_t cap)
{
    const char *id = getenv("SLURM_JOB_ID");
    char step[24];
    if (!id || !*id || ftio_job_with_step(buf, cap, id, ftio_slurm_step_env(getenv("SLURM_STEP_ID"), step)))
        return NULL;
    return buf;
}

/* PROTOCOL.md §1: FTIO_JOB, the Slurm step, other scheduler job ids, else
 * something every rank of the same launch shares (Open MPI / PMIx
 * namespace, the mpirun's HNP job family), else host-pid (a lone process,
 * its forked children inherit it). */
static void identity_init(void)
{
    static const char *const own[] = { "FTIO_JOB" };
    static const char *const sched[] = { "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "COBALT_JOBID" };
    static const char *const launch[] = { "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
                                          "PMI_JOBID", "MPIEXEC_UNIVERSE" };
    static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                             "SLURM_PROCID", "PALS_RANKID", "MV2_COMM_WORLD_RANK" };
    static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
                                             "PALS_SIZE", "MV2_COMM_WORLD_SIZE" };

    if (gethostname(ftio_id.host, sizeof ftio_id.host - 1) != 0)
        ftio_strlcpy(ftio_id.host, sizeof ftio_id.host, "unknown");
    sanitize(ftio_id.host);

    char slurm[sizeof ftio_id.job];
    const char *job = first_env(own, 1);
    if (!job)
        job = slurm_job(slurm, sizeof slurm);
    if (!job)
        job = first_env(sched, sizeof sched / sizeof *sched);
    char hnp[64] = "";
    if (!job) {
        job = first_env(launch, sizeof launch / sizeof *launch);
        const char *uri = getenv("OMPI_MCA_orte_hnp_uri");   /* "<jobfam>.0;tcp://..." */
        if (!job && uri && *uri) {
            snprintf(hnp, sizeof hnp, "ompi-%.*s", (int)strcspn(uri, ".;"), uri);
            job = hnp;
        }
    }
    if (job) {
        ftio_strlcpy(ftio_id.job, sizeof ftio_id.job, job);
    } else {                                    /* "%.200s-%ld" of host and pid */
        char *p = ftio_id.job, *end = ftio_id.job + sizeof ftio_id.job - 1;
        size_t hl = strnlen(ftio_id.host, 200);
        memcpy(p, ftio_id.host, hl);
        p += hl;
        *p++ = '-';
        *ftio_put_ulong(p, end, (unsigned long)atomic_load(&ftio_id.pid)) = '\0';
    }
    sanitize(ftio_id.job);

    /* Slurm's task variables mean something in a step only: in the batch
     * script SLURM_PROCID is always 0 and SLURM_NTASKS the job's task count,
     * so every command of the script would claim rank 0 of N. */
    size_t nrank_vars = sizeof rank_vars / sizeof *rank_vars;
    size_t nsize_vars = sizeof size_vars / sizeof *size_vars;
    int in_step = getenv("SLURM_STEP_ID") != NULL;
    int rank = -1, nranks = 0;
    const char *r = NULL, *s = NULL;
    for (size_t i = 0; i < nrank_vars && !r; i++)
        if (in_step || strncmp(rank_vars[i], "SLURM_", 6) != 0)
            r = first_env(&rank_vars[i], 1);
    for (size_t i = 0; i < nsize_vars && !s; i++)
        if (in_step || strncmp(size_vars[i], "SLURM_", 6) != 0)
            s = first_env(&size_vars[i], 1);
    if (r)
        rank = atoi(r);
    if (s)
        nranks = atoi(s);
    atomic_store(&ftio_id.rank, r ? rank : -1);
    atomic_store(&ftio_id.nranks, r ? nranks : 0);
}

/* This process's pid, and its stream's start (wire `born`): a process that
 * gets the pid another one had (pid wrap, a container's pid namespace) is
 * another process to ftiod.  Monotonic ns: no system call (vDSO), never 0;
 * an exec'd image takes its predecessor's instead (lifecycle.c). */
static void identity_pid(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    atomic_store(&ftio_id.born, (long long)t.tv_sec * 1000000000ll + t.tv_nsec + 1);
    atomic_store(&ftio_id.pid, (long)getpid());
}

/* The linker's bounds of the ftio_syms section (internal.h, FTIO_WRAPPER). */
extern const struct ftio_wrapped_sym __start_ftio_syms[] FTIO_HIDDEN;
extern const struct ftio_wrapped_sym __stop_ftio_syms[] FTIO_HIDDEN;

/* The table is written by the loader (its pointers are relocated): page-
 * aligned, its ~2.6 KB are one page written, not the ends of two (bench/
 * README.md "exit latency").  This entry names nothing; neither do the
 * zeros the alignment may leave between entries. */
static const struct ftio_wrapped_sym table_on_a_page
    __attribute__((used, section("ftio_syms"), aligned(FTIO_PAGE))) = { NULL, NULL };

void ftio_resolve_wrapped(void)
{
    for (const struct ftio_wrapped_sym *s = __start_ftio_syms; s < __stop_ftio_syms; s++)
        if (s->real)
            (void)ftio_real(s->real, s->name);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
void ftio_populate(const void *p, size_t len)
{
    uintptr_t mask = (uintptr_t)FTIO_PAGE - 1;
    uintptr_t from = (uintptr_t)p & ~mask;
    uintptr_t to = ((uintptr_t)p + len + mask) & ~mask;
    syscall(SYS_madvise, from, to - from, MADV_POPULATE_WRITE);
}

/* The constructor and the dynamic linker's lookups it makes reach about
 * 24 KB deeper into the main thread's stack than a small program does: six
 * pages a traced `cat` faulted in one at a time (bench/README.md "exit14").
 * They are made present in one call first.  Only on the main thread's stack
 * at the image's start (argv lies a little above us there), which grows
 * down as needed; a constructor run anywhere else (libftio.so is preloaded,
 * but a program may dlopen it) would be on a stack of the application's,
 * whose neighbours are not ours to touch.  Below the stack's mapping the
 * call fails, and nothing is done. */
#define CONSTRUCTOR_STACK (28 * 1024)
/* How far above our frame argv may lie for us to be on the main thread's
 * stack near its top: the loader's and libc's frames before a constructor
 * (a few KB) and the argument and environment strings between them. */
#define ARGV_NEAR (64 * 1024)
static void prefault_stack(char **argv)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if ((uintptr_t)argv > sp && (uintptr_t)argv - sp < ARGV_NEAR)
        ftio_populate((const void *)((sp & ~((uintptr_t)FTIO_PAGE - 1)) - CONSTRUCTOR_STACK),
                      CONSTRUCTOR_STACK);
}

extern char __start_ftio_early[] FTIO_HIDDEN, __stop_ftio_early[] FTIO_HIDDEN;

/* (glibc calls an ELF constructor with the process's argc, argv, envp.) */
__attribute__((constructor(101))) static void ftio_init(int argc, char **argv, char **envp)
{
    int saved = errno;
    ftio_busy = 1;
    prefault_stack(argv);
    ftio_populate(__start_ftio_early, (size_t)(__stop_ftio_early - __start_ftio_early));
    ftio_identity_note(argc, argv, envp);
    /* Resolve every wrapped symbol while single-threaded, even when disabled:
     * wrappers still forward through these pointers.  Not at each symbol's
     * first call, though that is 70-240 us less here: dlsym takes the
     * loader's lock, so a first call made while another thread loads a
     * library (the flusher's libzmq; an application's dlopen on a slow file
     * system) would wait for that load (switch_races.sh: an _exit waited 3 s
     * past its bound; bench/README.md "exit12"). */
    ftio_resolve_wrapped();
    identity_pid();                                 /* pid for config warnings */
    ftio_config_load(&ftio_cfg);
    if (!ftio_cfg.disable) {
        ftio_tls_fast_init();      /* before ftio_active: see FTIO_FAST */
        ftio_layer_mask = ftio_cfg.layers;
        ftio_record_nested = ftio_cfg.nested;
        identity_init();
        ftio_clock_init();
        ftio_fdtable_init();
        ftio_files_init();
        ftio_unseen_init();
        ftio_rings_init(ftio_cfg.ring_records, ftio_cfg.ring_max_records);
        ftio_flusher_init();
        ftio_lifecycle_init();
        atomic_store(&initialised, 1);
        ftio_set_paused(0);
        ftio_log("initialised: job=%s host=%s rank=%d endpoint=%s spool=%s ring=%zu",
                 ftio_id.job, ftio_id.host, atomic_load(&ftio_id.rank), ftio_cfg.endpoint,
                 ftio_cfg.spool_dir, ftio_cfg.ring_records);
    }
    else
        ftio_lifecycle_inert();
    ftio_busy = 0;
    errno = saved;
}

/* Called once the last batch is out (handoff.c): stop recording for good. */
void ftio_mark_shut_down(void)
{
    atomic_store(&shut_down, 1);
    ftio_set_paused(atomic_load(&paused));
}

/* Fork child: recording resumes (the child gets its own stream). */
void ftio_core_after_fork_child(void)
{
    identity_pid();
    atomic_store(&shut_down, 0);
    ftio_set_paused(atomic_load(&paused));
}

__attribute__((destructor(101))) static void ftio_fini(void)
{
    int saved = errno;
    ftio_shutdown();
    errno = saved;
}
