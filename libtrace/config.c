/* SPDX-License-Identifier: BSD-3-Clause */
/* config.c -- the shim's environment (PROTOCOL.md §4), read once at init.
 *
 * Runs in the library constructor, before main(): a bad value can't make the
 * application fail, so it is reported on one stderr line and the default is
 * used instead.  Nothing here is consulted on the hot path except through the
 * plain fields of ftio_cfg / ftio_layer_mask.  Every variable is a row of
 * env_vars[] below, which is what libftio(7) documents.
 */
#include <errno.h>             /* program_invocation_short_name */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>
#include "internal.h"
#include "record.h"
#include "wire.h"             /* ftio_layer_name */
#include "auth.h"
#include "defaults.h"

struct ftio_config ftio_cfg FTIO_EARLY;

/* The shim's FTIO_* variables, the one list of them: name, kind, default,
 * bounds (integers), one line of help.  man/libftio.7 documents each of them
 * and no other: tests/shim/env_doc.sh reads the rows between the markers and
 * compares the names, the integers' bounds and defaults and the flags'
 * defaults.  The variables other files read are listed too, with where. */
enum env_kind {
    ENV_FLAG,      /* true unless empty, 0, no, false; unset: the default */
    ENV_INT,       /* decimal in [lo, hi]; otherwise a warning and the default */
    ENV_TEXT,      /* a string (a word of a few, a path, a list) */
    ENV_ELSEWHERE, /* read by another file of the shim (help says which) */
};
struct env_var {
    const char   *name;
    enum env_kind kind;
    long          def, lo, hi;   /* ENV_FLAG, ENV_INT */
    const char   *text_def;      /* ENV_TEXT: the default, as the man page says it */
    const char   *help;
};
enum {
    V_DISABLE, V_DEBUG, V_IGNORE_PROGRAMS, V_ENDPOINT, V_SPOOL, V_SPOOL_DIR, V_AUTH, V_MUNGE_SOCKET,
    V_AUTH_UID, V_ACK_TIMEOUT_MS, V_EXIT_WAIT_MS, V_ACK_MAX_MB, V_FLUSH_MS, V_HWM, V_ZMTP, V_TSC, V_NESTED, V_SIGNALS,
    V_PRIVATE_FDS, V_BUFFER_MB, V_BUFFER_MAX_MB, V_LAYERS, V_EXCLUDE, V_JOB, V_APP, V_SEQ_BASE, V_HANDOFF,
    V_COUNT
};

/* Launchers and their daemons are not the application: preloaded with it
 * (`LD_PRELOAD=libftio.so mpirun ...`, `srun` with an exported environment)
 * they would join the job as extra processes, and their forked pre-exec
 * children would stream as rank -1.  In them the shim stays inert, exactly
 * as under FTIO_DISABLE=1, and LD_PRELOAD reaches their children untouched.
 * FTIO_IGNORE_PROGRAMS=a:b replaces the list (empty: ignore none). */
static const char default_ignored[] =
    "mpirun:mpiexec:mpiexec.hydra:mpirun.openmpi:mpiexec.openmpi:mpirun.mpich:mpiexec.mpich:"
    "orterun:orted:prterun:prte:prted:prun:pterm:hydra_pmi_proxy:hydra_nameserver:hydra_persist:"
    "mpispawn:srun:salloc:sbatch:sattach:slurmstepd:slurmd:aprun:jsrun:flux";
/* FTIO_EXCLUDE=a,b replaces this list; FTIO_EXCLUDE=+a,b adds to it;
 * FTIO_EXCLUDE= (empty) traces every path. */
static const char default_excludes[] = "/proc,/sys,/dev,/etc,/usr,/lib,/lib32,/lib64,/libx32,/bin,/sbin,"
                                       "/run,/var/run,/var/lib,/snap,/boot";

