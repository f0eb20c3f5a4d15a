/* SPDX-License-Identifier: BSD-3-Clause */
/* lifecycle.c -- process lifecycle: fork, exit paths, exec, fatal signals.
 *
 * - fork: pthread_atfork.  The child keeps the descriptor table (it inherits
 *   the descriptors), drops the buffered records (the parent sends them),
 *   re-sends its file list, and gets its own pid, sequence, ZeroMQ context,
 *   flusher and spool file name (flusher.c).  vfork is not wrapped: a vfork
 *   child shares our memory, so the exit/exec wrappers do nothing when
 *   getpid() is not the pid we recorded.
 * - exit: the library destructor (core.c), at_quick_exit, and the _exit /
 *   _Exit wrappers all call the idempotent, bounded ftio_shutdown().
 * - exec: every exec-family name hands the stream off first (glibc's execl*
 *   don't go through execve's PLT entry): the flusher drains what is
 *   buffered and stops, since ZeroMQ's I/O thread dies with the image.  The
 *   new image is the same process: we pass it the next sequence number in
 *   FTIO_SEQ_BASE=<pid>:<seq>:<born> so its batches continue the stream
 *   without restarting at 0, as the same process to ftiod (wire `born`;
 *   also when this image only continued the stream and recorded nothing).
 *   When the new environment preloads the shim, what
 *   ftiod has not acknowledged yet is handed over too (FTIO_HANDOFF, through
 *   the spool file, sink.c) with no wait: the new image sends it first,
 *   so a shell that execs its last command loses nothing and waits for
 *   nothing.  Otherwise the exit path's bounded wait and the spool file.  If
 *   exec fails, tracing resumes (and takes its hand-off back).
 * - fatal signals (TERM INT HUP QUIT ABRT SEGV BUS FPE ILL XCPU XFSZ PIPE)
 *   with the default action: final flush (bounded), then the default action
 *   by re-raising.  Our handler is installed at the image's first record
 *   (when there is something to flush), not by the constructor: 14 system
 *   calls every preloaded process made, most of which never record.  signal()/sigaction() are wrapped so that an application
 *   handler installed later is chained instead of replacing ours; the
 *   application sees its own handler as the installed one.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "internal.h"

FTIO_NEXT(int, sigaction, (int, const struct sigaction *, struct sigaction *));

extern char **environ;

/* ---- fork ------------------------------------------------------------- */

static void fork_prepare(void)
{
    /* A process whose records wait for its end (flusher.c) and forks is a
     * shell or a wrapper that will wait for its child: ftiod hears of it
     * now, so that its job's end waits for it too. */
    ftio_flusher_undefer();
    ftio_flusher_atfork_prepare();
}

static void fork_parent(void)
{
    ftio_flusher_atfork_parent();
}

static void fork_child(void)
{
    ftio_env_after_fork_child();
    ftio_core_after_fork_child();
    ftio_rings_after_fork_child();
    ftio_files_after_fork_child();
    ftio_unseen_after_fork_child();
    ftio_flusher_after_fork_child();
}

/* Not a vfork child (or a raw clone) sharing our memory? */
static int own_process(void)
{
    return (long)getpid() == atomic_load(&ftio_id.pid);
}

/* ---- waiting for a child ---------------------------------------------- */

/* A process whose records wait for its end (flusher.c) and waits for a
 * child is a shell or a wrapper that lives on (dash makes its children
 * with vfork, which runs no fork handler): ftiod hears of it now, so that
 * its job's end waits for it too (tests/daemon/end_truth.sh's wrapper
 * script).  Nothing else: the call is passed on as it is. */
static void waits_for_child(void)
{
    if (ftio_fdt && own_process()) {
        int saved = errno;
        ftio_flusher_undefer();
        errno = saved;
    }
}

#define WAIT_CALL(ret, name, params, args)                                    \
    FTIO_WRAPPER(ret, name, params)                                           \
    {                                                                         \
        FTIO_REAL_OR(name, -1);                                               \
        waits_for_child();                                                    \
        return real_##name args;                                              \
    }
