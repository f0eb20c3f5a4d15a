/* SPDX-License-Identifier: BSD-3-Clause */
/* history.c -- `ftio history`: look into and forget the memory of runs
 * (docs/ALGORITHM.md §11; predictor/history/).
 *
 *   ftio history list [--user U]           the applications, latest used first
 *   ftio history show ID                   one of them: its runs and the priors they give
 *   ftio history forget ID|all [--user U]  forget it (all: every one you may)
 *   ftio history key [--cmdline TEXT | [--] PROGRAM [ARG...]]
 *                                          the key a run of that command line has
 *
 * Where: ftiod's control socket by default (FTIO_STATUS, --endpoint; a MUNGE
 * credential proves who asks: a user sees and forgets their own
 * applications, root and admin keys every one), or a store read directly with
 * --history STORE (what its file's permissions allow: an admin's, or the
 * store `ftio scan --history` made).  Both give the same JSON (--json); the
 * text is made from it.  Exit status: 0, 1 when the store or ftiod fails or
 * says no, 2 on a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "app_key.h"
#include "auth.h"
#include "cliopt.h"
#include "commands.h"
#include "control.h"
#include "defaults.h"
#include "history/history.h"
#include "units.h"

static const char usage_text[] =
    "usage: ftio history list [--user U] [--json] [WHERE]\n"
    "       ftio history show ID [--json] [WHERE]\n"
    "       ftio history forget ID|all [--user U] [WHERE]\n"
    "       ftio history key [--cmdline TEXT | [--] PROGRAM [ARG...]]\n"
    "WHERE: --history STORE, or ftiod: [--endpoint E] [--timeout S] [--server-key K [--key F]]\n";

static const char about_text[] =
    "The memory of runs: for each application of each user, the final answers of\n"
    "its latest runs, from which ftiod predicts a known application's next run\n"
    "from its first batch.  `list` shows the applications, `show` one of them with\n"
    "its runs and the prediction they give, `forget` forgets it, `key` prints the\n"
    "key a command line has (the hashes of its arguments, never the arguments).\n"
    "By default ftiod answers on its control socket: a user sees and forgets only\n"
    "their own applications; root and admin keys every one.\n";

static const char epilog_text[] =
    "Environment: FTIO_STATUS (default --endpoint, else ftiod's configuration\n"
    "file), FTIO_AUTH=none for a daemon without MUNGE.\n"
    "Exit status: 0, 1 when the store or ftiod fails or refuses, 2 on a usage error.\n";

struct history_cli {
    const char *store, *endpoints, *cmdline;
    int64_t user;
    bool json;
    struct ftio_query_opts q;
};

/* ---- the answers as text ------------------------------------------------------------ */

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "-";
}

