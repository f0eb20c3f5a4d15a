/* keygen.c -- `ftio keygen NAME`: a CURVE key pair for ftiod (--curve-secret)
 * or for a subscriber or admin (--key; its NAME.pub goes into the daemon's
 * --curve-clients directory).  Writes NAME.key (mode 0600, never over an
 * existing file) and NAME.pub.  The format is in common/curve.h.
 */
#include <stdio.h>
#include <string.h>
#include "cliopt.h"
#include "commands.h"
#include "curve.h"

int ftio_cmd_keygen(int argc, char **argv)
{
    struct cliopt t[] = {
        {"help", 'h', CLIOPT_HELP, NULL, "this help", NULL, .to.p = NULL},
        {"version", 'V', CLIOPT_VERSION, NULL, "the version", NULL, .to.p = NULL},
        {0},
    };
    struct cliopt_parser p = {
        .prog = "ftio keygen", .version = FTIO_VERSION, .opts = t,
        .usage = "usage: ftio keygen NAME\n",
        .about = "Writes a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub (public).\n"
                 "ftiod --curve-secret NAME.key; subscribers --key NAME.key, with NAME.pub\n"
                 "copied into the daemon's --curve-clients directory.\n",
    };
    int first = cliopt_parse_argv(&p, argc, argv);
    cliopt_free(&p);
    if (first == -1)
        return 0;
    if (first < 0)
        return 2;
    if (argc - first != 1 || !argv[first][0]) {
        fprintf(stderr, "ftio keygen: one NAME (see ftio keygen --help)\n");
        return 2;
    }
    argv += first - 1;
    char err[512];
    if (ftio_curve_keygen(argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "ftio keygen: %s\n", err);
        return 1;
    }
    printf("ftio keygen: wrote %s.key (secret) and %s.pub\n", argv[1], argv[1]);
    return 0;
}