WAIT_CALL(pid_t, wait, (int *status), (status))
WAIT_CALL(pid_t, waitpid, (pid_t pid, int *status, int options), (pid, status, options))
WAIT_CALL(pid_t, wait3, (int *status, int options, struct rusage *ru), (status, options, ru))
WAIT_CALL(pid_t, wait4, (pid_t pid, int *status, int options, struct rusage *ru), (pid, status, options, ru))
WAIT_CALL(int, waitid, (idtype_t idtype, id_t id, siginfo_t *info, int options), (idtype, id, info, options))

/* ---- exit ------------------------------------------------------------- */

static void quick_exit_hook(void)
{
    ftio_shutdown();
}

/* _exit and _Exit: the bounded shutdown, then the image ends at once. */
#define EXIT_NOW(name)                                                        \
    FTIO_WRAPPER(void, name, (int status))                                    \
    {                                                                         \
        if (ftio_fdt && own_process())                                        \
            ftio_shutdown();                                                  \
        if (ftio_real((void **)&real_##name, #name))                          \
            real_##name(status);                                              \
        for (;;)                                                              \
            abort();                                                          \
    }
EXIT_NOW(_exit)
EXIT_NOW(_Exit)

/* ---- exec ------------------------------------------------------------- */

#define SEQ_VAR "FTIO_SEQ_BASE"
#define HANDOFF_VAR "FTIO_HANDOFF"

/* Does envp preload the shim (and not disable it)?  Then the next image
 * takes over what ftiod has not acknowledged. */
static int traced_env(char *const *envp)
{
    int preload = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0)
            preload = strstr(envp[i], "libftio") != NULL;
        else if (strncmp(envp[i], "FTIO_DISABLE=", 13) == 0 && envp[i][13] && strcmp(envp[i] + 13, "0"))
            return 0;
    }
    return preload;
}

/* Does envp name another job (FTIO_JOB) than ours?  Then the next image's
 * batches belong to another job: this one's stream ends here. */
static int job_changes(char *const *envp)
{
    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], "FTIO_JOB=", 9) == 0)
            return envp[i][9] && strcmp(envp[i] + 9, ftio_id.job) != 0;
    return 0;
}

/* Hand the stream off before the image is replaced; puts the value for
 * SEQ_VAR in buf (empty when there is no stream to continue) and points
 * *handoff at the FTIO_HANDOFF variable ("" for none).  Returns 1 when the
 * flusher was stopped (after_exec_failed() then restarts it). */
static int before_exec(char *const *envp, char *buf, size_t len, const char **handoff)
{
    buf[0] = '\0';
    *handoff = "";
    if (!ftio_fdt || !own_process())
        return 0;
    if (job_changes(envp)) {
        /* The new image is another job's process: ours ends as at exit (a
         * final batch, what ftiod has not acknowledged spooled), and the new
         * image starts its own stream (an empty SEQ_VAR replaces any
         * inherited one).  If the exec fails, this image is not traced any
         * more. */
        ftio_shutdown();
        snprintf(buf, len, SEQ_VAR "=");
        return 0;
    }
    int stopped = ftio_flusher_handoff(traced_env(envp));
    uint64_t seq = ftio_flusher_next_seq();
    if (stopped || seq > 0)
        snprintf(buf, len, SEQ_VAR "=%ld:%llu:%lld", atomic_load(&ftio_id.pid),
                 (unsigned long long)seq, atomic_load(&ftio_id.born));
    /* What we just handed off, or what was handed to us and not taken yet
     * (our flusher never ran); nothing from a flusher still busy (its
     * bounded wait ran out): its description may be half written. */
    *handoff = ftio_flusher_running() ? "" : ftio_sink_handoff_env();
    return stopped;
}

/* exec returned: we are still this image. */
static int after_exec_failed(int rc, int stopped)
{
    if (stopped)
        ftio_flusher_handoff_failed();    /* keeps errno */
    return rc;
}

/* envp plus our variables (replacing inherited ones; an inherited hand-off
 * was ours to take, never the next image's), in out[cap]. */
