/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cliopt.c -- Check unit tests of the option tables (common/cliopt.c)
 * and the shared analysis options (predictor/options/analysis_options.c): every
 * spelling, bounds with open and closed ends, integers, choices, lists,
 * and the configuration file with hostile lines (NUL bytes, no newline at
 * the end, quotes, '#' inside values, a directory instead of a file), and
 * a static template bound to a struct (cliopt_bind) with its defaults
 * checked against their own bounds (cliopt_defaults) and its environment
 * variables (the command line wins, then the variable, then the file).
 * The end-to-end counterpart is tests/cli/options.sh. */
#include <check.h>
#include "../check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis_options.h"
#include "cliopt.h"

struct vals {
    double d;
    int i, count;
    size_t z;
    bool flag;
    const char *s, *list;
};

#define TABLE(v)                                                                              \
    struct cliopt t[] = {                                                                     \
        {"dbl", 'd', CLIOPT_DOUBLE, "X", "a number", "1", .to.d = &(v).d, .min = 0, .max = 1, \
         .flags = CLIOPT_MIN_OPEN},                                                           \
        {"int", 'i', CLIOPT_INT, "N", "an integer", NULL, .to.i = &(v).i, .min = -5, .max = 5}, \
        {"size", 0, CLIOPT_SIZE, "N", "a size", NULL, .to.z = &(v).z, .min = 1,               \
         .flags = CLIOPT_NOMAX},                                                              \
        {"flag", 0, CLIOPT_FLAG, NULL, "a flag", NULL, .to.b = &(v).flag},                    \
        {"verbose", 'v', CLIOPT_COUNT, NULL, "more", NULL, .to.i = &(v).count},               \
        {"str", 's', CLIOPT_STRING, "S", "a string", NULL, .to.s = &(v).s},                   \
        {"list", 'l', CLIOPT_LIST, "L", "a list", NULL, .to.s = &(v).list},                   \
        {"cli-only", 0, CLIOPT_FLAG, NULL, "not in files", NULL, .to.b = &(v).flag,           \
         .flags = CLIOPT_NOCONF},                                                             \
        {"help", 'h', CLIOPT_HELP, NULL, "help", NULL, .to.p = NULL},                         \
        {0},                                                                                  \
    };                                                                                        \
    struct cliopt_parser p = {.prog = "t", .opts = t}

/* Parse a command line given as one string (split at blanks). */
static int parse(struct cliopt_parser *p, const char *line)
{
    static char buf[512];
    static char *argv[32];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    argv[argc++] = "t";
    for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    int rc = cliopt_parse_argv(p, argc, argv);
    return rc;
}

START_TEST(spellings)
{
    static const char *forms[] = {"-d0.5", "-d 0.5", "--dbl=0.5", "--dbl 0.5", "--db 0.5"};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        struct vals v = {0};
        TABLE(v);
        ck_assert_int_eq(parse(&p, forms[k]), (int)(strchr(forms[k], ' ') ? 3 : 2));
        ck_assert_msg(v.d == 0.5, "%s -> %g", forms[k], v.d);
        cliopt_free(&p);
    }
}
END_TEST

START_TEST(bounds)
{
    struct vals v = {0};
    TABLE(v);
    freopen("/dev/null", "w", stderr);
    ck_assert_int_eq(parse(&p, "--dbl 0"), -2);      /* (0, 1] */
    ck_assert_int_eq(parse(&p, "--dbl 1"), 3);
    ck_assert_int_eq(parse(&p, "--dbl 1.0000001"), -2);
    ck_assert_int_eq(parse(&p, "--dbl nan"), -2);
    ck_assert_int_eq(parse(&p, "--dbl inf"), -2);
    ck_assert_int_eq(parse(&p, "--dbl 0.5x"), -2);
    ck_assert_int_eq(parse(&p, "--dbl"), -2);
    ck_assert_int_eq(parse(&p, "--int -5"), 3);
    ck_assert_int_eq(v.i, -5);
    ck_assert_int_eq(parse(&p, "--int 2.5"), -2);
    ck_assert_int_eq(parse(&p, "--int 6"), -2);
    ck_assert_int_eq(parse(&p, "--int 1e300"), -2);
    ck_assert_int_eq(parse(&p, "--size 1e12"), 3);
    ck_assert(v.z == (size_t)1e12);
    ck_assert_int_eq(parse(&p, "--size 0"), -2);
    ck_assert_int_eq(parse(&p, "--flag=1"), -2);
    ck_assert_int_eq(parse(&p, "--nope"), -2);
    ck_assert_int_eq(parse(&p, "-x"), -2);
    ck_assert_int_eq(parse(&p, "--str="), -2);
    cliopt_free(&p);
}
END_TEST