static const struct env_var env_vars[V_COUNT] = {
    /* BEGIN ftio-env-table */
    [V_DISABLE]         = { "FTIO_DISABLE",         ENV_FLAG, 0, 0, 1, NULL,                  "pure pass-through: nothing recorded, sent or spooled" },
    [V_DEBUG]           = { "FTIO_DEBUG",           ENV_FLAG, 0, 0, 1, NULL,                  "one line per batch and lifecycle event on stderr" },
    [V_IGNORE_PROGRAMS] = { "FTIO_IGNORE_PROGRAMS", ENV_TEXT, 0, 0, 0, default_ignored,       "programs (a:b) in which the shim stays inert" },
    [V_ENDPOINT]        = { "FTIO_ENDPOINT",        ENV_TEXT, 0, 0, 0, FTIO_DEFAULT_ENDPOINT, "ftiod's ZeroMQ endpoint(s), comma-separated" },
    [V_SPOOL]           = { "FTIO_SPOOL",           ENV_TEXT, 0, 0, 0, "auto",                "auto, tee, file or daemon: where the batches go" },
    [V_SPOOL_DIR]       = { "FTIO_SPOOL_DIR",       ENV_TEXT, 0, 0, 0, "$TMPDIR/ftio-$UID",   "private directory of the spool files" },
    [V_AUTH]            = { "FTIO_AUTH",            ENV_TEXT, 0, 0, 0, "munge",               "munge or none: authentication of the batches" },
    [V_MUNGE_SOCKET]    = { "FTIO_MUNGE_SOCKET",    ENV_TEXT, 0, 0, 0, "",                    "munged's socket (empty: libmunge's)" },
    [V_AUTH_UID]        = { "FTIO_AUTH_UID",        ENV_TEXT, 0, 0, 0, "",                    "the uid that may decode the credential (empty: ftiod's)" },
    [V_ACK_TIMEOUT_MS]  = { "FTIO_ACK_TIMEOUT_MS",  ENV_INT, 5000, 1, 3600000, NULL,          "ms a batch may stay unacknowledged before it is resent" },
    [V_EXIT_WAIT_MS]    = { "FTIO_EXIT_WAIT_MS",    ENV_INT, 3, 0, 60000, NULL,               "ms waited at most at exit for the acknowledgements" },
    [V_ACK_MAX_MB]      = { "FTIO_ACK_MAX_MB",      ENV_INT, 16, 1, 1048576, NULL,            "MB of unacknowledged copies kept" },
    [V_FLUSH_MS]        = { "FTIO_FLUSH_MS",        ENV_INT, 1000, 1, 3600000, NULL,          "period of the background flush in ms" },
    [V_HWM]             = { "FTIO_HWM",             ENV_INT, 100, 1, 1000000, NULL,           "ZMQ_SNDHWM in batches" },
    [V_ZMTP]            = { "FTIO_ZMTP",            ENV_FLAG, 1, 0, 1, NULL,                  "a short process speaks ZMTP itself (no libzmq)" },
    [V_TSC]             = { "FTIO_TSC",             ENV_FLAG, 1, 0, 1, NULL,                  "stamp records with the invariant TSC (else clock_gettime)" },
    [V_NESTED]          = { "FTIO_NESTED",          ENV_FLAG, 0, 0, 1, NULL,                  "also record the POSIX calls inside MPI-IO calls (flagged nested)" },
    [V_SIGNALS]         = { "FTIO_SIGNALS",         ENV_FLAG, 1, 0, 1, NULL,                  "flush the rings at a fatal signal" },
    [V_PRIVATE_FDS]     = { "FTIO_PRIVATE_FDS",     ENV_FLAG, 1, 0, 1, NULL,                  "the flusher runs in a private descriptor table" },
    [V_BUFFER_MB]       = { "FTIO_BUFFER_MB",       ENV_INT, 2, 1, 4096, NULL,                "MB of one ring segment" },
    [V_BUFFER_MAX_MB]   = { "FTIO_BUFFER_MAX_MB",   ENV_INT, 256, 1, 1048576, NULL,           "MB of all ring segments of the process" },
    [V_LAYERS]          = { "FTIO_LAYERS",          ENV_TEXT, 0, 0, 0, "all",                 "layers recorded: posix,stdio,mpiio,api or all" },
    [V_EXCLUDE]         = { "FTIO_EXCLUDE",         ENV_TEXT, 0, 0, 0, default_excludes,      "path prefixes not traced (+a,b adds)" },
    [V_JOB]             = { "FTIO_JOB",             ENV_ELSEWHERE, 0, 0, 0, NULL,             "the job id (core.c)" },
    [V_APP]             = { "FTIO_APP",             ENV_TEXT, 0, 0, 0, "",                    "the application's name in ftiod's memory of runs (identity.c)" },
    [V_SEQ_BASE]        = { "FTIO_SEQ_BASE",        ENV_ELSEWHERE, 0, 0, 0, NULL,             "set by the shim for an exec'd image (lifecycle.c)" },
    [V_HANDOFF]         = { "FTIO_HANDOFF",         ENV_ELSEWHERE, 0, 0, 0, NULL,             "set by the shim for an exec'd image (lifecycle.c, sink.c)" },
    /* END ftio-env-table */
};

