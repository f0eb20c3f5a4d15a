/* SPDX-License-Identifier: BSD-3-Clause */
/* keygen.c -- `ftio keygen [--owner USER[:GROUP]] NAME`: a CURVE key pair for
 * ftiod (--curve-secret) or for a subscriber or admin (--key; its NAME.pub
 * goes into the daemon's --curve-clients directory).  Writes NAME.key (mode
 * 0600, never over an existing file) and NAME.pub.  The format is in
 * common/curve.h.
 *
 * --owner gives both files to the account that will read them: root makes
 * ftiod's key in /etc/ftio, the unit runs ftiod as the user `ftio`, and a
 * 0600 file of root's is unreadable there (ftiod also warns about a secret
 * key readable by others, so the mode stays 0600 and the owner changes).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cliopt.h"
#include "commands.h"
#include "curve.h"

/* "USER" or "USER:GROUP" (names or numbers) -> ids; USER alone takes the
 * user's primary group.  0, or -1 with a reason. */
static int parse_owner(const char *spec, uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
    char user[256];
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n == 0 || n >= sizeof user) {
        snprintf(err, errlen, "--owner: expected USER or USER:GROUP, not '%s'", spec);
        return -1;
    }
    memcpy(user, spec, n);
    user[n] = 0;
    struct passwd *pw = getpwnam(user);
    char *end;
    if (pw) {
        *uid = pw->pw_uid;
        *gid = pw->pw_gid;
    } else {
        unsigned long v = strtoul(user, &end, 10);
        if (*end || user[0] < '0' || user[0] > '9') {
            snprintf(err, errlen, "--owner: no user '%s' on this machine%s", user,
                     strcmp(user, "ftio") == 0 ? " (systemd-sysusers creates it, README \"Deploy\")" : "");
            return -1;
        }
        *uid = (uid_t)v;
        *gid = (gid_t)-1;
    }
    if (colon) {
        const char *g = colon + 1;
        struct group *gr = *g ? getgrnam(g) : NULL;
        if (gr) {
            *gid = gr->gr_gid;
        } else {
            unsigned long v = strtoul(g, &end, 10);
            if (!*g || *end || g[0] < '0' || g[0] > '9') {
                snprintf(err, errlen, "--owner: no group '%s' on this machine", g);
                return -1;
            }
            *gid = (gid_t)v;
        }
    }
    return 0;
}

/* Gives NAME.key and NAME.pub (just created by us) to uid:gid; removes both
 * when it cannot, so a failed keygen leaves nothing behind. */
static int give_away(const char *name, uid_t uid, gid_t gid, char *err, size_t errlen)
{
    static const char *const ext[2] = {".key", ".pub"};
    char path[4096];
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        snprintf(path, sizeof path, "%s%s", name, ext[i]);
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fchown(fd, uid, gid) != 0) {
            snprintf(err, errlen, "%.200s: cannot give it to --owner: %s%s", path, strerror(errno),
                     errno == EPERM ? " (only root may)" : "");
            rc = -1;
        }
        if (fd >= 0)
            close(fd);
    }
    if (rc != 0)
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s%s", name, ext[i]);
            unlink(path);
        }
    return rc;
}

static const char usage_text[] = "usage: ftio keygen [--owner USER[:GROUP]] NAME\n";
static const char about_text[] =
    "Writes a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub (public).\n"
    "ftiod --curve-secret NAME.key; subscribers --key NAME.key, with NAME.pub\n"
    "copied into the daemon's --curve-clients directory.  ftiod's own pair, made\n"
    "by root for the service: ftio keygen --owner ftio /etc/ftio/server.\n";

/* NAME.key and NAME.pub, given to uid:gid when owner says so. */
static int write_pair(const char *name, const char *owner, uid_t uid, gid_t gid)
{
    char err[512];
    if (ftio_curve_keygen(name, err, sizeof err) != 0 ||
        (owner && give_away(name, uid, gid, err, sizeof err) != 0)) {
        fprintf(stderr, "ftio keygen: %s\n", err);
        return 1;
    }
    if (owner)
        printf("ftio keygen: wrote %s.key (secret, mode 0600) and %s.pub, owned by %s\n", name, name,
               owner);
    else
        printf("ftio keygen: wrote %s.key (secret) and %s.pub\n", name, name);
    return 0;
}

int ftio_cmd_keygen(int argc, char **argv)
{
    const char *owner = NULL;
    struct cliopt t[] = {
        {"owner", 0, CLIOPT_STRING, "USER[:GROUP]",
         "give both files to USER (and GROUP, default USER's group): root\n"
         "making ftiod's key for the account ftiod runs as (`ftio`)", NULL, .to.s = &owner},
        CLIOPT_HELP_VERSION("the version"),
        {0},
    };
    struct cliopt_parser p = {
        .prog = "ftio keygen", .version = FTIO_VERSION, .opts = t, .usage = usage_text,
        .about = about_text,
    };
    int first = cliopt_parse_argv(&p, argc, argv), rc = 0;
    char err[512];
    uid_t uid = (uid_t)-1;
    gid_t gid = (gid_t)-1;
    if (first < 0)
        rc = CLIOPT_EXIT_STATUS(first);
    else if (owner && parse_owner(owner, &uid, &gid, err, sizeof err) != 0)
        rc = -cliopt_error(&p, "%s", err);
    else if (argc - first != 1 || !argv[first][0])
        rc = -cliopt_error(&p, "one NAME (see ftio keygen --help)");
    else
        rc = write_pair(argv[first], owner, uid, gid);
    cliopt_free(&p);
    return rc;
}