static double num(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void when(double t, char *buf, size_t cap)
{
    if (!isfinite(t)) {
        snprintf(buf, cap, "-");
        return;
    }
    time_t s = (time_t)t;
    struct tm tm;
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", gmtime_r(&s, &tm));
}

static void print_apps(const json_t *r)
{
    size_t i;
    json_t *a;
    printf("%6s %7s %5s  %-19s  %-16s %-16s %s\n", "ID", "UID", "RUNS", "LAST RUN (UTC)", "PROGRAM",
           "ARGS", "NAME");
    json_array_foreach(json_object_get(r, "apps"), i, a) {
        char t[32];
        when(num(a, "last_end"), t, sizeof t);
        printf("%6" JSON_INTEGER_FORMAT " %7" JSON_INTEGER_FORMAT " %5" JSON_INTEGER_FORMAT
               "  %-19s  %-16s %-16s %s\n", json_integer_value(json_object_get(a, "id")),
               json_integer_value(json_object_get(a, "uid")),
               json_integer_value(json_object_get(a, "runs")), t, str(a, "prog"), str(a, "args"),
               str(a, "name"));
    }
    if (json_array_size(json_object_get(r, "apps")) == 0)
        printf("(no application)\n");
}

/* " 256 MiB per phase in 1.2 s" */
static void phase_text(const json_t *o, char *buf, size_t cap)
{
    char b[32];
    double bytes = num(o, "bytes"), d = num(o, "duration");
    if (!isfinite(bytes)) {
        buf[0] = '\0';
        return;
    }
    ftio_fmt_bytes(bytes, b, sizeof b);
    snprintf(buf, cap, ", %s per phase%s%.3g%s", b, isfinite(d) ? " in " : "", isfinite(d) ? d : 0,
             isfinite(d) ? " s" : "");
}

static void print_app(const json_t *r)
{
    const json_t *a = json_object_get(r, "app");
    char t[32], ph[96];
    printf("application %" JSON_INTEGER_FORMAT ": uid %" JSON_INTEGER_FORMAT ", %s (%s), args %s "
           "(numbers normalised %s), name %s\n", json_integer_value(json_object_get(a, "id")),
           json_integer_value(json_object_get(a, "uid")), str(a, "prog"), str(a, "exe"),
           str(a, "args"), str(a, "args_norm"), str(a, "name"));
    size_t i;
    json_t *p;
    printf("what its next run with these arguments is told at its first batch:\n");
    json_array_foreach(json_object_get(r, "priors"), i, p) {
        phase_text(p, ph, sizeof ph);
        double off = num(p, "offset");
        printf("  %s%s%s: period %.4g s (spread %.2g s), confidence %.2f %s (%" JSON_INTEGER_FORMAT
               " of %" JSON_INTEGER_FORMAT " runs agree)%s", str(p, "mode"),
               json_is_string(json_object_get(p, "pattern")) ? " " : "",
               json_is_string(json_object_get(p, "pattern")) ? str(p, "pattern") : "",
               num(p, "period"), num(p, "period_sd"), num(p, "confidence"), str(p, "class"),
               json_integer_value(json_object_get(p, "agreeing")),
               json_integer_value(json_object_get(p, "runs")), ph);
        if (isfinite(off))
            printf(", first phase %.3g s after the start", off);
        printf("\n");
    }
    if (json_array_size(json_object_get(r, "priors")) == 0)
        printf("  nothing: no run had a period most of the others agree on\n");
    json_t *run;
    printf("runs, latest first:\n");
    json_array_foreach(json_object_get(r, "runs"), i, run) {
        when(num(run, "end"), t, sizeof t);
        printf("  %s  job %s (%s, %" JSON_INTEGER_FORMAT " ranks)\n", t, str(run, "job"),
               str(run, "source"), json_integer_value(json_object_get(run, "nranks")));
        size_t k;
        json_t *x;
        json_array_foreach(json_object_get(run, "answers"), k, x) {
            phase_text(x, ph, sizeof ph);
            printf("    %s%s%s: ", str(x, "mode"), json_is_string(json_object_get(x, "pattern")) ? " " : "",
                   json_is_string(json_object_get(x, "pattern")) ? str(x, "pattern") : "");
            if (isfinite(num(x, "period")))
                printf("period %.4g s, confidence %.2f %s%s", num(x, "period"), num(x, "confidence"),
                       str(x, "class"), ph);
            else
                printf("no period (%s)", str(x, "class"));
            if (isfinite(num(x, "first_offset")))
                printf(", first phase +%.3g s", num(x, "first_offset"));
            printf("\n");
        }
    }
}

/* ---- where the answer comes from -------------------------------------------------------- */

/* The store itself: the same JSON ftiod gives. */
static json_t *ask_store(const struct history_cli *c, enum ftio_control_verb v, int64_t id)
{
    char err[512];
    struct ftio_store *h = ftio_store_open(c->store, 2000, v != FTIO_CTL_FORGET, err, sizeof err);
    if (!h)
        return json_pack("{s:s}", "error", err);
    json_t *r = v == FTIO_CTL_APPS ? ftio_store_reply_apps(h, c->user)
              : v == FTIO_CTL_APP ? ftio_store_reply_app(h, id, c->user)
              : ftio_store_reply_forget(h, id, c->user);
    ftio_store_close(h);
    return r;
}

struct ask { struct history_cli *c; enum ftio_control_verb v; const char *arg; json_t *r; char err[512]; };

static int ask_one(const char *endpoint, void *ctx)
{
    struct ask *a = ctx;
    a->c->q.endpoint = endpoint;
    return ftio_control_call(&a->c->q, a->v, a->arg, -1, &a->r, a->err, sizeof a->err) == 0;
}

/* ftiod: the first daemon of the list that answers. */
static json_t *ask_ftiod(struct history_cli *c, enum ftio_control_verb v, const char *arg)
{
    struct ask a = { .c = c, .v = v, .arg = arg };
    cliopt_each(c->endpoints, ask_one, &a);
    if (!a.r)
        return json_pack("{s:s}", "error", a.err[0] ? a.err : "no endpoint");
    /* admins see every uid's; --user narrows the list */
    json_t *apps = json_object_get(a.r, "apps");
    for (size_t i = json_array_size(apps); c->user >= 0 && i-- > 0;)
        if (json_integer_value(json_object_get(json_array_get(apps, i), "uid")) != c->user)
            json_array_remove(apps, i);
    return a.r;
}

/* ---- key ------------------------------------------------------------------------------------ */

static int key_of(const struct history_cli *c, char **args, int nargs)
{
    char exe[4096], h[FTIO_ARGS_HASH_HEX], hn[FTIO_ARGS_HASH_HEX];
    if (c->cmdline) {
        if (nargs) {
            fprintf(stderr, "ftio history key: --cmdline or a command, not both\n");
            return 2;
        }
        ftio_app_split_cmdline(c->cmdline, exe, sizeof exe, h, hn);
    } else {
        if (!nargs) {
            fprintf(stderr, "ftio history key: a command (or --cmdline TEXT)\n");
            return 2;
        }
        snprintf(exe, sizeof exe, "%s", args[0]);
        struct ftio_args_hash ah;
        ftio_args_hash_init(&ah);
        for (int i = 1; i < nargs; i++)
            ftio_args_hash_add(&ah, args[i], strlen(args[i]) + 1);   /* with its NUL */
        ftio_args_hash_hex(&ah, h, hn);
    }
    if (c->json) {
        json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "prog", ftio_app_prog(exe), "exe", exe,
                              "args", h, "args_norm", hn);
        char *s = json_dumps(o, JSON_COMPACT);
        printf("%s\n", s);
        free(s);
        json_decref(o);
    } else {
        printf("prog %s\nexe %s\nargs %s\nargs_norm %s\n", ftio_app_prog(exe), exe, h, hn);
    }
    return 0;
}