/* The FTIO_* variables' values, found in one pass over the environment
 * (env_snapshot) rather than a getenv() each: each getenv scans the whole
 * environment, and ~30 of them were 6 % of a traced `cat`'s user-space
 * instructions (bench/README.md "exit14").  NULL: unset.  The first
 * occurrence of a name wins, as with getenv. */
static const char *env_val[V_COUNT] FTIO_EARLY;

static void env_snapshot(void)
{
    const char *prefix = env_vars[0].name;     /* (every row's name begins FTIO_) */
    for (char **e = environ; e && *e; e++) {
        const char *kv = *e, *eq;
        if (strncmp(kv, prefix, 5) != 0 || !(eq = strchr(kv + 5, '=')))
            continue;
        size_t len = (size_t)(eq - kv);
        for (int v = 0; v < V_COUNT; v++)
            if (!env_val[v] && strncmp(env_vars[v].name, kv, len) == 0 && env_vars[v].name[len] == '\0') {
                env_val[v] = eq + 1;
                break;
            }
    }
}

/* The value of variable v, NULL when unset. */
static const char *env_get(int v)
{
    return env_val[v];
}

/* Integer variable v in [lo, hi]; otherwise warn and use its default. */
static long env_long(int v)
{
    const struct env_var *e = &env_vars[v];
    const char *s = env_get(v);
    if (!s || !*s)
        return e->def;
    char *end;
    long x = strtol(s, &end, 10);
    if (*end || x < e->lo || x > e->hi) {
        ftio_warn("%s=%s is not an integer in [%ld, %ld]; using %ld", e->name, s, e->lo, e->hi, e->def);
        return e->def;
    }
    return x;
}

/* Flag variable v: unset, its default; else true unless empty, 0, no, false. */
static int env_flag(int v)
{
    const char *s = env_get(v);
    if (!s)
        return (int)env_vars[v].def;
    return *s && strcmp(s, "0") != 0 && strcasecmp(s, "no") != 0 && strcasecmp(s, "false") != 0;
}

static void copy_str(char *dst, size_t cap, const char *src, const char *what)
{
    if (ftio_strlcpy(dst, cap, src) >= cap)
        ftio_warn("%s is too long (max %zu); truncated", what, cap - 1);
}

/* Bytes of s before its first ':' or ',' (strcspn's code is a page of libc
 * more for the constructor: ftio_strlcpy in core.c). */
static size_t item_len(const char *s)
{
    size_t n = 0;
    while (s[n] && s[n] != ':' && s[n] != ',')
        n++;
    return n;
}

/* FTIO_LAYERS=posix,stdio,mpiio,api (or "all"). */
static unsigned parse_layers(const char *v)
{
    unsigned mask = 0;
    char buf[256];
    copy_str(buf, sizeof buf, v, env_vars[V_LAYERS].name);
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        int found = 0;
        if (strcasecmp(tok, "all") == 0) {
            mask = (1u << FTIO_LAYER_COUNT) - 1;
            continue;
        }
        if (strcasecmp(tok, "mpi") == 0 || strcasecmp(tok, "mpi-io") == 0)
            tok = "mpiio";
        for (int l = 0; l < FTIO_LAYER_COUNT; l++)
            if (strcasecmp(tok, ftio_layer_name(l)) == 0) {
                mask |= 1u << l;
                found = 1;
            }
        if (!found)
            ftio_warn("FTIO_LAYERS: unknown layer '%s' (known: posix,stdio,mpiio,api)", tok);
    }
    return mask;
}

static void add_exclude(struct ftio_config *c, const char *p, size_t len)
{
    while (len > 1 && p[len - 1] == '/')
        len--;
    if (len == 0)
        return;
    if (p[0] != '/') {
        ftio_warn("FTIO_EXCLUDE: '%.*s' is not an absolute path; ignored", (int)len, p);
        return;
    }
    if (c->nexclude == FTIO_MAX_EXCLUDES) {
        ftio_warn("FTIO_EXCLUDE: more than %d prefixes; the rest is ignored", FTIO_MAX_EXCLUDES);
        return;
    }
    c->exclude[c->nexclude] = p;          /* no copy: the process's life long (no malloc) */
    c->exclude_len[c->nexclude] = len;
    c->nexclude++;
}

