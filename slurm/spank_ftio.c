/* SPDX-License-Identifier: BSD-3-Clause */
/* spank_ftio.c -- Slurm SPANK plugin: `srun --ftio` traces a step's tasks
 * with libftio.so and tells ftiod when the step is over.
 *
 * plugstack.conf (one line; arguments optional; see man/ftiod.1 "SLURM"):
 *
 *   optional /usr/local/lib/spank_ftio.so default=off endpoint=tcp://login1:5555 status=tcp://login1:5557 lib=/usr/local/lib/libftio.so auth=munge
 *
 * - `--ftio[=on|off]` on srun (and sbatch/salloc, whose steps inherit it);
 *   `default=on` traces every step unless the user says --ftio=off, which
 *   also takes lib= out of an LD_PRELOAD inherited from a traced batch script.
 * - `--ftio-app=name` names the application for ftiod's memory of runs
 *   (the tasks get FTIO_APP=name, libftio(7)): for programs whose arguments
 *   change every run.  It traces the step too, unless --ftio=off says not.
 * - For a traced step, in slurmstepd before the tasks start (user_init): the
 *   tasks' environment gets LD_PRELOAD (lib= in front of the user's own),
 *   FTIO_ENDPOINT (endpoint=, unless the user set one), FTIO_AUTH=none with
 *   auth=none, and FTIO_JOB = "<job>.<step>" (common/jobid.h; the batch
 *   script gets none, so the steps it starts name themselves).  slurmstepd
 *   itself is never preloaded, and the shim ignores srun/slurmstepd anyway
 *   (libtrace/config.c).
 * - Before the tasks start (init_post_opt, in slurmstepd as root: user_init
 *   already runs with the user's uid), the step's id is claimed for its
 *   user: "claim <job>.<step> <uid>" on ftiod's control socket (status=,
 *   common/control.h), so that nobody else's batches can take the id
 *   (docs/SECURITY.md, "Job ids"); ftiod accepts it from root only
 *   (slurmstepd's MUNGE credential).  The batch script's step is claimed too.
 *   status= may list several daemons (E1,E2): each is claimed at, and the
 *   end goes to each in turn until one has the step.
 *   The wait is bounded (1 s): a daemon that is down delays a traced step's
 *   start by that much, and its batches go to the user's namespace.
 * - When the step is over (exit, in slurmstepd, after every task was
 *   reaped): "end <job>.<step>", the request of `ftio end`, so the step's
 *   `ftio.<job>.<step>.end` comes at once even when tasks were killed.  The
 *   credential is slurmstepd's (root: an admin for ftiod, docs/SECURITY.md);
 *   each wait is bounded (2 s) and a daemon that is down only costs a log line.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include "control.h"
#include "curve.h"
#include "defaults.h"
#include "ftio_paths.h"   /* FTIO_PRELOAD_LIB: lib= by default */
#include "jobid.h"

/* Built with hidden visibility (slurm/slurm.mk): only what Slurm's plugin
 * loader looks up is exported. */
#define SPANK_EXPORT __attribute__((visibility("default")))
#pragma GCC visibility push(default)
SPANK_PLUGIN(ftio, 1);
#pragma GCC visibility pop

#define END_TIMEOUT_S 2.0
/* A claim delays the step's start while ftiod does not answer: shorter.  A
 * claim that arrives after we gave up still counts (ftiod answers a closed
 * socket). */
#define CLAIM_TIMEOUT_S 1.0

/* The site's settings (plugstack.conf) and the user's option. */
static struct {
    int  by_default;               /* default=on */
    int  auth_none;                /* auth=none */
    char lib[1024];
    char endpoint[512];            /* "" = the shim's default */
    char status[512];
} site = { .lib = FTIO_PRELOAD_LIB, .status = FTIO_DEFAULT_STATUS };
static int user_choice = -1;       /* --ftio: 1 on, 0 off, -1 not given */
static char app_name[256];         /* --ftio-app: FTIO_APP of the tasks, "" = none */
static int traced;                 /* this step's tasks were set up */

/* on/off; a bare --ftio is on.  srun started in a batch script that was
 * submitted with a bare --ftio inherits it through the environment
 * (SLURM_SPANK_..._ftio) as the text "(null)": that is a bare --ftio too. */
static int parse_switch(const char *v)
{
    if (!v || !*v || !strcmp(v, "(null)"))
        return 1;
    if (!strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcmp(v, "1"))
        return 1;
    if (!strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcmp(v, "0"))
        return 0;
    return -1;
}

static int ftio_opt(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    int on = parse_switch(optarg);
    if (on < 0) {
        slurm_error("ftio: --ftio=%s: expected on or off", optarg);
        return -1;
    }
    user_choice = on;
    return 0;
}

static struct spank_option ftio_option = {
    "ftio", "[on|off]",
    "Trace the step's I/O with libftio.so and stream it to ftiod for online period prediction",
    2, 0, ftio_opt,
};