/* ---- the command ------------------------------------------------------------------------------ */

int ftio_cmd_history(int argc, char **argv)
{
    struct history_cli c = { .user = -1 };
    struct ftio_endpoints ep;
    ftio_default_endpoints(&ep);
    c.endpoints = ep.status;
    c.q = (struct ftio_query_opts){ .munge = ftio_auth_query_munge() };
    struct cliopt t[] = {
        {"history", 0, CLIOPT_STRING, "STORE",
         "read this store itself (a SQLite file, a postgresql://\nURI) instead of asking ftiod", NULL,
         .to.s = &c.store},
        {"endpoint", 'e', CLIOPT_LIST, "E", "ftiod's status endpoint (its --status-endpoint);\n"
         "several (E,E or repeated): the first that answers",
         "$FTIO_STATUS, ftiod.conf's status-endpoint or " FTIO_DEFAULT_STATUS, .to.s = &c.endpoints,
         .flags = CLIOPT_DEF_DOC},
        {"status-endpoint", 0, CLIOPT_LIST, "E", "the same as --endpoint", NULL, .to.s = &c.endpoints},
        {"timeout", 0, CLIOPT_DOUBLE, "S", "wait at most S seconds for ftiod's answer", "5",
         .to.d = &c.q.timeout, .min = 0, .max = 3600, .flags = CLIOPT_MIN_OPEN},
        {"server-key", 0, CLIOPT_STRING, "K", "ftiod's CURVE public key (or file)", NULL,
         .to.s = &c.q.server_key},
        {"key", 0, CLIOPT_STRING, "FILE", "our CURVE key pair (ftio keygen)", NULL,
         .to.s = &c.q.key_file},
        {"user", 'u', CLIOPT_CUSTOM, "U", "list, forget: only this user's applications (a name\n"
         "or a uid)", NULL, .set = cliopt_set_user, .ctx = &c.user},
        {"cmdline", 0, CLIOPT_STRING, "TEXT",
         "key: a whole command line, \"PROGRAM ARG ...\" (a Darshan\nlog's exe)", NULL,
         .to.s = &c.cmdline},
        {"json", 0, CLIOPT_FLAG, NULL, "print the answer as JSON", NULL, .to.b = &c.json},
        CLIOPT_HELP_VERSION("the version"),
        {0},
    };
    struct cliopt_parser p = {
        .prog = "ftio history", .version = FTIO_VERSION, .usage = usage_text, .about = about_text,
        .epilog = epilog_text, .opts = t,
    };
    int first = cliopt_defaults(&p) != 0 ? -2
              : cliopt_parse_command(&p, argc, argv, 1, -1, "list, show ID, forget ID|all or key");
    if (first >= 0 && c.q.key_file && !c.q.server_key)
        first = cliopt_error(&p, "--key needs --server-key");
    if (first < 0) {
        cliopt_free(&p);
        return CLIOPT_EXIT_STATUS(first);
    }
    const char *action = argv[first];
    char **args = argv + first + 1;
    int nargs = argc - first - 1, rc = 0;
    enum ftio_control_verb v;
    if (!strcmp(action, "key")) {
        rc = key_of(&c, args, nargs);
        cliopt_free(&p);
        return rc;
    } else if (!strcmp(action, "list") && nargs == 0) {
        v = FTIO_CTL_APPS;
    } else if (!strcmp(action, "show") && nargs == 1) {
        v = FTIO_CTL_APP;
    } else if (!strcmp(action, "forget") && nargs == 1) {
        v = FTIO_CTL_FORGET;
    } else {
        rc = -cliopt_error(&p, "'%s%s': expected list, show ID, forget ID|all or key (see ftio "
                           "history --help)", action, nargs ? " ..." : "");
        cliopt_free(&p);
        return rc;
    }
    int64_t id = -1;
    const char *arg = nargs ? args[0] : NULL;
    if (arg && !(v == FTIO_CTL_FORGET && !strcmp(arg, "all"))) {
        char *end;
        errno = 0;
        long long x = strtoll(arg, &end, 10);
        if (errno || *end || !*arg || x < 0) {
            rc = -cliopt_error(&p, "%s: not an application's id: '%s' (ftio history list shows them)",
                               action, arg);
            cliopt_free(&p);
            return rc;
        }
        id = x;
    }
    json_t *r = c.store ? ask_store(&c, v, id) : ask_ftiod(&c, v, arg ? arg : "");
    const char *err = json_string_value(json_object_get(r, "error"));
    if (!r || err) {
        fprintf(stderr, "ftio history: %s\n", err ? err : "out of memory");
        rc = 1;
    } else if (c.json) {
        char *s = json_dumps(r, JSON_COMPACT);
        printf("%s\n", s);
        free(s);
    } else if (v == FTIO_CTL_APPS) {
        print_apps(r);
    } else if (v == FTIO_CTL_APP) {
        print_app(r);
    } else {
        json_int_t n = json_integer_value(json_object_get(r, "forgotten"));
        printf("ftio history: forgot %" JSON_INTEGER_FORMAT " application%s\n", n, n == 1 ? "" : "s");
        rc = n > 0 || id < 0 ? 0 : 1;
        if (n == 0 && id >= 0)
            fprintf(stderr, "ftio history: no application %" PRId64 " of yours\n", id);
    }
    json_decref(r);
    cliopt_free(&p);
    return rc;
}
