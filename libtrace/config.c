/* config.c -- the shim's environment (PROTOCOL.md §4), read once at init.
 *
 * Runs in the library constructor, before main(): a bad value can't make the
 * application fail, so it is reported on one stderr line and the default is
 * used instead.  Nothing here is consulted on the hot path except through the
 * plain fields of ftio_cfg / ftio_layer_mask.
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

struct ftio_config ftio_cfg;

/* Integer variable in [lo, hi]; otherwise warn and use def. */
static long env_long(const char *name, long def, long lo, long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) {
        ftio_warn("%s=%s is not an integer in [%ld, %ld]; using %ld", name, v, lo, hi, def);
        return def;
    }
    return x;
}

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "no") != 0 &&
           strcasecmp(v, "false") != 0;
}

static void copy_str(char *dst, size_t cap, const char *src, const char *what)
{
    if (strlen(src) >= cap)
        ftio_warn("%s is too long (max %zu); truncated", what, cap - 1);
    snprintf(dst, cap, "%s", src);
}

/* FTIO_LAYERS=posix,stdio,mpiio,api (or "all"). */
static unsigned parse_layers(const char *v)
{
    unsigned mask = 0;
    char buf[256];
    copy_str(buf, sizeof buf, v, "FTIO_LAYERS");
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
    char *s = strndup(p, len);
    if (!s)
        return;
    c->exclude[c->nexclude] = s;
    c->exclude_len[c->nexclude] = len;
    c->nexclude++;
}

static void parse_excludes(struct ftio_config *c, const char *v)
{
    while (*v) {
        size_t len = strcspn(v, ":,");
        add_exclude(c, v, len);
        v += len;
        if (*v)
            v++;
    }
}

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

/* Does the colon (or comma) list name this program? */
static int list_has(const char *list, const char *name)
{
    size_t len = strlen(name);
    while (*list) {
        size_t n = strcspn(list, ":,");
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
    const char *list = getenv("FTIO_IGNORE_PROGRAMS");
    if (!list)
        list = default_ignored;
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

void ftio_config_load(struct ftio_config *c)
{
    memset(c, 0, sizeof *c);
    c->disable = env_flag("FTIO_DISABLE");
    c->debug = env_flag("FTIO_DEBUG");
    if (c->disable)
        return;
    char exe[4096];
    const char *launcher = ignored_program(exe, sizeof exe);
    if (launcher) {
        c->disable = 1;
        ftio_log("%s is a launcher (FTIO_IGNORE_PROGRAMS): not traced", launcher);
        return;
    }

    const char *ep = getenv("FTIO_ENDPOINT");
    copy_str(c->endpoint, sizeof c->endpoint, ep && *ep ? ep : "tcp://127.0.0.1:5555", "FTIO_ENDPOINT");

    const char *sp = getenv("FTIO_SPOOL");
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
    const char *dir = getenv("FTIO_SPOOL_DIR"), *tmp = getenv("TMPDIR");
    if (dir && *dir) {
        copy_str(c->spool_dir, sizeof c->spool_dir, dir, "FTIO_SPOOL_DIR");
    } else {
        char def[sizeof c->spool_dir];
        snprintf(def, sizeof def, "%s/ftio-%u", tmp && *tmp ? tmp : "/tmp", (unsigned)geteuid());
        copy_str(c->spool_dir, sizeof c->spool_dir, def, "TMPDIR");
    }
    /* Where to spool when that directory is not ours (spool.c). */
    copy_str(c->tmp_dir, sizeof c->tmp_dir, tmp && *tmp ? tmp : "/tmp", "TMPDIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/')
        copy_str(c->spool_alt, sizeof c->spool_alt, xdg, "XDG_RUNTIME_DIR");

    /* Authentication of the batches (common/auth.h): MUNGE unless the
     * site's ftiod runs --auth none. */
    const char *au = getenv("FTIO_AUTH");
    c->auth_mode = FTIO_AUTH_MUNGE;
    if (au && *au) {
        int m = ftio_auth_mode_parse(au);
        if (m < 0)
            ftio_warn("FTIO_AUTH=%s: expected munge or none; using munge", au);
        else
            c->auth_mode = m;
    }
    const char *ms = getenv("FTIO_MUNGE_SOCKET");
    if (ms && *ms)
        copy_str(c->munge_socket, sizeof c->munge_socket, ms, "FTIO_MUNGE_SOCKET");
    /* Checked when the session is made (sink_zmq.c, ftio_auth_daemon_uid). */
    const char *au_uid = getenv("FTIO_AUTH_UID");
    if (au_uid && *au_uid)
        copy_str(c->auth_uid, sizeof c->auth_uid, au_uid, "FTIO_AUTH_UID");

    /* Acknowledged delivery (PROTOCOL.md §1.4): a batch is kept until ftiod
     * says it has it; unacknowledged for FTIO_ACK_TIMEOUT_MS (a hung
     * daemon), at exit after FTIO_EXIT_WAIT_MS, or past FTIO_ACK_MAX_MB of
     * copies, it goes to the spool file. */
    c->ack_timeout_ms = (int)env_long("FTIO_ACK_TIMEOUT_MS", 5000, 1, 3600 * 1000);
    c->exit_wait_ms = (int)env_long("FTIO_EXIT_WAIT_MS", 3, 0, 60 * 1000);
    c->ack_max_bytes = (size_t)env_long("FTIO_ACK_MAX_MB", 16, 1, 1 << 20) << 20;

    c->flush_ms = (int)env_long("FTIO_FLUSH_MS", 1000, 1, 3600 * 1000);
    /* Batches queued for a connected but slow daemon; beyond, they are
     * spooled.  Bounds the memory ZeroMQ can hold (batches are <= ~3 MB). */
    c->hwm = (int)env_long("FTIO_HWM", 100, 1, 1000000);
    c->signals = env_flag("FTIO_SIGNALS") || !getenv("FTIO_SIGNALS");
    c->private_fds = env_flag("FTIO_PRIVATE_FDS") || !getenv("FTIO_PRIVATE_FDS");

    /* Per-thread ring: FTIO_BUFFER_MB megabytes of 48-byte records, rounded
     * down to a power of two (index masking), at least 1024 records. */
    long mb = env_long("FTIO_BUFFER_MB", 2, 1, 4096);
    size_t want = (size_t)mb * 1024 * 1024 / sizeof(struct ftio_record), cap = 1024;
    while (cap * 2 <= want)
        cap *= 2;
    c->ring_records = cap;
    /* Bursts: more segments of that size per process, up to
     * FTIO_BUFFER_MAX_MB in all (ring.c); past it records are lost, counted. */
    long max_mb = env_long("FTIO_BUFFER_MAX_MB", 256, 1, 1 << 20);
    if (max_mb < mb)
        max_mb = mb;
    c->ring_max_records = (size_t)max_mb * 1024 * 1024 / sizeof(struct ftio_record);

    const char *layers = getenv("FTIO_LAYERS");
    c->layers = layers && *layers ? parse_layers(layers) : (1u << FTIO_LAYER_COUNT) - 1;

    /* FTIO_EXCLUDE=a,b replaces the default list; FTIO_EXCLUDE=+a,b adds to
     * it; FTIO_EXCLUDE= (empty) traces every path. */
    static const char defaults[] = "/proc,/sys,/dev,/etc,/usr,/lib,/lib32,/lib64,/libx32,/bin,/sbin,"
                                   "/run,/var/run,/var/lib,/snap,/boot";
    const char *ex = getenv("FTIO_EXCLUDE");
    if (!ex || ex[0] == '+')
        parse_excludes(c, defaults);
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