static void parse_excludes(struct ftio_config *c, const char *v)
{
    while (*v) {
        size_t len = item_len(v);
        add_exclude(c, v, len);
        v += len;
        if (*v)
            v++;
    }
}

/* Does the colon (or comma) list name this program? */
static int list_has(const char *list, const char *name)
{
    size_t len = strlen(name);
    while (*list) {
        size_t n = item_len(list);
        if (n == len && len > 0 && strncmp(list, name, n) == 0)
            return 1;
        list += n;
        if (*list)
            list++;
    }
    return 0;
}

/* The name the program was started as (mpirun) and the file it runs
 * (orterun, which Debian's mpirun links to): either may be on the list.
 * Returns the name that matched, or NULL. */
static const char *ignored_program(char *exe, size_t cap)
{
    const char *list = env_get(V_IGNORE_PROGRAMS);
    if (!list)
        list = env_vars[V_IGNORE_PROGRAMS].text_def;
    if (!*list)
        return NULL;
    if (list_has(list, program_invocation_short_name))
        return program_invocation_short_name;
    ssize_t n = readlink("/proc/self/exe", exe, cap - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    return list_has(list, base) ? base : NULL;
}

/* c is zero (static: not cleared here, which touched both of its pages). */
void ftio_config_load(struct ftio_config *c)
{
    env_snapshot();
    c->disable = env_flag(V_DISABLE);
    c->debug = env_flag(V_DEBUG);
    if (c->disable)
        return;
    char exe[4096];
    const char *launcher = ignored_program(exe, sizeof exe);
    if (launcher) {
        c->disable = 1;
        ftio_log("%s is a launcher (FTIO_IGNORE_PROGRAMS): not traced", launcher);
        return;
    }

    const char *ep = env_get(V_ENDPOINT);
    copy_str(c->endpoint, sizeof c->endpoint, ep && *ep ? ep : env_vars[V_ENDPOINT].text_def, "FTIO_ENDPOINT");

    const char *sp = env_get(V_SPOOL);
    c->spool_mode = FTIO_SPOOL_AUTO;
    if (sp && *sp) {
        /* Clear names (file: only the spool file; daemon: only ftiod; tee:
         * both, the trace kept whatever the daemon does), and the old ones. */
        if (strcasecmp(sp, "file") == 0 || strcasecmp(sp, "always") == 0 || strcmp(sp, "1") == 0)
            c->spool_mode = FTIO_SPOOL_ALWAYS;
        else if (strcasecmp(sp, "daemon") == 0 || strcasecmp(sp, "never") == 0 || strcmp(sp, "0") == 0)
            c->spool_mode = FTIO_SPOOL_NEVER;
        else if (strcasecmp(sp, "tee") == 0)
            c->spool_mode = FTIO_SPOOL_TEE;
        else if (strcasecmp(sp, "auto") != 0)
            ftio_warn("FTIO_SPOOL=%s: expected auto, tee, file or daemon; using auto", sp);
    }
    /* The spool directory is private to the user (spool.c checks it):
     * $FTIO_SPOOL_DIR, else $TMPDIR/ftio-$UID, else /tmp/ftio-$UID. */
    const char *dir = env_get(V_SPOOL_DIR), *tmp = getenv("TMPDIR");
    if (dir && *dir) {
        copy_str(c->spool_dir, sizeof c->spool_dir, dir, "FTIO_SPOOL_DIR");
    } else {
        char def[sizeof c->spool_dir + 32], *end = def + sizeof def - 1;   /* "%s/ftio-%u" */
        size_t tl = ftio_strlcpy(def, sizeof c->spool_dir, tmp && *tmp ? tmp : "/tmp");
        char *p = def + (tl < sizeof c->spool_dir ? tl : sizeof c->spool_dir - 1);
        memcpy(p, "/ftio-", 6);
        *ftio_put_ulong(p + 6, end, (unsigned long)geteuid()) = '\0';
        copy_str(c->spool_dir, sizeof c->spool_dir, def, "TMPDIR");
    }
    /* Where to spool when that directory is not ours (spool.c). */
    copy_str(c->tmp_dir, sizeof c->tmp_dir, tmp && *tmp ? tmp : "/tmp", "TMPDIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/')
        copy_str(c->spool_alt, sizeof c->spool_alt, xdg, "XDG_RUNTIME_DIR");

    /* Authentication of the batches (common/auth.h): MUNGE unless the
     * site's ftiod runs --auth none. */
    const char *au = env_get(V_AUTH);
    c->auth_mode = FTIO_AUTH_MUNGE;
    if (au && *au) {
        int m = ftio_auth_mode_parse(au);
        if (m < 0)
            ftio_warn("FTIO_AUTH=%s: expected munge or none; using munge", au);
        else
            c->auth_mode = m;
    }
    /* The user's own name of the application (identity.c sends it). */
    const char *app = env_get(V_APP);
    if (app && *app)
        copy_str(c->app_name, sizeof c->app_name, app, "FTIO_APP");
    const char *ms = env_get(V_MUNGE_SOCKET);
    if (ms && *ms)
        copy_str(c->munge_socket, sizeof c->munge_socket, ms, "FTIO_MUNGE_SOCKET");
    /* Checked when the session is made (sink.c, ftio_auth_daemon_uid). */
    const char *au_uid = env_get(V_AUTH_UID);
    if (au_uid && *au_uid)
        copy_str(c->auth_uid, sizeof c->auth_uid, au_uid, "FTIO_AUTH_UID");

    /* Acknowledged delivery (PROTOCOL.md §1.4): a batch is kept until ftiod
     * says it has it; unacknowledged for FTIO_ACK_TIMEOUT_MS (a hung
     * daemon), at exit after FTIO_EXIT_WAIT_MS, or past FTIO_ACK_MAX_MB of
     * copies, it goes to the spool file. */
    c->ack_timeout_ms = (int)env_long(V_ACK_TIMEOUT_MS);
    c->exit_wait_ms = (int)env_long(V_EXIT_WAIT_MS);
    c->ack_max_bytes = (size_t)env_long(V_ACK_MAX_MB) << 20;

    c->flush_ms = (int)env_long(V_FLUSH_MS);
    /* Batches queued for a connected but slow daemon; beyond, they are
     * spooled.  Bounds the memory ZeroMQ can hold (batches are <= ~3 MB). */
    c->hwm = (int)env_long(V_HWM);
    c->zmtp = env_flag(V_ZMTP);
    c->tsc = env_flag(V_TSC);
    c->nested = env_flag(V_NESTED);
    c->signals = env_flag(V_SIGNALS);
    c->private_fds = env_flag(V_PRIVATE_FDS);

    /* Per-thread ring: FTIO_BUFFER_MB megabytes of 48-byte records, rounded
     * down to a power of two (index masking), at least 1024 records. */
    long mb = env_long(V_BUFFER_MB);
    size_t want = (size_t)mb * 1024 * 1024 / sizeof(struct ftio_record), cap = 1024;
    while (cap * 2 <= want)
        cap *= 2;
    c->ring_records = cap;
    /* Bursts: more segments of that size per process, up to
     * FTIO_BUFFER_MAX_MB in all (ring.c); past it records are lost, counted. */
    long max_mb = env_long(V_BUFFER_MAX_MB);
    if (max_mb < mb)
        max_mb = mb;
    c->ring_max_records = (size_t)max_mb * 1024 * 1024 / sizeof(struct ftio_record);

    const char *layers = env_get(V_LAYERS);
    c->layers = layers && *layers ? parse_layers(layers) : (1u << FTIO_LAYER_COUNT) - 1;

    const char *ex = env_get(V_EXCLUDE);
    if (!ex || ex[0] == '+')
        parse_excludes(c, env_vars[V_EXCLUDE].text_def);
    if (ex)
        parse_excludes(c, ex[0] == '+' ? ex + 1 : ex);
    /* The MPI runtime's own session directories (shared-memory segments,
     * PMIx stores) are never application I/O. */
    static const char *const runtime_dirs[] = { "OMPI_MCA_orte_top_session_dir",
                                                "OMPI_MCA_prte_top_session_dir",
                                                "PMIX_SERVER_TMPDIR" };
    for (size_t i = 0; i < sizeof runtime_dirs / sizeof *runtime_dirs; i++) {
        const char *d = getenv(runtime_dirs[i]);
        if (d && d[0] == '/' && strlen(d) > 1)
            add_exclude(c, d, strlen(d));
    }
}