static char *const *with_seq(char *const *envp, char *var, const char *handoff, char **out,
                             size_t cap)
{
    if (!envp)
        return envp;
    size_t n = 0;
    int stale = 0;
    for (size_t i = 0; envp[i]; i++) {
        if (strncmp(envp[i], SEQ_VAR "=", sizeof SEQ_VAR) == 0 && var[0])
            continue;
        if (strncmp(envp[i], HANDOFF_VAR "=", sizeof HANDOFF_VAR) == 0) {
            stale = 1;
            continue;
        }
        if (n + 3 >= cap)
            return envp;            /* huge environment: go without */
        out[n++] = envp[i];
    }
    if (!var[0] && !handoff[0] && !stale)
        return envp;
    if (var[0])
        out[n++] = var;
    if (handoff[0])
        out[n++] = (char *)handoff;
    out[n] = NULL;
    return out;
}

static size_t env_count(char *const *envp)
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n + 3;
}

/* The explicit-environment forms, NAME and its first parameter (what to
 * run): hand the stream off, exec with our variables, resume if it fails. */
#define EXEC(name, first_param, first)                                        \
    FTIO_WRAPPER(int, name, (first_param, char *const argv[], char *const envp[])) \
    {                                                                         \
        FTIO_REAL_OR(name, -1);                                               \
        char var[96];                                                         \
        const char *ho;                                                       \
        int stopped = before_exec(envp, var, sizeof var, &ho);                \
        size_t cap = env_count(envp);                                         \
        char *buf[cap];                                                       \
        return after_exec_failed(real_##name(first, argv, with_seq(envp, var, ho, buf, cap)), \
                                 stopped);                                    \
    }
EXEC(execve,  const char *path, path)
EXEC(execvpe, const char *file, file)
EXEC(fexecve, int fd,           fd)

/* The environ-based forms become their explicit-environment twins. */
FTIO_WRAPPER(int, execv, (const char *path, char *const argv[]))
{
    return ftio_w_execve(path, argv, environ);
}

FTIO_WRAPPER(int, execvp, (const char *file, char *const argv[]))
{
    return ftio_w_execvpe(file, argv, environ);
}

/* execl*: gather the variadic arguments into an argv on the stack. */
#define GATHER_ARGS(arg0, last, argv, extra)                                  \
    size_t n_ = 1;                                                            \
    va_list ap_;                                                              \
    va_start(ap_, arg0);                                                      \
    while (va_arg(ap_, char *))                                               \
        n_++;                                                                 \
    va_end(ap_);                                                              \
    char *argv[n_ + 1];                                                       \
    argv[0] = (char *)arg0;                                                   \
    va_start(ap_, arg0);                                                      \
    for (size_t i_ = 1; i_ <= n_; i_++)                                       \
        argv[i_] = va_arg(ap_, char *);                                       \
    extra;                                                                    \
    va_end(ap_)

FTIO_WRAP(int, execl, (const char *path, const char *arg, ...))
{
    GATHER_ARGS(arg, NULL, argv, (void)0);
    return ftio_w_execve(path, argv, environ);
}

FTIO_WRAP(int, execlp, (const char *file, const char *arg, ...))
{
    GATHER_ARGS(arg, NULL, argv, (void)0);
    return ftio_w_execvpe(file, argv, environ);
}

FTIO_WRAP(int, execle, (const char *path, const char *arg, ...))
{
    char *const *envp;
    GATHER_ARGS(arg, NULL, argv, envp = va_arg(ap_, char *const *));
    return ftio_w_execve(path, argv, envp);
}

/* ---- fatal signals ---------------------------------------------------- */

static const int fatal_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV,
                                     SIGBUS, SIGFPE, SIGILL, SIGXCPU, SIGXFSZ, SIGPIPE };

/* Each page a preloaded process touches is a page fault, the most expensive
 * thing a short process does on this VM (bench/README.md "exit latency"):
 * the flags the constructor sets are bits in FTIO_WARM (shim.h), and the
 * application's actions, up to SIGXFSZ one page, are written only when one
 * is not the plain default the page already holds (zeros). */
