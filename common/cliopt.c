/* SPDX-License-Identifier: BSD-3-Clause */
/* cliopt.c -- the table-driven option parser of every ftio command
 * (cliopt.h): getopt_long over a table, the checks of each value against its
 * type and bounds with one-line errors, --help, and ftiod's configuration
 * file, all from the same table so that an option behaves the same wherever
 * it is given; the defaults (def) and environment variables (env) of a
 * program's static template (cliopt_bind) go through the same checks.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cliopt.h"
#include "grow.h"

size_t cliopt_count(const struct cliopt *t)
{
    size_t n = 0;
    while (t[n].type != CLIOPT_END)
        n++;
    return n;
}

int cliopt_error(const struct cliopt_parser *p, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", p->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -2;
}

static bool takes_value(const struct cliopt *o)
{
    switch (o->type) {
    case CLIOPT_STRING: case CLIOPT_LIST: case CLIOPT_DOUBLE: case CLIOPT_INT:
    case CLIOPT_SIZE: case CLIOPT_I64: case CLIOPT_CHOICE:
        return true;
    case CLIOPT_CUSTOM:
        return o->arg != NULL;
    default:
        return false;
    }
}

static bool is_option(const struct cliopt *o)
{
    return o->type != CLIOPT_SECTION && o->type != CLIOPT_END;
}

static char *keep(struct cliopt_parser *p, char *s)
{
    if (!s)
        return NULL;
    if (FTIO_GROW(p->owned, p->capowned, p->nowned + 1) < 0) {
        free(s);
        return NULL;
    }
    return p->owned[p->nowned++] = s;
}

void cliopt_free(struct cliopt_parser *p)
{
    for (size_t i = 0; i < p->nowned; i++)
        free(p->owned[i]);
    free(p->owned);
    p->owned = NULL;
    p->nowned = p->capowned = 0;
}

/* "[0.001, 10000]", "(0, 1]", ">= 1" */
static void bounds_text(const struct cliopt *o, char *buf, size_t len)
{
    bool lo = o->flags & CLIOPT_MIN_OPEN, hi = o->flags & CLIOPT_MAX_OPEN;
    if (o->flags & CLIOPT_NOMAX)
        snprintf(buf, len, "%s %.15g", lo ? ">" : ">=", o->min);
    else
        snprintf(buf, len, "%s%.15g, %.15g%s", lo ? "(" : "[", o->min, o->max, hi ? ")" : "]");
}

static int set_number(const struct cliopt *o, const char *val, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    bool integer = o->type != CLIOPT_DOUBLE;
    char b[96];
    bounds_text(o, b, sizeof b);
    if (end == val || *end || errno == ERANGE || !isfinite(v) || (integer && v != floor(v))) {
        snprintf(err, errlen, "must be %s in %s, not '%s'", integer ? "an integer" : "a number",
                 b, val);
        return -1;
    }
    bool below = (o->flags & CLIOPT_MIN_OPEN) ? !(v > o->min) : !(v >= o->min);
    bool above = !(o->flags & CLIOPT_NOMAX) &&
                 ((o->flags & CLIOPT_MAX_OPEN) ? !(v < o->max) : !(v <= o->max));
    if (below || above) {
        if (o->flags & CLIOPT_NOMAX)
            snprintf(err, errlen, "must be %s, not %s", b, val);
        else
            snprintf(err, errlen, "must be in %s, not %s", b, val);
        return -1;
    }
    switch (o->type) {
    case CLIOPT_DOUBLE: *o->to.d = v; break;
    case CLIOPT_INT: *o->to.i = (int)v; break;
    case CLIOPT_SIZE: *o->to.z = (size_t)v; break;
    case CLIOPT_I64: *o->to.ll = (int64_t)v; break;
    default: break;
    }
    return 0;
}

static int set_choice(const struct cliopt *o, const char *val, char *err, size_t errlen)
{
    size_t n = 0;
    for (; o->choices[n]; n++)
        if (strcmp(val, o->choices[n]) == 0) {
            *o->to.i = o->values ? o->values[n] : (int)n;
            return 0;
        }
    size_t w = (size_t)snprintf(err, errlen, "must be ");
    for (size_t k = 0; k < n && w < errlen; k++)
        w += (size_t)snprintf(err + w, errlen - w, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
                              o->choices[k]);
    if (w < errlen)
        snprintf(err + w, errlen - w, ", not '%s'", val);
    return -1;
}