/* --ftio-app=name: printable, at most 255 characters (FTIO_APP's bound). */
static int ftio_app_opt(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    size_t n = optarg ? strlen(optarg) : 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)optarg[i] < ' ' || optarg[i] == 0x7f)
            n = 0;
    if (n == 0 || n >= sizeof app_name) {
        slurm_error("ftio: --ftio-app: a name of 1..%zu printable characters", sizeof app_name - 1);
        return -1;
    }
    memcpy(app_name, optarg, n + 1);
    return 0;
}

static struct spank_option ftio_app_option = {
    "ftio-app", "name",
    "Name the application for ftiod's memory of runs (FTIO_APP; implies --ftio)",
    1, 0, ftio_app_opt,
};

static int copy_arg(char *dst, size_t cap, const char *v, const char *what)
{
    if (!*v || strlen(v) >= cap) {
        slurm_error("ftio: plugstack.conf: %s must be 1..%zu characters", what, cap - 1);
        return -1;
    }
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

static int site_args(int ac, char **av)
{
    for (int i = 0; i < ac; i++) {
        const char *a = av[i];
        if (!strncmp(a, "default=", 8)) {
            int on = parse_switch(a + 8);
            if (on < 0 || !a[8]) {
                slurm_error("ftio: plugstack.conf: default=%s: expected on or off", a + 8);
                return -1;
            }
            site.by_default = on;
        } else if (!strncmp(a, "auth=", 5)) {
            if (strcmp(a + 5, "munge") && strcmp(a + 5, "none")) {
                slurm_error("ftio: plugstack.conf: auth=%s: expected munge or none", a + 5);
                return -1;
            }
            site.auth_none = !strcmp(a + 5, "none");
        } else if (!strncmp(a, "lib=", 4)) {
            if (copy_arg(site.lib, sizeof site.lib, a + 4, "lib="))
                return -1;
        } else if (!strncmp(a, "endpoint=", 9)) {
            if (copy_arg(site.endpoint, sizeof site.endpoint, a + 9, "endpoint="))
                return -1;
        } else if (!strncmp(a, "status=", 7)) {
            if (copy_arg(site.status, sizeof site.status, a + 7, "status="))
                return -1;
        } else {
            slurm_error("ftio: plugstack.conf: unknown argument '%s' "
                        "(default= endpoint= status= lib= auth=)", a);
            return -1;
        }
    }
    return 0;
}

SPANK_EXPORT int slurm_spank_init(spank_t sp, int ac, char **av)
{
    if (site_args(ac, av))
        return -1;
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE || ctx == S_CTX_ALLOCATOR)
        return spank_option_register(sp, &ftio_option) == ESPANK_SUCCESS &&
               spank_option_register(sp, &ftio_app_option) == ESPANK_SUCCESS ? 0 : -1;
    return 0;
}

/* "<job>.<step>" of this step (Slurm's step names: 0, batch, extern ...). */
static int step_id(spank_t sp, char *out, size_t cap, uint32_t *stepid)
{
    uint32_t job;
    char name[24];
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, stepid) != ESPANK_SUCCESS)
        return -1;
    char jobtext[16];
    snprintf(jobtext, sizeof jobtext, "%u", job);
    return ftio_job_with_step(out, cap, jobtext, ftio_slurm_step_name(*stepid, name));
}

/* LD_PRELOAD with our library in front (once) of what the user preloads. */
static int set_preload(spank_t sp)
{
    char cur[4096] = "", val[sizeof cur + sizeof site.lib + 1];
    spank_err_t rc = spank_getenv(sp, "LD_PRELOAD", cur, sizeof cur);
    if (rc == ESPANK_NOSPACE)
        return -1;                 /* never cut the user's own list short */
    if (rc != ESPANK_SUCCESS)
        cur[0] = '\0';
    if (strstr(cur, site.lib))
        snprintf(val, sizeof val, "%s", cur);
    else
        snprintf(val, sizeof val, "%s%s%s", site.lib, cur[0] ? " " : "", cur);
    return spank_setenv(sp, "LD_PRELOAD", val, 1) == ESPANK_SUCCESS ? 0 : -1;
}