struct signal_state {
    struct sigaction app[NSIG];       /* what the application asked for */
};
static struct signal_state sigs FTIO_EARLY __attribute__((aligned(FTIO_PAGE)));
_Static_assert((SIGXFSZ + 1) * sizeof(struct sigaction) <= FTIO_PAGE, "the fatal signals' actions are one page");
static atomic_ullong sig_eligible FTIO_WARM;   /* bit sig - 1: we flush on it when it kills */
static atomic_ullong sig_managed FTIO_WARM;    /* bit sig - 1: our handler is installed */
/* Installing ours (ftio_lifecycle_signals): two bits of sig_eligible no
 * signal of ours uses (FTIO_WARM has no byte to spare: hot_page.sh).
 * While it is under way another thread's sigaction() waits (it would race
 * our reading of the action in place); the installing thread runs no
 * handler meanwhile (every signal blocked), so never waits for itself. */
#define SIG_INSTALLING (1ull << 62)
#define SIG_INSTALLED  (1ull << 63)

static int sig_bit(atomic_ullong *mask, int sig)
{
    return sig > 0 && sig <= 64 && (atomic_load(mask) >> (sig - 1) & 1);
}

static void sig_set(atomic_ullong *mask, int sig, int on)
{
    if (on)
        atomic_fetch_or(mask, 1ull << (sig - 1));
    else
        atomic_fetch_and(mask, ~(1ull << (sig - 1)));
}