START_TEST(lists_counts_operands)
{
    struct vals v = {0};
    TABLE(v);
    /* 10 words; getopt moves the operands a, b and -d (after --) to the end */
    ck_assert_int_eq(parse(&p, "a -l x,y --list z -vv b -- -d"), 7);
    ck_assert_str_eq(v.list, "x,y,z");
    ck_assert_int_eq(v.count, 2);
    cliopt_free(&p);
}
END_TEST

static int count_items(const char *item, void *ctx)
{
    (*(int *)ctx)++;
    return strcmp(item, "stop") == 0 ? 7 : 0;
}

START_TEST(each)
{
    int n = 0;
    ck_assert_int_eq(cliopt_each(",x,,y,", count_items, &n), 0);
    ck_assert_int_eq(n, 2);
    n = 0;
    ck_assert_int_eq(cliopt_each("a,stop,b", count_items, &n), 7);
    ck_assert_int_eq(n, 2);
}
END_TEST

static char *write_file(const void *data, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_cliopt.XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

START_TEST(config_file)
{
    struct vals v = {0};
    TABLE(v);
    static const char text[] = "# comment\n"
                               "  dbl = 0.25   # trailing comment\n"
                               "--str \"ipc:///tmp/a#b\"\n"
                               "list = a\n"
                               "list = b\n"
                               "flag\n"
                               "verbose = yes\n"
                               "int = 3";   /* no newline at the end */
    char *path = write_file(text, sizeof text - 1);
    ck_assert_int_eq(parse(&p, "--int 1"), 3);   /* the command line wins */
    ck_assert_int_eq(cliopt_parse_file(&p, path, false), 0);
    ck_assert(v.d == 0.25);
    ck_assert_str_eq(v.s, "ipc:///tmp/a#b");
    ck_assert_str_eq(v.list, "a,b");
    ck_assert(v.flag);
    ck_assert_int_eq(v.count, 1);
    ck_assert_int_eq(v.i, 1);
    unlink(path);
    cliopt_free(&p);
}
END_TEST

START_TEST(config_errors)
{
    freopen("/dev/null", "w", stderr);
    static const char *bad[] = {
        "dbl = 2\n", "nope = 1\n", "cli-only\n", "help\n", "flag = maybe\n", "str =\n", "=\n",
        "int = 1\0garbage\nint = 9\n",
    };
    static const size_t len[] = {8, 9, 9, 5, 13, 6, 2, 24};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        struct vals v = {0};
        TABLE(v);
        char *path = write_file(bad[k], len[k]);
        ck_assert_msg(cliopt_parse_file(&p, path, false) == -1, "accepted: %s", bad[k]);
        unlink(path);
        cliopt_free(&p);
    }
    struct vals v = {0};
    TABLE(v);
    ck_assert_int_eq(cliopt_parse_file(&p, "/nonexistent/ftiod.conf", true), 1);
    ck_assert_int_eq(cliopt_parse_file(&p, "/nonexistent/ftiod.conf", false), -1);
    ck_assert_int_eq(cliopt_parse_file(&p, "/tmp", false), -1);   /* a directory */
    cliopt_free(&p);
}
END_TEST

