/* SPDX-License-Identifier: BSD-3-Clause */
/* cliopt.h -- table-driven options for every command of ftio (ftio, ftio sub,
 * ftio replay, ftio end, ftiod).
 *
 * Each command describes its options once, in an array of struct cliopt
 * (name, short letter, type, bounds, default, help); the same table drives
 * the command-line parsing (getopt_long, or getopt_long_only where
 * single-dash long options like `-ts` must work), the checks and their
 * one-line errors, `--help`, and ftiod's configuration file
 * (`option = value` lines, see cliopt_parse_file).  A value out of bounds is
 * one line, `PROG: --tol: must be in (0, 1], not 1.5`, and exit status 2.
 *
 * The analysis options shared by several commands (--freq, --tol, ...) come
 * from predictor/analysis_options.h, which appends its entries to a table.
 *
 * A program with many settings (ftiod) writes its table once, static and
 * const, in the manner of Redis' static_configs[]: each entry names its
 * destination as an offset into one struct (CLIOPT_AT), takes a shared entry
 * by name (CLIOPT_SHARED), may name the environment variable that supplies
 * its default (env), and its def is the default itself: cliopt_defaults()
 * applies it through the same checks as the command line, so the table is
 * the one home of each default.  cliopt_bind() makes the working copy.
 */
#ifndef FTIO_CLIOPT_H
#define FTIO_CLIOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cliopt_type {
    CLIOPT_END = 0,    /* terminates a table */
    CLIOPT_SECTION,    /* a heading in --help, no option */
    CLIOPT_FLAG,       /* bool *b = true */
    CLIOPT_CLEAR,      /* bool *b = false (--no-psd) */
    CLIOPT_COUNT,      /* int *i += 1 (-v -v) */
    CLIOPT_STRING,     /* const char **s; the last one given wins */
    CLIOPT_LIST,       /* const char **s; repeated or comma-separated values, joined by ',' */
    CLIOPT_DOUBLE,     /* double *d within [min, max] */
    CLIOPT_INT,        /* int *i, an integer within [min, max] */
    CLIOPT_SIZE,       /* size_t *z, an integer within [min, max] */
    CLIOPT_I64,        /* int64_t *ll, an integer within [min, max] */
    CLIOPT_CHOICE,     /* int *i = values[k] where choices[k] is the value given */
    CLIOPT_CUSTOM,     /* set() parses and stores */
    CLIOPT_HELP,       /* prints the help, exit 0 */
    CLIOPT_VERSION,    /* prints "PROG VERSION", exit 0 */
    CLIOPT_SHARED,     /* in a template only: the shared entry of this name
                          (cliopt_bind), with this entry's help, def and env
                          where given, and its flags added */
};

/* flags */
#define CLIOPT_MIN_OPEN 1u   /* min itself is refused: (min, ... */
#define CLIOPT_MAX_OPEN 2u   /* max itself is refused: ..., max) */
#define CLIOPT_NOCONF   4u   /* not accepted in a configuration file */
#define CLIOPT_NOMAX    8u   /* no upper bound (max ignored) */
#define CLIOPT_DEF_DOC  16u  /* def only describes a default that other options
                                decide (--detector under --compat):
                                cliopt_defaults() leaves the destination alone */

struct cliopt;
/* Parse val into the option's destination; on error write the reason
 * (without the option's name) into err and return -1. */
typedef int (*cliopt_setter)(const struct cliopt *o, const char *val, char *err, size_t errlen);

struct cliopt {
    const char *name;        /* long name without dashes ("freq") */
    int key;                 /* short letter ('f') or 0 */
    enum cliopt_type type;
    const char *arg;         /* the value's name in --help ("HZ"); NULL for flags */
    const char *help;        /* one or more lines ('\n' continues, indented) */
    const char *def;         /* the default as shown in --help and the config
                                template; the value cliopt_defaults() applies */
    union {
        bool *b; int *i; size_t *z; int64_t *ll; double *d; const char **s; void *p;
    } to;
    double min, max;
    unsigned flags;
    const char *const *choices;   /* CHOICE: NULL-terminated names */
    const int *values;            /* CHOICE: the value of each name (NULL: its index) */
    cliopt_setter set;            /* CUSTOM */
    void *ctx;                    /* for set() */
    const char *env;              /* the variable that supplies the default when the
                                     option is not given (cliopt_parse_argv; --help
                                     lists it) */
    const char *env_with;         /* env applies only with this flag option given */
    size_t at;                    /* template: CLIOPT_AT, 1 + the destination's offset
                                     in the bound struct (0: .to is a pointer) */
    bool seen;                    /* set by the parser: the option was given (or
                                     its env variable) */
};

/* A default that is a numeric macro elsewhere (FTIO_FS_DEFAULT, a library's
 * own default) written into a table's def text: CLIOPT_NUM(FTIO_FS_DEFAULT)
 * is "10", so the number has one home and the table shows it. */
#define CLIOPT_NUM(x) CLIOPT_NUM_(x)
#define CLIOPT_NUM_(x) #x

/* The last entries of every command's table: -h, --help and -V, --version
 * (version_help: its line in --help). */