static int synchronous(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    int saved = errno;
    struct sigaction app = sigs.app[sig];
    if (app.sa_handler == SIG_IGN) {
        errno = saved;
        return;
    }
    if (app.sa_handler != SIG_DFL) {
        /* The application handles it: flush what we have (cheap, bounded;
         * not for faults, which some runtimes use routinely), then chain. */
        if (!synchronous(sig) && own_process())
            ftio_flush_from_signal(0);
        if (app.sa_flags & SA_RESETHAND)
            sigs.app[sig].sa_handler = SIG_DFL;
        errno = saved;
        if (app.sa_flags & SA_SIGINFO)
            app.sa_sigaction(sig, info, uc);
        else
            app.sa_handler(sig);
        return;
    }
    /* Default action (terminate/core): last flush, then die by the signal. */
    if (own_process())
        ftio_flush_from_signal(1);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    real_sigaction(sig, &dfl, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    errno = saved;
}

/* Install our handler for sig with the application's flags and mask (like's);
 * *old = the action before, when old is not NULL. */
static int install(int sig, const struct sigaction *like, struct sigaction *old)
{
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_signal;
    ours.sa_flags = SA_SIGINFO | (like->sa_flags & (SA_ONSTACK | SA_RESTART | SA_NODEFER));
    ours.sa_mask = like->sa_mask;
    return real_sigaction(sig, &ours, old);
}

/* One of ours (FTIO_SIGNALS on, in fatal_signals, not ignored at start)? */
static int eligible_signal(int sig)
{
    return sig > 0 && sig <= 31 && sig_bit(&sig_eligible, sig);
}

/* The application changes a fatal signal's action.  SIG_IGN is installed
 * for real (an ignored signal can't kill us, and unlike a handler it
 * survives exec, which children may rely on); anything else is recorded and
 * our handler stays in front of it. */
FTIO_WRAP(int, sigaction, (int sig, const struct sigaction *act, struct sigaction *old))
{
    FTIO_REAL_OR(sigaction, -1);
    while ((atomic_load(&sig_eligible) & (SIG_INSTALLING | SIG_INSTALLED)) == SIG_INSTALLING)
        sched_yield();
    if (!eligible_signal(sig))
        return real_sigaction(sig, act, old);
    struct sigaction prev;
    if (sig_bit(&sig_managed, sig))
        prev = sigs.app[sig];
    else if (real_sigaction(sig, NULL, &prev) != 0)
        return -1;
    if (act) {
        if (act->sa_handler == SIG_IGN && !(act->sa_flags & SA_SIGINFO)) {
            if (real_sigaction(sig, act, NULL) != 0)
                return -1;
            sig_set(&sig_managed, sig, 0);
        } else {
            if (install(sig, act, NULL) != 0)
                return -1;
            sigs.app[sig] = *act;
            sig_set(&sig_managed, sig, 1);
        }
    }
    if (old)
        *old = prev;
    return 0;
}

FTIO_WRAPPER(__sighandler_t, signal, (int sig, __sighandler_t handler))
{
    FTIO_REAL_OR(signal, SIG_ERR);
    if (!eligible_signal(sig))
        return real_signal(sig, handler);
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;              /* BSD semantics, as glibc's signal() */
    sigemptyset(&act.sa_mask);
    if (ftio_w_sigaction(sig, &act, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* Our handler in front of each fatal signal's action, at the first record.
 * Most actions are still SIG_DFL (no flags, no mask) or SIG_IGN then: ours
 * is installed as for SIG_DFL and the old action read in the same call (one
 * system call a signal, not two); an ignored signal (nohup) gets its SIG_IGN
 * back, an earlier handler (the application's, set before its first I/O, or
 * another preloaded library's) ours again with its flags and mask, the
 * application's kept to chain to.  The signals are blocked
 * meanwhile, so that none meets the handler installed for SIG_DFL in its
 * place. */
static void signals_init(void)
{
    if (!ftio_cfg.signals || !real_sigaction)
        return;
    sigset_t all, saved;
    sigfillset(&all);                      /* (and no handler of ours runs sigaction meanwhile) */
    pthread_sigmask(SIG_BLOCK, &all, &saved);
    struct sigaction dfl;                  /* SIG_DFL's flags and mask */
    memset(&dfl, 0, sizeof dfl);
    sigemptyset(&dfl.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
        int sig = fatal_signals[i];
        struct sigaction cur;
        memset(&cur, 0, sizeof cur);       /* (glibc fills the kernel's part of the mask only) */
        if (install(sig, &dfl, &cur) != 0)
            continue;
        if (cur.sa_sigaction == on_signal)  /* ours already (a fork child's second try) */
            continue;
        if (cur.sa_handler == SIG_IGN) {   /* e.g. nohup: leave it alone */
            real_sigaction(sig, &cur, NULL);
            continue;
        }
        int plain_default = cur.sa_handler == SIG_DFL && sigisemptyset(&cur.sa_mask) &&
                            !(cur.sa_flags & (SA_ONSTACK | SA_RESTART | SA_NODEFER));
        static const struct sigaction zero;
        if (memcmp(&cur, &zero, sizeof cur) != 0)
            sigs.app[sig] = cur;           /* SIG_DFL, or an earlier handler */
        if (plain_default || install(sig, &cur, NULL) == 0) {
            sig_set(&sig_managed, sig, 1);
            sig_set(&sig_eligible, sig, 1);
        } else {
            real_sigaction(sig, &cur, NULL);
        }
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* ---- init ------------------------------------------------------------- */

/* An image in which the shim stays inert (FTIO_DISABLE, a launcher) that an
 * image of ours handed its unacknowledged batches to: they are in the spool
 * file, say so. */
void ftio_lifecycle_inert(void)
{
    const char *v = getenv(HANDOFF_VAR);
    char *end;
    if (v && strtol(v, &end, 10) == (long)getpid() && *end == ':' && strchr(v, ';'))
        ftio_warn("the traced image before this exec left its last batches in %s (send them "
                  "with: ftio replay %s)", strchr(v, ';') + 1, strchr(v, ';') + 1);
}

void ftio_lifecycle_init(void)
{
    /* Continue the sequence of the image that exec'd us (same pid). */
    const char *base = getenv(SEQ_VAR);
    if (base) {
        char *end;
        long pid = strtol(base, &end, 10);
        if (*end == ':' && pid == (long)getpid()) {
            ftio_flusher_set_seq_base(strtoull(end + 1, &end, 10));
            long long born = *end == ':' ? strtoll(end + 1, NULL, 10) : 0;
            if (born > 0)        /* (an older shim's image sends none: ours then) */
                atomic_store(&ftio_id.born, born);
        }
    }
    /* ... and deliver what it handed over, now rather than at our first
     * record: the flusher starts at once. */
    if (ftio_sink_handoff_accept(getenv(HANDOFF_VAR)))
        ftio_flusher_start_now();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    at_quick_exit(quick_exit_hook);
}

/* (The caller holds the flusher's start mutex: no fork meanwhile.) */
void ftio_lifecycle_signals(void)
{
    if (atomic_fetch_or(&sig_eligible, SIG_INSTALLING) & SIG_INSTALLING)
        return;
    signals_init();
    atomic_fetch_or(&sig_eligible, SIG_INSTALLED);
}