START_TEST(analysis_shared)
{
    struct ftio_analysis_args a;
    ftio_analysis_args_default(&a);
    struct cliopt t[FTIO_AOPT_ENTRIES + 1];
    size_t n = ftio_analysis_cliopts(&a, ~0u, t);
    ck_assert_uint_eq(n, FTIO_AOPT_ENTRIES);
    t[n] = (struct cliopt){0};
    struct cliopt_parser p = {.prog = "t", .opts = t, .long_only = true};
    char err[256];
    ck_assert_int_eq(parse(&p, "-f20 -ts 1 -te 5 --compat --window adaptive"), 9);
    ck_assert_int_eq(ftio_analysis_args_finish(&a, true, err, sizeof err), 0);
    ck_assert(a.opts.fs == 20 && a.opts.t_start == 1 && a.opts.t_end == 5);
    ck_assert_int_eq(a.opts.detector, FTIO_DETECTOR_COMPAT);
    ck_assert_int_eq(a.opts.sampling, FTIO_SAMPLING_HOLD);   /* offline --compat */
    ck_assert(a.window_set && a.window == 0);
    ftio_analysis_args_default(&a);
    ck_assert_int_eq(parse(&p, "--compat --detector robust --sampling average"), 6);
    ck_assert_int_eq(ftio_analysis_args_finish(&a, false, err, sizeof err), 0);
    ck_assert_int_eq(a.opts.detector, FTIO_DETECTOR_ROBUST);
    ck_assert_int_eq(a.opts.sampling, FTIO_SAMPLING_AVERAGE);
    ftio_analysis_args_default(&a);
    ck_assert_int_eq(parse(&p, "-ts 5 -te 1"), 5);
    ck_assert_int_eq(ftio_analysis_args_finish(&a, true, err, sizeof err), -1);
    cliopt_free(&p);
}
END_TEST

/* A program's static template (ftiod's ftiod_opts[] in miniature):
 * destinations as offsets, a shared entry taken by name with its own help
 * and default, environment variables. */
struct settings {
    double d;
    size_t z;
    const char *s;
    bool on;
    struct ftio_analysis_args a;
};
#define AT(m) CLIOPT_AT(struct settings, m)
static const struct cliopt tmpl[] = {
    {"dbl", 'd', CLIOPT_DOUBLE, "X", "a number", "0.5", AT(d), .min = 0, .max = 1},
    {"size", 0, CLIOPT_SIZE, "N", "a size", "7", AT(z), .min = 1, .max = 10},
    {"str", 0, CLIOPT_STRING, "S", "a string", "dflt", AT(s), .env = "TEST_CLIOPT_STR",
     .env_with = "on"},
    {"on", 0, CLIOPT_FLAG, NULL, "a flag", NULL, AT(on)},
    {"max-memory", .type = CLIOPT_SHARED, .help = "our words", .def = "16"},
    {"detector", .type = CLIOPT_SHARED, .flags = CLIOPT_DEF_DOC},
    {"tol", .type = CLIOPT_SHARED, .env = "TEST_CLIOPT_TOL"},
    CLIOPT_HELP_VERSION("the version"),
    {0},
};
#undef AT
#define NTMPL (sizeof tmpl / sizeof tmpl[0])

/* Bind tmpl to v (its analysis args defaulted) and apply the defaults. */
static int bind_defaults(struct settings *v, struct cliopt *t, struct cliopt *shared,
                         struct cliopt_parser *p)
{
    memset(v, 0, sizeof *v);
    ftio_analysis_args_default(&v->a);
    shared[ftio_analysis_cliopts(&v->a, ~0u, shared)] = (struct cliopt){0};
    *p = (struct cliopt_parser){.prog = "t", .opts = t};
    if (cliopt_bind(t, tmpl, v, shared) != 0)
        return -1;
    return cliopt_defaults(p);
}

START_TEST(template_defaults)
{
    struct settings v;
    struct cliopt t[NTMPL], shared[FTIO_AOPT_ENTRIES + 1];
    struct cliopt_parser p;
    unsetenv("TEST_CLIOPT_STR");
    unsetenv("TEST_CLIOPT_TOL");
    ck_assert_int_eq(bind_defaults(&v, t, shared, &p), 0);
    ck_assert(v.d == 0.5 && v.z == 7 && !v.on);
    ck_assert_str_eq(v.s, "dflt");
    ck_assert(v.a.max_memory_mb == 16);              /* the template's default */
    ck_assert_int_eq(v.a.detector, -1);               /* documented, not applied */
    ck_assert_str_eq(cliopt_find(&p, "max-memory")->help, "our words");
    ck_assert_str_eq(cliopt_find(&p, "tol")->def, "0.8");   /* the shared entry's */
    for (size_t k = 0; k + 1 < NTMPL; k++)
        ck_assert_msg(!t[k].seen, "%s seen after the defaults", t[k].name);
    ck_assert_int_eq(parse(&p, "-d 0.25 --size 3 --max-memory 32 --tol 0.5"), 9);
    ck_assert(v.d == 0.25 && v.z == 3 && v.a.max_memory_mb == 32 && v.a.opts.tol == 0.5);
    cliopt_free(&p);
}
END_TEST