/* A flag's value in a file or a variable: 1 (yes), 0 (no), -1 (neither). */
static int flag_word(const char *v)
{
    static const char *yes[] = {"1", "yes", "true", "on"}, *no[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(v, yes[i]) == 0)
            return 1;
        if (strcmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* Store val; append: a LIST given again in the same source grows. */
static int apply(struct cliopt_parser *p, struct cliopt *o, const char *val, bool append,
                 char *err, size_t errlen)
{
    char msg[512] = "";
    int rc = 0;
    switch (o->type) {
    case CLIOPT_FLAG: *o->to.b = true; break;
    case CLIOPT_CLEAR: *o->to.b = false; break;
    case CLIOPT_COUNT: (*o->to.i)++; break;
    case CLIOPT_STRING:
        if (!*val) {
            snprintf(msg, sizeof msg, "needs a value");
            rc = -1;
        } else {
            *o->to.s = val;
        }
        break;
    case CLIOPT_LIST:
        if (!*val) {
            snprintf(msg, sizeof msg, "needs a value");
            rc = -1;
        } else if (append && *o->to.s) {
            size_t a = strlen(*o->to.s), b = strlen(val);
            char *j = keep(p, malloc(a + b + 2));
            if (!j) {
                snprintf(msg, sizeof msg, "out of memory");
                rc = -1;
            } else {
                memcpy(j, *o->to.s, a);
                j[a] = ',';
                memcpy(j + a + 1, val, b + 1);
                *o->to.s = j;
            }
        } else {
            *o->to.s = val;
        }
        break;
    case CLIOPT_DOUBLE: case CLIOPT_INT: case CLIOPT_SIZE: case CLIOPT_I64:
        rc = set_number(o, val, msg, sizeof msg);
        break;
    case CLIOPT_CHOICE:
        rc = set_choice(o, val, msg, sizeof msg);
        break;
    case CLIOPT_CUSTOM:
        rc = o->set(o, val, msg, sizeof msg);
        break;
    default:
        break;
    }
    if (rc != 0)
        snprintf(err, errlen, "--%s: %s", o->name, msg);
    return rc;
}

int cliopt_apply(struct cliopt_parser *p, struct cliopt *o, const char *val, char *err,
                 size_t errlen)
{
    return apply(p, o, val, false, err, errlen);
}

static const struct cliopt *find_in(const struct cliopt *t, const char *name)
{
    for (; t && t->type != CLIOPT_END; t++)
        if (is_option(t) && t->name && strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

struct cliopt *cliopt_find(struct cliopt_parser *p, const char *name)
{
    return (struct cliopt *)find_in(p->opts, name);
}

int cliopt_bind(struct cliopt *out, const struct cliopt *tmpl, void *base,
                const struct cliopt *shared)
{
    size_t n = 0;
    for (; tmpl[n].type != CLIOPT_END; n++) {
        const struct cliopt *t = &tmpl[n];
        struct cliopt *o = &out[n];
        *o = *t;
        if (t->type == CLIOPT_SHARED) {
            const struct cliopt *s = find_in(shared, t->name);
            if (!s) {
                fprintf(stderr, "cliopt: --%s is not a shared option\n", t->name);
                return -1;
            }
            *o = *s;
            o->help = t->help ? t->help : s->help;
            o->def = t->def ? t->def : s->def;
            o->env = t->env ? t->env : s->env;
            o->env_with = t->env ? t->env_with : s->env_with;
            o->flags |= t->flags;
        } else if (t->at) {
            void *dst = (char *)base + (t->at - 1);
            if (t->type == CLIOPT_CUSTOM)
                o->ctx = dst;
            else
                o->to.p = dst;
            o->at = 0;
        }
        o->seen = false;
    }
    out[n] = (struct cliopt){0};
    return 0;
}

int cliopt_defaults(struct cliopt_parser *p)
{
    for (struct cliopt *o = p->opts; o->type != CLIOPT_END; o++) {
        if (!o->def || !takes_value(o) || (o->flags & CLIOPT_DEF_DOC))
            continue;
        char err[640];
        if (apply(p, o, o->def, false, err, sizeof err) != 0) {
            cliopt_error(p, "the default of %s", err);
            return -1;
        }
    }
    return 0;
}

/* After the command line: the options not given take their env variable. */
static int apply_env(struct cliopt_parser *p)
{
    for (struct cliopt *o = p->opts; o->type != CLIOPT_END; o++) {
        if (!o->env || o->seen)
            continue;
        const struct cliopt *with = o->env_with ? find_in(p->opts, o->env_with) : NULL;
        if (o->env_with && (!with || !with->seen))
            continue;
        const char *v = getenv(o->env);
        if (!v || !*v)
            continue;
        char err[640] = "";
        int w = takes_value(o) ? 1 : flag_word(v);
        if (w < 0)
            snprintf(err, sizeof err, "--%s is a flag: yes or no", o->name);
        if (w < 0 || (w == 1 && apply(p, o, takes_value(o) ? v : NULL, false, err, sizeof err) != 0))
            return cliopt_error(p, "%s=%s: %s", o->env, v, err);
        o->seen = true;
    }
    return 0;
}

int cliopt_parse_argv(struct cliopt_parser *p, int argc, char **argv)
{
    size_t n = cliopt_count(p->opts);
    struct option *lo = calloc(n + 1, sizeof *lo);
    char *shorts = malloc(2 * n + 3);
    if (!lo || !shorts) {
        free(lo);
        free(shorts);
        return cliopt_error(p, "out of memory");
    }
    size_t nl = 0, ns = 0;
    shorts[ns++] = ':';   /* ':' for a missing value, '?' for an unknown option */
    for (size_t i = 0; i < n; i++) {
        struct cliopt *o = &p->opts[i];
        if (!is_option(o))
            continue;
        int val = o->key ? o->key : 256 + (int)i;
        if (o->name)
            lo[nl++] = (struct option){o->name, takes_value(o) ? required_argument : no_argument,
                                       NULL, val};
        if (o->key) {
            shorts[ns++] = (char)o->key;
            if (takes_value(o))
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = 0;
    int rc = 0;
    opterr = 0;
    optind = 0;   /* glibc: start afresh (a subcommand parses after its parent) */
    for (;;) {
        int c = p->long_only ? getopt_long_only(argc, argv, shorts, lo, NULL)
                             : getopt_long(argc, argv, shorts, lo, NULL);
        if (c == -1)
            break;
        if (c == '?' || c == ':') {
            const char *word = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "?";
            char sbuf[3] = {'-', (char)optopt, 0};
            /* A short option, possibly inside a cluster ("-xv"): name its letter. */
            if (c == '?' && optopt > 0 && optopt < 256 && !p->long_only)
                word = sbuf;
            const char *eq = strchr(word, '=');
            struct cliopt *flag = NULL;
            if (c == '?' && word[0] == '-' && eq) {
                char name[64];
                const char *nm = word + 1 + (word[1] == '-');
                snprintf(name, sizeof name, "%.*s", (int)(eq - nm), nm);
                flag = cliopt_find(p, name);
            }
            if (flag)
                rc = cliopt_error(p, "--%s takes no value (see %s --help)", flag->name, p->prog);
            else if (c == ':')
                rc = cliopt_error(p, "%s needs a value (see %s --help)", word, p->prog);
            else
                rc = cliopt_error(p, "unknown option '%s' (see %s --help)", word, p->prog);
            break;
        }
        struct cliopt *o = NULL;
        for (size_t i = 0; i < n && !o; i++)
            if (is_option(&p->opts[i]) &&
                (p->opts[i].key ? p->opts[i].key == c : 256 + (int)i == c))
                o = &p->opts[i];
        if (!o) {
            rc = cliopt_error(p, "internal error: option %d", c);
            break;
        }
        if (o->type == CLIOPT_HELP) {
            cliopt_help(p, stdout);
            rc = -1;
            break;
        }
        if (o->type == CLIOPT_VERSION) {
            printf("%s %s\n", p->prog, p->version ? p->version : "");
            rc = -1;
            break;
        }
        char err[640];
        if (apply(p, o, takes_value(o) ? optarg : NULL, o->seen, err, sizeof err) != 0) {
            rc = cliopt_error(p, "%s", err);
            break;
        }
        o->seen = true;
    }
    free(lo);
    free(shorts);
    if (rc == 0)
        rc = apply_env(p);
    return rc < 0 ? rc : optind;
}

int cliopt_parse_command(struct cliopt_parser *p, int argc, char **argv, int min, int max,
                         const char *what)
{
    int first = cliopt_parse_argv(p, argc, argv);
    if (first < 0 || (argc - first >= min && (max < 0 || argc - first <= max)))
        return first;
    if (!what && max == 0)
        return cliopt_error(p, "unexpected argument '%s' (see %s --help)", argv[first], p->prog);
    return cliopt_error(p, "%s (see %s --help)", what, p->prog);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = 0;
    return s;
}

int cliopt_parse_file(struct cliopt_parser *p, const char *path, bool missing_ok)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (missing_ok && errno == ENOENT)
            return 1;
        cliopt_error(p, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = cliopt_count(p->opts);
    bool *infile = calloc(n + 1, sizeof *infile);
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = infile ? 0 : -1;
    if (!infile)
        cliopt_error(p, "out of memory");
    ssize_t got;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if ((size_t)got != strlen(line)) {
            cliopt_error(p, "%s:%u: a NUL byte: not a text file", path, lineno);
            rc = -1;
            break;
        }
        char *s = trim(line);
        for (char *h = s; (h = strchr(h, '#')) != NULL; h++)
            if (h == s || h[-1] == ' ' || h[-1] == '\t') {
                *h = 0;
                break;
            }
        s = trim(s);
        if (!*s)
            continue;
        char *val = NULL, *eq = strchr(s, '=');
        if (eq) {
            *eq = 0;
            val = trim(eq + 1);
        } else {
            size_t k = strcspn(s, " \t");
            if (s[k]) {
                s[k] = 0;
                val = trim(s + k + 1);
            }
        }
        char *name = trim(s);
        while (*name == '-')
            name++;
        size_t vl = val ? strlen(val) : 0;
        if (vl >= 2 && ((val[0] == '"' && val[vl - 1] == '"') || (val[0] == '\'' && val[vl - 1] == '\''))) {
            val[vl - 1] = 0;
            val++;
        }
        struct cliopt *o = *name ? cliopt_find(p, name) : NULL;
        if (!o && p->ignore_unknown)
            continue;
        if (!o) {
            cliopt_error(p, "%s:%u: unknown option '%s'", path, lineno, name);
            rc = -1;
            break;
        }
        if (o->flags & CLIOPT_NOCONF || o->type == CLIOPT_HELP || o->type == CLIOPT_VERSION) {
            cliopt_error(p, "%s:%u: --%s is not for a configuration file", path, lineno, o->name);
            rc = -1;
            break;
        }
        size_t idx = (size_t)(o - p->opts);
        if (o->seen)   /* the command line wins */
            continue;
        if (!takes_value(o)) {
            int w = val ? flag_word(val) : 1;
            if (w < 0) {
                cliopt_error(p, "%s:%u: --%s is a flag: yes or no, not '%s'", path, lineno,
                             o->name, val);
                rc = -1;
                break;
            }
            if (w == 1) {
                char err[64];
                apply(p, o, NULL, false, err, sizeof err);
            }
            infile[idx] = true;
            continue;
        }
        if (!val || !*val) {
            cliopt_error(p, "%s:%u: --%s needs a value", path, lineno, o->name);
            rc = -1;
            break;
        }
        char *v = keep(p, strdup(val)), err[640];
        if (!v) {
            cliopt_error(p, "out of memory");
            rc = -1;
            break;
        }
        if (apply(p, o, v, infile[idx], err, sizeof err) != 0) {
            cliopt_error(p, "%s:%u: %s", path, lineno, err);
            rc = -1;
            break;
        }
        infile[idx] = true;
    }
    if (rc == 0 && ferror(f)) {
        cliopt_error(p, "%s: read error", path);
        rc = -1;
    }
    free(line);
    free(infile);
    fclose(f);
    return rc;
}

/* "  -f, --freq HZ" */
static void option_label(const struct cliopt_parser *p, const struct cliopt *o, char *buf,
                         size_t len)
{
    size_t w = 0;
    if (o->key && o->name)
        w = (size_t)snprintf(buf, len, "  -%c, ", o->key);
    else if (o->key)
        w = (size_t)snprintf(buf, len, "  -%c", o->key);
    else
        w = (size_t)snprintf(buf, len, "      ");
    if (o->name && w < len)
        w += (size_t)snprintf(buf + w, len - w, "%s%s", p->long_only && strlen(o->name) <= 2 ? "-" : "--",
                              o->name);
    if (o->arg && w < len)
        snprintf(buf + w, len - w, " %s", o->arg);
}

#define HELP_COL 26
#define WRAP_COL 78   /* the longest line of the generated prose */

/* "Environment: FTIO_DAEMON_CONFIG, the default --config; ..." from the env
 * column, wrapped at WRAP_COL; false when no option has a variable. */
static bool env_help(const struct cliopt_parser *p, FILE *out)
{
    char text[2048];
    size_t w = 0;
    for (const struct cliopt *o = p->opts; o->type != CLIOPT_END; o++)
        if (o->env && w < sizeof text)
            w += (size_t)snprintf(text + w, sizeof text - w, "%s%s, the default --%s%s%s",
                                  w ? "; " : "Environment: ", o->env, o->name,
                                  o->env_with ? " of --" : "", o->env_with ? o->env_with : "");
    if (!w)
        return false;
    fputc('\n', out);
    int col = 0;
    for (char *save = NULL, *word = strtok_r(text, " ", &save); word;
         word = strtok_r(NULL, " ", &save)) {
        int len = (int)strlen(word);
        if (col && col + 1 + len > WRAP_COL) {
            fputc('\n', out);
            col = 0;
        }
        col += fprintf(out, "%s%s", col ? " " : "", word);
    }
    fputs(".\n", out);
    return true;
}

void cliopt_help(const struct cliopt_parser *p, FILE *out)
{
    if (p->usage)
        fputs(p->usage, out);
    if (p->about)
        fprintf(out, "%s", p->about);
    if (p->opts[0].type != CLIOPT_SECTION)
        fputc('\n', out);
    for (const struct cliopt *o = p->opts; o->type != CLIOPT_END; o++) {
        if (o->type == CLIOPT_SECTION) {
            fprintf(out, "\n%s\n", o->help);
            continue;
        }
        char label[128];
        option_label(p, o, label, sizeof label);
        fputs(label, out);
        int col = (int)strlen(label);
        if (col >= HELP_COL - 1) {
            fputc('\n', out);
            col = 0;
        }
        fprintf(out, "%*s", HELP_COL - col, "");
        int last = HELP_COL;   /* width of the current line */
        for (const char *h = o->help ? o->help : ""; *h; h++) {
            fputc(*h, out);
            last++;
            if (*h == '\n' && h[1]) {
                fprintf(out, "%*s", HELP_COL, "");
                last = HELP_COL;
            }
        }
        if (o->def && last + (int)strlen(o->def) + 11 > 80)
            fprintf(out, "\n%*s(default %s)", HELP_COL, "", o->def);
        else if (o->def)
            fprintf(out, " (default %s)", o->def);
        fputc('\n', out);
    }
    bool env = env_help(p, out);
    if (p->epilog)
        fprintf(out, "%s%s", env ? "" : "\n", p->epilog);
}

void cliopt_config_template(const struct cliopt_parser *p, FILE *out)
{
    for (const struct cliopt *o = p->opts; o->type != CLIOPT_END; o++) {
        if (o->type == CLIOPT_SECTION) {
            fprintf(out, "\n# ---- %s\n", o->help);
            continue;
        }
        if ((o->flags & CLIOPT_NOCONF) || o->type == CLIOPT_HELP || o->type == CLIOPT_VERSION)
            continue;
        fputs("\n# ", out);
        for (const char *h = o->help ? o->help : ""; *h; h++) {
            fputc(*h, out);
            if (*h == '\n' && h[1])
                fputs("# ", out);
        }
        fputc('\n', out);
        if (!takes_value(o))
            fprintf(out, "#%s\n", o->name);
        else if (o->def)
            fprintf(out, "#%s = %s\n", o->name, o->def);
        else   /* no default: unset unless given */
            fprintf(out, "#%s =\n", o->name);
    }
}

int cliopt_each(const char *list, int (*fn)(const char *item, void *ctx), void *ctx)
{
    while (list && *list) {
        size_t n = strcspn(list, ",");
        if (n > 0) {
            char *item = strndup(list, n);
            if (!item)
                return -1;
            int rc = fn(item, ctx);
            free(item);
            if (rc != 0)
                return rc;
        }
        list += n + (list[n] == ',');
    }
    return 0;
}

int64_t cliopt_user_uid(const char *user)
{
    struct passwd *pw = getpwnam(user);
    if (pw)
        return (int64_t)pw->pw_uid;
    char *end;
    errno = 0;
    long long v = strtoll(user, &end, 10);
    return !errno && end != user && !*end && v >= 0 && v < 4294967295LL ? (int64_t)v : -1;
}

int cliopt_set_user(const struct cliopt *o, const char *val, char *err, size_t errlen)
{
    int64_t uid = cliopt_user_uid(val);
    if (uid < 0) {
        snprintf(err, errlen, "no user '%s' (a name or a uid)", val);
        return -1;
    }
    *(int64_t *)o->ctx = uid;
    return 0;
}