#define CLIOPT_HELP_VERSION(version_help)                                   \
    {"help", 'h', CLIOPT_HELP, NULL, "this help", NULL, .to.p = NULL},     \
    {"version", 'V', CLIOPT_VERSION, NULL, version_help, NULL, .to.p = NULL}

/* A template entry's destination: member of the struct cliopt_bind() binds
 * (for a CLIOPT_CUSTOM entry, its set() gets the member as ctx). */
#define CLIOPT_AT(type, member) .at = offsetof(type, member) + 1

/* One command's parser: its name for messages ("ftio sub"), its tables. */
struct cliopt_parser {
    const char *prog;        /* "ftio", "ftio sub", "ftiod" */
    const char *version;     /* for CLIOPT_VERSION */
    const char *usage;       /* synopsis lines, printed first by --help */
    const char *about;       /* what the command does, after the synopsis */
    const char *epilog;      /* after the options (environment, exit status) */
    struct cliopt *opts;     /* terminated by CLIOPT_END */
    bool long_only;          /* getopt_long_only: -ts, -te */
    bool ignore_unknown;     /* files: skip options not in the table (a client
                                reading the daemon's file for a few of them) */
    /* strings the parser made (config values, joined lists): freed by cliopt_free */
    char **owned;
    size_t nowned, capowned;
};

/* A working table from a template (static const, CLIOPT_AT destinations):
 * out (room for cliopt_count(tmpl) + 1 entries) gets every entry with its
 * destination in base, and each CLIOPT_SHARED entry replaced by the entry of
 * that name in shared (a table, e.g. ftio_analysis_cliopts()'s, terminated
 * by CLIOPT_END; NULL for none).  0, or -1 when a name is not in shared (a
 * programming error, said on stderr). */
int  cliopt_bind(struct cliopt *out, const struct cliopt *tmpl, void *base,
                 const struct cliopt *shared);

/* Apply every option's def (options that take a value, but CLIOPT_DEF_DOC)
 * to its destination through the command line's checks, so a default out of
 * its own bounds is refused.  The options stay unseen.  0, or -1 after one
 * line "PROG: the default of --NAME: ..." on stderr. */
int  cliopt_defaults(struct cliopt_parser *p);

/* Parse argv (argv[0] is the command's name and skipped), then the env
 * variables of the options not given.  Returns the index
 * of the first operand (getopt permutes the operands to the end), -1 after
 * --help/--version (exit 0), -2 on a usage error (one line on stderr: exit 2). */
int  cliopt_parse_argv(struct cliopt_parser *p, int argc, char **argv);

/* cliopt_parse_argv, then the number of operands, which must be in [min,
 * max] (max < 0: no bound); else one line "PROG: WHAT (see PROG --help)", or
 * with max 0 and WHAT NULL "PROG: unexpected argument 'X' (see PROG --help)",
 * and -2.  Returns what cliopt_parse_argv returns. */
int  cliopt_parse_command(struct cliopt_parser *p, int argc, char **argv, int min, int max,
                          const char *what);
/* A command's exit status after a parse returned rc < 0: 0 after --help or
 * --version (-1), 2 after a usage error (-2). */
#define CLIOPT_EXIT_STATUS(rc) ((rc) == -1 ? 0 : 2)

/* Apply `option = value` lines of FILE (# comments, a bare `option` for a
 * flag), skipping options already seen (the command line wins).  0, or -1
 * after one line "PROG: FILE:LINE: ..." on stderr; missing_ok: a file that
 * does not exist is no error (returns 1). */
int  cliopt_parse_file(struct cliopt_parser *p, const char *path, bool missing_ok);

/* Apply one option by its long name (a config line, an environment
 * default).  0, or -1 with the reason in err ("--tol: must be in ..."). */
int  cliopt_apply(struct cliopt_parser *p, struct cliopt *o, const char *val, char *err,
                  size_t errlen);
struct cliopt *cliopt_find(struct cliopt_parser *p, const char *name);

/* --help: usage, about, every option of the table, the variables of their
 * env column ("Environment: FTIO_STATUS, the default --status-endpoint of
 * --status."), epilog. */
void cliopt_help(const struct cliopt_parser *p, FILE *out);
/* Every option of the table, commented out with its default, as a
 * configuration file (for packaging/ftiod.conf). */
void cliopt_config_template(const struct cliopt_parser *p, FILE *out);
/* One line "PROG: " + message on stderr; returns -2 (usage error), so that
 * `return -cliopt_error(...)` is exit status 2. */
int  cliopt_error(const struct cliopt_parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cliopt_free(struct cliopt_parser *p);

/* Number of entries of a table (up to its CLIOPT_END). */
size_t cliopt_count(const struct cliopt *t);

/* A value list (CLIOPT_LIST) split at commas: calls fn for each non-empty
 * item; stops and returns fn's value when it is not 0. */
int  cliopt_each(const char *list, int (*fn)(const char *item, void *ctx), void *ctx);

/* A user: a name of the passwd database or a numeric uid; -1 when neither. */
int64_t cliopt_user_uid(const char *user);
/* The CLIOPT_CUSTOM setter of a user option (--user U): the uid into the
 * int64_t at o->ctx. */
int  cliopt_set_user(const struct cliopt *o, const char *val, char *err, size_t errlen);

#endif