/* Is tok one of the libraries of lib= (a colon list)? */
static int site_lib(const char *tok)
{
    size_t len = strlen(tok);
    for (const char *p = site.lib; *p;) {
        size_t n = strcspn(p, ":");
        if (n == len && !strncmp(p, tok, n))
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* --ftio=off in a step of a job whose batch script is traced: the step
 * inherited the script's LD_PRELOAD; take lib= out of it. */
static void drop_preload(spank_t sp)
{
    char cur[4096], val[4096] = "";
    if (spank_getenv(sp, "LD_PRELOAD", cur, sizeof cur) != ESPANK_SUCCESS)
        return;
    size_t n = 0, dropped = 0;
    for (char *save = NULL, *tok = strtok_r(cur, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
        if (site_lib(tok)) {
            dropped++;
            continue;
        }
        int w = snprintf(val + n, sizeof val - n, "%s%s", n ? " " : "", tok);
        if (w < 0 || (size_t)w >= sizeof val - n)
            return;
        n += (size_t)w;
    }
    if (!dropped)
        return;
    if (n)
        spank_setenv(sp, "LD_PRELOAD", val, 1);
    else
        spank_unsetenv(sp, "LD_PRELOAD");
}

/* One request to ftiod's control socket, bounded in time; the reply (a new
 * reference) or NULL with a log line. */
static json_t *ask_ftiod(const char *endpoint, const char *id, enum ftio_control_verb v,
                         int64_t uid)
{
    struct ftio_query_opts q = {
        .endpoint = endpoint, .munge = !site.auth_none,
        .timeout = v == FTIO_CTL_CLAIM ? CLAIM_TIMEOUT_S : END_TIMEOUT_S,
    };
    char err[512];
    json_t *reply = NULL;
    if (ftio_control_call(&q, v, id, uid, &reply, err, sizeof err) != 0) {
        slurm_info("ftio: step %s: %s at %s: %s", id, ftio_control_verb_name(v), endpoint, err);
        return NULL;
    }
    return reply;
}

/* status= may name several daemons (E1,E2: relays spread the jobs over
 * them, PROTOCOL.md §1.5): fn for each until it returns 1. */
static void each_daemon(int (*fn)(const char *endpoint, const char *id, int64_t uid),
                        const char *id, int64_t uid)
{
    char list[sizeof site.status];
    memcpy(list, site.status, sizeof list);
    for (char *save = NULL, *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save))
        if (*e && fn(e, id, uid))
            return;
}

/* A claim goes to every daemon: the step's batches may reach any. */
static int claim_one(const char *endpoint, const char *id, int64_t uid)
{
    json_t *r = ask_ftiod(endpoint, id, FTIO_CTL_CLAIM, uid);
    if (r && ftio_control_error(r))
        slurm_error("ftio: step %s: ftiod at %s refused the claim for uid %lld: %s", id, endpoint,
                    (long long)uid, ftio_control_error(r));
    json_decref(r);
    return 0;
}

/* The end goes to the daemons in turn until one has the step. */
static int end_one(const char *endpoint, const char *id, int64_t uid)
{
    (void)uid;
    json_t *r = ask_ftiod(endpoint, id, FTIO_CTL_END, -1);
    int ending = r && json_is_string(json_object_get(r, "ending"));
    if (r && !ending)
        /* Not there, or already ended by its processes' final batches. */
        slurm_verbose("ftio: step %s: ftiod at %s says %s", id, endpoint,
                      ftio_control_error(r) ?: "?");
    json_decref(r);
    return ending;
}

/* The step's id is its user's before any of its batches can arrive. */
static void claim_step(spank_t sp, const char *id)
{
    uid_t uid;
    if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS) {
        slurm_error("ftio: step %s: no uid to claim it for", id);
        return;
    }
    each_daemon(claim_one, id, (int64_t)uid);
}

/* Is this step traced (--ftio, default=)?  Its id and number. */
static int step_traced(spank_t sp, char *id, size_t cap, uint32_t *step)
{
    int on = user_choice >= 0 ? user_choice : app_name[0] ? 1 : site.by_default;
    /* The extern step runs no task of the user's. */
    return on && !step_id(sp, id, cap, step) && *step != SLURM_EXTERN_CONT;
}

/* In slurmstepd, as root (user_init runs with the user's uid, which ftiod
 * does not take claims from), options known, before any task starts. */
SPANK_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    char id[64];
    uint32_t step;
    if (spank_context() == S_CTX_REMOTE && step_traced(sp, id, sizeof id, &step))
        claim_step(sp, id);
    return 0;
}

/* In slurmstepd, before any task starts: the tasks' environment. */
SPANK_EXPORT int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (!spank_remote(sp))
        return 0;
    char id[64];
    uint32_t step;
    if (user_choice == 0)
        drop_preload(sp);
    if (!step_traced(sp, id, sizeof id, &step))
        return 0;
    if (set_preload(sp)) {
        slurm_error("ftio: cannot set LD_PRELOAD for step %s", id);
        return 0;                  /* the step runs, untraced */
    }
    if (site.endpoint[0])
        spank_setenv(sp, "FTIO_ENDPOINT", site.endpoint, 0);
    if (site.auth_none)
        spank_setenv(sp, "FTIO_AUTH", "none", 0);
    /* Not in the batch script: the srun steps it starts inherit its
     * environment and must name themselves (libtrace/core.c). */
    if (step != SLURM_BATCH_SCRIPT)
        spank_setenv(sp, "FTIO_JOB", id, 1);
    if (app_name[0])
        spank_setenv(sp, "FTIO_APP", app_name, 1);
    traced = 1;
    slurm_verbose("ftio: tracing step %s with %s", id, site.lib);
    return 0;
}

/* In slurmstepd, every task reaped: the step is over for ftiod too. */
SPANK_EXPORT int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (!traced || spank_context() != S_CTX_REMOTE)
        return 0;
    char id[64];
    uint32_t step;
    if (step_id(sp, id, sizeof id, &step))
        return 0;
    each_daemon(end_one, id, -1);
    return 0;
}