/* A default out of its own bounds is refused, not taken. */
START_TEST(template_bad_default)
{
    struct settings v;
    struct cliopt t[NTMPL], shared[FTIO_AOPT_ENTRIES + 1];
    struct cliopt_parser p;
    ck_assert_int_eq(bind_defaults(&v, t, shared, &p), 0);
    freopen("/dev/null", "w", stderr);
    static const char *const bad[][2] = {{"size", "11"}, {"size", "0"}, {"dbl", "x"},
                                         {"max-memory", "0"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(bind_defaults(&v, t, shared, &p), 0);
        cliopt_find(&p, bad[k][0])->def = bad[k][1];
        ck_assert_msg(cliopt_defaults(&p) == -1, "--%s default %s taken", bad[k][0], bad[k][1]);
    }
    /* A shared name that is not shared: an error, not a hole in the table. */
    struct cliopt one[] = {{"no-such", .type = CLIOPT_SHARED}, {0}}, out[2];
    ck_assert_int_eq(cliopt_bind(out, one, &v, shared), -1);
}
END_TEST

START_TEST(template_env)
{
    struct settings v;
    struct cliopt t[NTMPL], shared[FTIO_AOPT_ENTRIES + 1];
    struct cliopt_parser p;
    setenv("TEST_CLIOPT_STR", "from-env", 1);
    setenv("TEST_CLIOPT_TOL", "0.25", 1);
    ck_assert_int_eq(bind_defaults(&v, t, shared, &p), 0);
    ck_assert_int_eq(parse(&p, ""), 1);
    ck_assert(v.a.opts.tol == 0.25 && cliopt_find(&p, "tol")->seen);
    ck_assert_str_eq(v.s, "dflt");                   /* only with --on */
    ck_assert_int_eq(bind_defaults(&v, t, shared, &p), 0);
    ck_assert_int_eq(parse(&p, "--on --tol 0.5"), 4);
    ck_assert_str_eq(v.s, "from-env");
    ck_assert(v.a.opts.tol == 0.5);                  /* the command line wins */
    /* The variable wins over the configuration file (it counts as given). */
    static const char text[] = "str = from-file\ntol = 0.75\n";
    char *path = write_file(text, sizeof text - 1);
    ck_assert_int_eq(bind_defaults(&v, t, shared, &p), 0);
    ck_assert_int_eq(parse(&p, "--on"), 2);
    ck_assert_int_eq(cliopt_parse_file(&p, path, false), 0);
    ck_assert_str_eq(v.s, "from-env");
    ck_assert(v.a.opts.tol == 0.25);
    unlink(path);
    /* A value out of bounds from the environment: a usage error. */
    freopen("/dev/null", "w", stderr);
    setenv("TEST_CLIOPT_TOL", "2", 1);
    ck_assert_int_eq(bind_defaults(&v, t, shared, &p), 0);
    ck_assert_int_eq(parse(&p, ""), -2);
    /* --help names each variable and the option it supplies. */
    char *text_out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text_out, &len);
    cliopt_help(&p, f);
    fclose(f);
    ck_assert_msg(strstr(text_out, "\nEnvironment: TEST_CLIOPT_STR, the default --str of --on; "
                                   "TEST_CLIOPT_TOL, the\ndefault --tol.\n"), "%s", text_out);
    free(text_out);
    unsetenv("TEST_CLIOPT_STR");
    unsetenv("TEST_CLIOPT_TOL");
    cliopt_free(&p);
}
END_TEST

Suite *ftio_test_suite(void)
{
    return FTIO_SUITE("cliopt", "cliopt", NULL,
                      spellings, bounds, lists_counts_operands, each, config_file, config_errors,
                      analysis_shared, template_defaults, template_bad_default, template_env);
}
